//! HMAC-SHA256 (RFC 2104) for sealed proposals, and the constant-time comparison their
//! verification needs. Plain Rust over `sha2`; the binding only converts.

use sha2::{Digest, Sha256};

const BLOCK: usize = 64;

/// HMAC-SHA256 of `message` under `key` (RFC 2104, with SHA-256's 64-byte block).
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
  let mut block = [0u8; BLOCK];
  if key.len() > BLOCK {
    block[..32].copy_from_slice(&Sha256::digest(key));
  } else {
    block[..key.len()].copy_from_slice(key);
  }
  let mut inner = Sha256::new();
  inner.update(block.map(|b| b ^ 0x36));
  inner.update(message);
  let inner = inner.finalize();
  let mut outer = Sha256::new();
  outer.update(block.map(|b| b ^ 0x5c));
  outer.update(inner);
  outer.finalize().into()
}

/// Whether two byte strings are equal, in time that depends only on their lengths.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
  if a.len() != b.len() {
    return false;
  }
  let mut difference = 0u8;
  for (x, y) in a.iter().zip(b) {
    difference |= x ^ y;
  }
  // black_box keeps the optimizer from turning the fold into an early exit.
  std::hint::black_box(difference) == 0
}

/// The 32 bytes of 64 lowercase hex digits, or None for anything else.
pub fn from_lower_hex(text: &[u8]) -> Option<[u8; 32]> {
  if text.len() != 64 {
    return None;
  }
  let mut out = [0u8; 32];
  for (i, pair) in text.chunks_exact(2).enumerate() {
    let digit = |c: u8| match c {
      b'0'..=b'9' => Some(c - b'0'),
      b'a'..=b'f' => Some(c - b'a' + 10),
      _ => None,
    };
    out[i] = (digit(pair[0])? << 4) | digit(pair[1])?;
  }
  Some(out)
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::jcs::hash::to_hex;

  fn hex(bytes: &[u8; 32]) -> String {
    to_hex(bytes).iter().map(|&b| b as char).collect()
  }

  fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
      .step_by(2)
      .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
      .collect()
  }

  // RFC 4231 test cases 1, 2, 3, 4, 6 and 7 (case 5 truncates the output).
  #[test]
  fn rfc4231_vectors() {
    let cases: [(Vec<u8>, Vec<u8>, &str); 6] = [
      (vec![0x0b; 20], b"Hi There".to_vec(), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
      (b"Jefe".to_vec(), b"what do ya want for nothing?".to_vec(), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
      (vec![0xaa; 20], vec![0xdd; 50], "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
      (
        unhex("0102030405060708090a0b0c0d0e0f10111213141516171819"),
        vec![0xcd; 50],
        "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
      ),
      (
        vec![0xaa; 131],
        b"Test Using Larger Than Block-Size Key - Hash Key First".to_vec(),
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
      ),
      (
        vec![0xaa; 131],
        b"This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".to_vec(),
        "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
      ),
    ];
    for (key, data, expected) in cases {
      assert_eq!(hex(&hmac_sha256(&key, &data)), expected);
    }
  }

  #[test]
  fn constant_time_eq_compares_whole_strings() {
    assert!(constant_time_eq(b"abc", b"abc"));
    assert!(!constant_time_eq(b"abc", b"abd"));
    assert!(!constant_time_eq(b"abc", b"abcd"));
    assert!(constant_time_eq(b"", b""));
  }

  #[test]
  fn hex_is_lowercase_and_exact() {
    let digest = hmac_sha256(b"k", b"m");
    assert_eq!(from_lower_hex(hex(&digest).as_bytes()), Some(digest));
    assert_eq!(from_lower_hex(hex(&digest).to_uppercase().as_bytes()), None);
    assert_eq!(from_lower_hex(&hex(&digest).as_bytes()[..63]), None);
  }
}
