//! The stable-toolchain fuzzer: seeded random and structured inputs through the same
//! checks as the cargo-fuzz targets, for a fixed time or number of iterations.
//!
//!   cargo run --release --manifest-path fuzz/Cargo.toml --bin smoke -- --seconds 60 --seed 7
//!
//! Options: --seconds S (default 60), --iterations N (overrides --seconds), --seed S,
//! --target decode|encode|both (default both). A failing input is written to
//! fuzz/artifacts/smoke-<target>-<n>.bin (replay it with `cargo +nightly fuzz run
//! <target> <file>` or `--replay <file>`), and the run exits with status 1.

use std::panic::{self, AssertUnwindSafe};
use std::time::{Duration, Instant};

use tas_fuzz::{check_decode, check_encode, generate, XorShift, STATS};

fn main() {
  let args: Vec<String> = std::env::args().skip(1).collect();
  let mut seconds = 60u64;
  let mut iterations: Option<u64> = None;
  let mut seed = 0x5eed_u64;
  let mut target = String::from("both");
  let mut replay: Option<String> = None;
  let mut i = 0;
  while i < args.len() {
    let value = args.get(i + 1).cloned().unwrap_or_default();
    match args[i].as_str() {
      "--seconds" => seconds = value.parse().expect("--seconds N"),
      "--iterations" => iterations = Some(value.parse().expect("--iterations N")),
      "--seed" => seed = value.parse().expect("--seed N"),
      "--target" => target = value,
      "--replay" => replay = Some(value),
      other => panic!("unknown argument {other}"),
    }
    i += 2;
  }
  if let Some(file) = replay {
    let data = std::fs::read(&file).expect("read the input to replay");
    if target != "encode" {
      check_decode(&data);
    }
    if target != "decode" {
      check_encode(&data);
    }
    println!("replayed {file}: no failure");
    return;
  }
  let decode = target != "encode";
  let encode = target != "decode";
  let deadline = Instant::now() + Duration::from_secs(seconds);
  let mut rng = XorShift(seed | 1);
  let mut input = Vec::new();
  let (mut runs, mut findings) = (0u64, 0u32);
  let started = Instant::now();
  loop {
    if let Some(n) = iterations {
      if runs >= n {
        break;
      }
    } else if runs % 256 == 0 && Instant::now() >= deadline {
      break;
    }
    generate(&mut rng, &mut input);
    for (name, enabled, check) in [
      ("decode", decode, check_decode as fn(&[u8])),
      ("encode", encode, check_encode as fn(&[u8])),
    ] {
      if !enabled {
        continue;
      }
      if panic::catch_unwind(AssertUnwindSafe(|| check(&input))).is_err() {
        findings += 1;
        let _ = std::fs::create_dir_all("fuzz/artifacts");
        let file = format!("fuzz/artifacts/smoke-{name}-{findings}.bin");
        let _ = std::fs::write(&file, &input);
        eprintln!(
          "finding #{findings} in {name}: input written to {file} ({} bytes)",
          input.len()
        );
      }
    }
    runs += 1;
    if findings >= 5 {
      break;
    }
  }
  let elapsed = started.elapsed().as_secs_f64();
  println!(
    "smoke: {runs} inputs x {} target(s) in {elapsed:.1} s ({:.0} inputs/s), seed {seed}, {findings} finding(s)",
    u32::from(decode) + u32::from(encode),
    runs as f64 / elapsed.max(1e-9)
  );
  let stat = |i: usize| STATS[i].load(std::sync::atomic::Ordering::Relaxed);
  println!(
    "smoke: decode accepted {} / rejected {}; encode accepted {} / rejected {}",
    stat(0),
    stat(1),
    stat(2),
    stat(3)
  );
  if findings > 0 {
    std::process::exit(1);
  }
}
