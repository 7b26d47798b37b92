//! Conformance of the napi-free core against published RFC 8785 (JCS) vectors: the
//! input/output pairs of cyberphone (the RFC author's reference data), gowebpki and
//! erdtman, the samples printed in RFC 8785 and a slice of the ES6 number test file.
//! The vectors live outside the project (`../shared/jcs-vectors`, or `$JCS_VECTORS_DIR`)
//! and are read in place; each test prints a message and passes when they are absent.

use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use tool_argument_snapshot::jcs::number::write_number;
use tool_argument_snapshot::jcs::{canonicalize_str, canonicalize_text, DecodeOptions};
use tool_argument_snapshot::ErrorCode;

/// The ES6 number slice used here and its SHA-256 as published in the upstream README
/// (cyberphone/json-canonicalization testdata/README.md), so a truncated or edited slice
/// cannot make the test pass vacuously.
const ES6_FILE: &str = "cyberphone-json-canonicalization/es6numbers/es6testfile-first100000.txt";
const ES6_LINES: usize = 100_000;
const ES6_SHA256: &str = "22776e6d4b49fa294a0d0f349268e5c28808fe7e0cb2bcbe28f63894e494d4c7";
const MAX_LISTED: usize = 20;

fn vectors_dir() -> Option<PathBuf> {
  let dir = match std::env::var_os("JCS_VECTORS_DIR") {
    Some(dir) if !dir.is_empty() => PathBuf::from(dir),
    _ => Path::new(env!("CARGO_MANIFEST_DIR"))
      .join("..")
      .join("shared")
      .join("jcs-vectors"),
  };
  if dir.is_dir() {
    Some(dir)
  } else {
    eprintln!(
      "SKIPPED: jcs-vectors not found at {} (set JCS_VECTORS_DIR to run the published vectors)",
      dir.display()
    );
    None
  }
}

fn rel(dir: &Path, file: &Path) -> String {
  file.strip_prefix(dir).unwrap_or(file).display().to_string()
}

fn read(file: &Path) -> Vec<u8> {
  fs::read(file).unwrap_or_else(|error| panic!("cannot read {}: {error}", file.display()))
}

fn read_text(file: &Path) -> String {
  String::from_utf8(read(file)).unwrap_or_else(|_| panic!("{} is not UTF-8", file.display()))
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
  let mut entries: Vec<PathBuf> = fs::read_dir(dir)
    .unwrap_or_else(|error| panic!("cannot list {}: {error}", dir.display()))
    .map(|entry| entry.expect("directory entry").path())
    .collect();
  entries.sort();
  entries
}

struct Pair {
  folder: String,
  input: PathBuf,
  output: PathBuf,
  outhex: Option<PathBuf>,
}

/// The input/output pairs of every vector folder that has `input/` and `output/`.
fn pairs(dir: &Path) -> Vec<Pair> {
  let mut pairs = Vec::new();
  for folder in sorted_entries(dir) {
    let (input_dir, output_dir) = (folder.join("input"), folder.join("output"));
    if !input_dir.is_dir() || !output_dir.is_dir() {
      continue;
    }
    let folder_name = folder.file_name().unwrap().to_string_lossy().into_owned();
    for input in sorted_entries(&input_dir) {
      if input.extension().and_then(|ext| ext.to_str()) != Some("json") {
        continue;
      }
      let name = input.file_name().unwrap().to_owned();
      let outhex = folder
        .join("outhex")
        .join(Path::new(&name).with_extension("txt"));
      pairs.push(Pair {
        folder: folder_name.clone(),
        output: output_dir.join(&name),
        outhex: outhex.is_file().then_some(outhex),
        input,
      });
    }
  }
  pairs
}

/// The erdtman copies are an older variant whose output may end with a newline that is
/// not part of the canonical form.
fn expected_bytes(pair: &Pair) -> Vec<u8> {
  let mut bytes = read(&pair.output);
  if pair.folder.starts_with("erdtman") && bytes.last() == Some(&b'\n') {
    bytes.pop();
  }
  bytes
}

/// Hex bytes as written in outhex files: any case, any whitespace between digits.
fn parse_hex(text: &str) -> Vec<u8> {
  let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
  assert!(digits.len().is_multiple_of(2), "odd number of hex digits");
  digits
    .chunks(2)
    .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).unwrap(), 16).expect("hex digit"))
    .collect()
}

fn format_number(value: f64) -> Result<String, ErrorCode> {
  let mut out = Vec::new();
  write_number(value, &mut out).map(|()| String::from_utf8(out).expect("number text is ASCII"))
}

fn report(failures: &[String], total: usize) {
  if failures.is_empty() {
    return;
  }
  let mut message = format!("{} of {total} cases failed:", failures.len());
  for failure in failures.iter().take(MAX_LISTED) {
    message.push_str("\n  ");
    message.push_str(failure);
  }
  if failures.len() > MAX_LISTED {
    message.push_str(&format!("\n  ... and {} more", failures.len() - MAX_LISTED));
  }
  panic!("{message}");
}

#[test]
fn every_published_input_canonicalizes_to_the_exact_bytes_of_its_output() {
  let Some(dir) = vectors_dir() else { return };
  let pairs = pairs(&dir);
  assert!(
    !pairs.is_empty(),
    "no input/output pairs under {}",
    dir.display()
  );
  let mut failures = Vec::new();
  for pair in &pairs {
    let where_ = rel(&dir, &pair.input);
    let expected = expected_bytes(pair);
    match canonicalize_str(&read_text(&pair.input)) {
      Ok(actual) if actual.as_bytes() == expected.as_slice() => {}
      Ok(actual) => failures.push(format!(
        "{where_}: got {actual:?}, expected {:?} ({})",
        String::from_utf8_lossy(&expected),
        rel(&dir, &pair.output)
      )),
      Err(failure) => failures.push(format!("{where_}: failed with {failure}")),
    }
    // The canonical form is a fixed point.
    if let Ok(text) = std::str::from_utf8(&expected) {
      match canonicalize_str(text) {
        Ok(again) if again == text => {}
        other => failures.push(format!(
          "{}: canonicalizing the output gave {other:?}",
          rel(&dir, &pair.output)
        )),
      }
    }
  }
  eprintln!("{} published pairs checked", pairs.len());
  report(&failures, pairs.len());
}

#[test]
fn every_outhex_file_spells_the_utf8_bytes_of_the_canonical_output() {
  let Some(dir) = vectors_dir() else { return };
  let pairs: Vec<Pair> = pairs(&dir)
    .into_iter()
    .filter(|pair| pair.outhex.is_some())
    .collect();
  assert!(!pairs.is_empty(), "no outhex files under {}", dir.display());
  let mut failures = Vec::new();
  for pair in &pairs {
    let outhex = pair.outhex.as_ref().unwrap();
    let where_ = rel(&dir, outhex);
    let hex = parse_hex(&read_text(outhex));
    if hex != expected_bytes(pair) {
      failures.push(format!(
        "{where_}: vector inconsistent with {}",
        rel(&dir, &pair.output)
      ));
    }
    match canonicalize_str(&read_text(&pair.input)) {
      Ok(actual) if actual.as_bytes() == hex.as_slice() => {}
      other => failures.push(format!(
        "{where_}: canonical bytes of {} differ: {other:?}",
        rel(&dir, &pair.input)
      )),
    }
  }
  report(&failures, pairs.len());
}

#[test]
fn the_utf16_entry_point_agrees_with_the_utf8_one_on_every_published_input() {
  let Some(dir) = vectors_dir() else { return };
  let pairs = pairs(&dir);
  let mut failures = Vec::new();
  for pair in &pairs {
    let units: Vec<u16> = read_text(&pair.input).encode_utf16().collect();
    let expected = expected_bytes(pair);
    for options in [
      DecodeOptions::snapshot(),
      DecodeOptions::request(),
      DecodeOptions::snapshot().with_path(true),
    ] {
      match canonicalize_text(&units, options) {
        Ok(actual) if actual == expected => {}
        other => failures.push(format!(
          "{} with {options:?}: got {other:?}",
          rel(&dir, &pair.input)
        )),
      }
    }
  }
  report(&failures, pairs.len() * 3);
}

#[test]
fn the_rfc_8785_samples_canonicalize_as_printed() {
  let Some(dir) = vectors_dir() else { return };
  let rfc = dir.join("rfc8785");
  let sample = read_text(&rfc.join("sec3.2.2-sample.input.json"));
  let expected = read_text(&rfc.join("sec3.2.3-sample.canonical.json"));
  let hex = parse_hex(&read_text(&rfc.join("sec3.2.4-sample.utf8.hex")));
  assert_eq!(
    hex,
    expected.as_bytes(),
    "rfc8785/sec3.2.4-sample.utf8.hex: vector inconsistent with sec3.2.3-sample.canonical.json"
  );
  let actual = canonicalize_str(&sample).expect("rfc8785/sec3.2.2-sample.input.json canonicalizes");
  assert_eq!(
    actual, expected,
    "rfc8785/sec3.2.2-sample.input.json: differs from sec3.2.3-sample.canonical.json"
  );
  assert_eq!(
    actual.as_bytes(),
    hex.as_slice(),
    "rfc8785/sec3.2.2-sample.input.json: differs from sec3.2.4-sample.utf8.hex"
  );

  let sorting = read_text(&rfc.join("sec3.2.3-sorting.input.json"));
  let expected = read_text(&rfc.join("sec3.2.3-sorting.canonical.json"));
  let actual =
    canonicalize_str(&sorting).expect("rfc8785/sec3.2.3-sorting.input.json canonicalizes");
  assert_eq!(
    actual, expected,
    "rfc8785/sec3.2.3-sorting.input.json: differs from sec3.2.3-sorting.canonical.json"
  );
  // The values must appear in the order the RFC lists them.
  let order = read_text(&rfc.join("sec3.2.3-sorting.expected-value-order.txt"));
  let mut from = 0;
  for value in order.lines().filter(|line| !line.is_empty()) {
    let quoted = format!("\"{value}\"");
    let at = actual[from..].find(&quoted).unwrap_or_else(|| {
      panic!("rfc8785/sec3.2.3-sorting: {quoted} missing or out of order in {actual}")
    });
    from += at + quoted.len();
  }
}

#[test]
fn the_rfc_8785_appendix_b_numbers_format_as_the_table_says() {
  let Some(dir) = vectors_dir() else { return };
  let file = dir.join("rfc8785").join("appendixB-numbers.csv");
  let text = read_text(&file);
  let mut lines = text.lines();
  assert_eq!(
    lines.next(),
    Some("ieee754_hex,expected_jcs,comment"),
    "{}: header",
    rel(&dir, &file)
  );
  let mut failures = Vec::new();
  let mut rows = 0;
  for (index, line) in lines.enumerate() {
    if line.is_empty() {
      continue;
    }
    rows += 1;
    let mut fields = line.splitn(3, ',');
    let (hex, expected) = (fields.next().unwrap(), fields.next().unwrap_or(""));
    let where_ = format!("{}:{} {hex}", rel(&dir, &file), index + 2);
    let value = f64::from_bits(u64::from_str_radix(hex, 16).expect("hex bits"));
    let actual = format_number(value);
    let wanted = if expected == "<ERROR>" {
      Err(ErrorCode::NonFiniteNumber)
    } else if value == 0.0 && value.is_sign_negative() {
      // Plain RFC 8785 prints "0"; the snapshot domain rejects negative zero.
      Err(ErrorCode::NegativeZero)
    } else {
      Ok(expected.to_owned())
    };
    if actual != wanted {
      failures.push(format!("{where_}: got {actual:?}, expected {wanted:?}"));
    }
    if let Ok(number) = &wanted {
      // The strict decoder reads the printed number back to the same canonical text.
      match canonicalize_str(number) {
        Ok(again) if &again == number => {}
        other => failures.push(format!(
          "{where_}: canonicalize_str({number}) gave {other:?}"
        )),
      }
    }
  }
  assert_eq!(
    rows,
    26,
    "{}: expected the 26 rows of Appendix B",
    rel(&dir, &file)
  );
  report(&failures, rows);
}

#[test]
fn the_es6_number_test_file_slice_formats_exactly_as_published() {
  let Some(dir) = vectors_dir() else { return };
  let file = dir.join(ES6_FILE);
  let text = read_text(&file);
  let digest: String = Sha256::digest(text.as_bytes())
    .iter()
    .map(|byte| format!("{byte:02x}"))
    .collect();
  assert_eq!(
    digest,
    ES6_SHA256,
    "{}: SHA-256 differs from the published value",
    rel(&dir, &file)
  );
  assert!(
    text.ends_with('\n'),
    "{}: the file must end with a newline",
    rel(&dir, &file)
  );
  let lines: Vec<&str> = text.lines().collect();
  assert_eq!(lines.len(), ES6_LINES, "{}: line count", rel(&dir, &file));
  let mut failures = Vec::new();
  let mut negative_zeros = 0;
  for (index, line) in lines.iter().enumerate() {
    let where_ = format!("{}:{} {line}", rel(&dir, &file), index + 1);
    let Some((hex, expected)) = line.split_once(',') else {
      failures.push(format!("{where_}: malformed line"));
      continue;
    };
    let Ok(bits) = u64::from_str_radix(hex, 16) else {
      failures.push(format!("{where_}: malformed hex"));
      continue;
    };
    let value = f64::from_bits(bits);
    let wanted = if value == 0.0 && value.is_sign_negative() {
      negative_zeros += 1;
      Err(ErrorCode::NegativeZero)
    } else if !value.is_finite() {
      Err(ErrorCode::NonFiniteNumber)
    } else {
      Ok(expected.to_owned())
    };
    let actual = format_number(value);
    if actual != wanted {
      failures.push(format!("{where_}: got {actual:?}, expected {wanted:?}"));
      continue;
    }
    // The strict decoder parses the expected text to the same double (else the encoder
    // would print something else) and inside containers the number is unchanged.
    let document = format!("[{expected},{{\"n\":{expected}}}]");
    match canonicalize_str(&document) {
      Ok(again) if again == document => {}
      other => failures.push(format!(
        "{where_}: canonicalize_str({document}) gave {other:?}"
      )),
    }
  }
  assert_eq!(
    negative_zeros,
    1,
    "{}: expected negative zero exactly once (line 2)",
    rel(&dir, &file)
  );
  eprintln!("{} ES6 number lines checked", lines.len());
  report(&failures, lines.len());
}
