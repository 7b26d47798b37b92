//! Criterion benchmarks of the Rust core alone (no Node): number formatting, string
//! escaping, UTF-16 key sorting, hashing and strict decoding. `cargo bench`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use tool_argument_snapshot::jcs::{
  self, decoder::DecodeOptions, hash::proposal_hash, number::write_number, string::write_string,
  Tape,
};

/// A small deterministic generator, so every run measures the same inputs.
struct Lcg(u64);
impl Lcg {
  fn next(&mut self) -> u64 {
    self.0 = self
      .0
      .wrapping_mul(6364136223846793005)
      .wrapping_add(1442695040888963407);
    self.0 >> 11
  }
  fn double(&mut self) -> f64 {
    loop {
      let v = f64::from_bits(self.next() << 11 | self.next() & 0x7ff);
      if v.is_finite() && v != 0.0 {
        return v;
      }
    }
  }
}

fn numbers(c: &mut Criterion) {
  let mut rng = Lcg(7);
  let doubles: Vec<f64> = (0..10_000).map(|_| rng.double()).collect();
  let integers: Vec<f64> = (0..10_000).map(|i| (i * 37) as f64).collect();
  let mut group = c.benchmark_group("number_formatting");
  group.throughput(Throughput::Elements(10_000));
  for (name, values) in [("random_doubles", &doubles), ("integers", &integers)] {
    group.bench_function(name, |b| {
      let mut out = Vec::with_capacity(300_000);
      b.iter(|| {
        out.clear();
        for &v in values.iter() {
          write_number(v, &mut out).unwrap();
        }
        black_box(out.len())
      })
    });
  }
  group.finish();
}

fn strings(c: &mut Criterion) {
  let ascii: Vec<u16> = "plain ascii text without escapes, "
    .repeat(30_000)
    .encode_utf16()
    .collect();
  let mixed: Vec<u16> = "Zoë \"quoted\" back\\slash\ttab\nnewline \u{1} 東京 😀 "
    .repeat(20_000)
    .encode_utf16()
    .collect();
  let mut group = c.benchmark_group("string_escaping");
  for (name, units) in [("ascii_1mb", &ascii), ("mixed_escapes", &mixed)] {
    group.throughput(Throughput::Bytes((units.len() * 2) as u64));
    group.bench_function(name, |b| {
      let mut out = Vec::with_capacity(units.len() * 3);
      b.iter(|| {
        out.clear();
        write_string(black_box(units), &mut out).unwrap();
        black_box(out.len())
      })
    });
  }
  group.finish();
}

fn key_sorting(c: &mut Criterion) {
  // A 5,000-key object, a fifth of the keys integer-like, in insertion order (an
  // integer-like key drawn twice is drawn again: the encoder refuses duplicate keys).
  let mut rng = Lcg(13);
  let mut seen = std::collections::HashSet::new();
  let mut tape = Tape::default();
  tape.ops.push(jcs::tape::OBJECT);
  tape.lens.push(5_000);
  for i in 0..5_000u64 {
    let key = if i % 5 == 0 {
      loop {
        let key = (rng.next() % 1_000_000).to_string();
        if seen.insert(key.clone()) {
          break key;
        }
      }
    } else {
      format!("key_{}_{}", rng.next() % 97, i)
    };
    let units: Vec<u16> = key.encode_utf16().collect();
    tape.lens.push(units.len() as u32);
    tape.text.extend_from_slice(&units);
    tape.ops.push(jcs::tape::NUMBER);
    tape.nums.push(i as f64);
  }
  c.bench_function("utf16_key_sorting_5000_keys", |b| {
    let mut encoder = jcs::encoder::Encoder::default();
    let mut out = Vec::with_capacity(200_000);
    b.iter(|| {
      out.clear();
      encoder.encode(tape.as_ref(), &mut out, false).unwrap();
      black_box(out.len())
    })
  });
}

fn hashing(c: &mut Criterion) {
  // The per-call cost of a small tool call's hash: the envelope is two SHA-256 blocks.
  let agent: Vec<u16> = "bench-agent".encode_utf16().collect();
  let tool: Vec<u16> = "write_file".encode_utf16().collect();
  c.bench_function("proposal_hash_small_call", |b| {
    b.iter(|| {
      proposal_hash(
        black_box(&agent),
        black_box(&tool),
        black_box(br#"{"path":"a.txt","text":"hi"}"#),
      )
    })
  });
  let mut group = c.benchmark_group("proposal_hash");
  let agent: Vec<u16> = "Release assistant".encode_utf16().collect();
  let tool: Vec<u16> = "write_file".encode_utf16().collect();
  for size in [300usize, 20_000, 1_000_000] {
    let json: Vec<u8> = br#"{"k":"v\"q"},"#.iter().copied().cycle().take(size).collect();
    group.throughput(Throughput::Bytes(size as u64));
    group.bench_with_input(BenchmarkId::from_parameter(size), &json, |b, json| {
      b.iter(|| proposal_hash(&agent, &tool, black_box(json)).unwrap())
    });
  }
  group.finish();
}

fn decoding(c: &mut Criterion) {
  let mut doc = String::from("{\"records\":[");
  for i in 0..100 {
    if i > 0 {
      doc.push(',');
    }
    doc.push_str(&format!(
      r#"{{"id":{i},"name":"Zoë {i}","email":"user{i}@example.com","score":{},"active":true,"tags":["a","b"],"address":{{"city":"Łódź","zip":"{}"}},"note":null}}"#,
      i as f64 * 1.25e-3,
      10_000 + i
    ));
  }
  doc.push_str("]}");
  let units: Vec<u16> = doc.encode_utf16().collect();
  let mut group = c.benchmark_group("strict_decoding");
  group.throughput(Throughput::Bytes(doc.len() as u64));
  group.bench_function("medium_20kb", |b| {
    let mut tape = Tape::default();
    b.iter(|| {
      tape.clear();
      jcs::decode(black_box(&units), DecodeOptions::request(), &mut tape).unwrap();
      black_box(tape.ops.len())
    })
  });
  group.bench_function("medium_20kb_canonicalized", |b| {
    b.iter(|| jcs::canonicalize_text(black_box(&units), DecodeOptions::request()).unwrap())
  });
  group.finish();
}

criterion_group!(benches, numbers, strings, key_sorting, hashing, decoding);
criterion_main!(benches);
