//! cargo-fuzz target: the strict decoder on arbitrary UTF-16 (see tas_fuzz::check_decode).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
  tas_fuzz::check_decode(data);
});
