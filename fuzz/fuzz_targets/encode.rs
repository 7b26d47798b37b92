//! cargo-fuzz target: the encoder on arbitrary tapes (see tas_fuzz::check_encode).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
  tas_fuzz::check_encode(data);
});
