//! Sealed proposals: their HMAC-SHA256 signature, made and checked by `crate::seal`.

use napi_derive::napi;

use crate::jcs::hash::to_hex;

/// The lowercase hex HMAC-SHA256 of the UTF-8 `message` under `key`: a sealed proposal's
/// signature (`message` is its RFC 8785 form without the signature).
#[napi(catch_unwind)]
pub fn seal_signature(key: &[u8], message: String) -> String {
  let mac = crate::seal::hmac_sha256(key, message.as_bytes());
  to_hex(&mac).iter().map(|&b| b as char).collect()
}

/// Whether `signature` (64 lowercase hex digits) is the HMAC-SHA256 of the UTF-8
/// `message` under `key`, compared in constant time.
#[napi(catch_unwind)]
pub fn seal_verify(key: &[u8], message: String, signature: String) -> bool {
  let mac = crate::seal::hmac_sha256(key, message.as_bytes());
  match crate::seal::from_lower_hex(signature.as_bytes()) {
    Some(given) => crate::seal::constant_time_eq(&mac, &given),
    None => false,
  }
}
