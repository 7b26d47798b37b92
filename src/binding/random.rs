//! Randomness from the operating system and SHA-256 of a text, for the parts of `lib/` and
//! `adapters/` that would otherwise load `node:crypto` (a few milliseconds and megabytes
//! of every process that requires the package): seal nonces, receipt claim ids, receipt
//! key ids and the adapters' UUIDs. The bytes come from `getrandom` (getrandom(2) on
//! Linux, arc4random_buf/getentropy on macOS, ProcessPrng on Windows), the source
//! `node:crypto` itself draws from through OpenSSL.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use sha2::{Digest, Sha256};

use crate::jcs::hash::to_hex;

const HEX: &[u8; 16] = b"0123456789abcdef";

fn random_bytes(count: usize) -> Result<Vec<u8>> {
  let mut bytes = vec![0u8; count];
  getrandom::fill(&mut bytes).map_err(|error| {
    Error::new(
      Status::GenericFailure,
      format!("the operating system gave no random bytes: {error}"),
    )
  })?;
  Ok(bytes)
}

fn hex(bytes: &[u8]) -> String {
  let mut out = String::with_capacity(bytes.len() * 2);
  for &byte in bytes {
    out.push(HEX[(byte >> 4) as usize] as char);
    out.push(HEX[(byte & 15) as usize] as char);
  }
  out
}

/// `count` random bytes from the operating system as `2 * count` lowercase hex digits
/// (at most 65,536 bytes). Throws when the operating system fails, as `node:crypto` does.
#[napi(catch_unwind)]
pub fn random_hex(count: u32) -> Result<String> {
  if count > 65_536 {
    return Err(Error::new(
      Status::InvalidArg,
      "at most 65536 random bytes at a time",
    ));
  }
  Ok(hex(&random_bytes(count as usize)?))
}

/// A random RFC 9562 version 4 UUID in its lowercase 8-4-4-4-12 form, as
/// `crypto.randomUUID()` makes them.
#[napi(catch_unwind)]
pub fn random_uuid() -> Result<String> {
  let mut bytes = random_bytes(16)?;
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  let digits = hex(&bytes);
  Ok(format!(
    "{}-{}-{}-{}-{}",
    &digits[0..8],
    &digits[8..12],
    &digits[12..16],
    &digits[16..20],
    &digits[20..32]
  ))
}

/// The lowercase hex SHA-256 of the UTF-8 of `text` (a lone surrogate reads as U+FFFD, as
/// in `createHash('sha256').update(text, 'utf8')`).
#[napi(catch_unwind)]
pub fn sha256_hex(text: String) -> String {
  let digest: [u8; 32] = Sha256::digest(text.as_bytes()).into();
  to_hex(&digest).iter().map(|&b| b as char).collect()
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn uuids_have_version_and_variant() {
    let uuid = random_uuid().unwrap();
    assert_eq!(uuid.len(), 36);
    let bytes = uuid.as_bytes();
    assert_eq!(bytes[14], b'4');
    assert!(matches!(bytes[19], b'8' | b'9' | b'a' | b'b'));
    assert_ne!(random_uuid().unwrap(), uuid);
  }

  #[test]
  fn sha256_of_abc() {
    // FIPS 180-2, appendix B.1.
    assert_eq!(
      sha256_hex("abc".to_owned()),
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
  }
}
