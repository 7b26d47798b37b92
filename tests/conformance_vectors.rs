//! The in-repository conformance vectors (`conformance-vectors/`, format in its README)
//! through the napi-free core: every text vector (`text`, `textUtf16Hex`) and every byte
//! vector (`bytesHex`) is strict-decoded, canonicalized and hashed, and must give the
//! vector's canonical JSON and proposal hash, or its stage and code. Value vectors
//! describe JavaScript values and run in `__test__/conformance/conformance-vectors.test.js` only.
//!
//! Bytes become text here as the command line makes them: strict UTF-8 (`std::str::from_utf8`,
//! which refuses overlong forms, encoded surrogates and code points above U+10FFFF) and
//! no leading byte order mark; the core decoder takes UTF-16, like the JavaScript strings
//! it is handed.
//!
//! A second test runs the same vectors through `serde_json_canonicalizer` (a published
//! RFC 8785 crate) and reports where it accepts what a vector refuses or writes other
//! bytes. It never fails on a finding: `__test__/conformance/vectors-differential.test.js` runs it
//! with `TAS_VECTORS_DIFFERENTIAL_OUT` set and prints the findings.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use tool_argument_snapshot::jcs::{canonicalize_text, proposal_hash_hex, DecodeOptions};
use tool_argument_snapshot::ErrorCode;

/// Vectors the package gets wrong today (the same list as the JavaScript test): they are
/// run and reported, not failed, until the decoder is fixed.
const KNOWN_PACKAGE_BUGS: &[&str] = &[];

struct Vector {
  id: String,
  agent_name: String,
  tool_name: String,
  input: Input,
  expect: Value,
}

enum Input {
  Text(Vec<u16>),
  Bytes(Vec<u8>),
}

fn vectors_dir() -> PathBuf {
  Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance-vectors")
}

fn string_field<'a>(value: &'a Value, key: &str, id: &str) -> &'a str {
  value
    .get(key)
    .and_then(Value::as_str)
    .unwrap_or_else(|| panic!("{id}: no string field {key}"))
}

fn parse_units(hex: &str, id: &str) -> Vec<u16> {
  hex
    .split(' ')
    .map(|unit| u16::from_str_radix(unit, 16).unwrap_or_else(|_| panic!("{id}: bad unit {unit}")))
    .collect()
}

fn parse_bytes(hex: &str, id: &str) -> Vec<u8> {
  assert!(
    hex.len().is_multiple_of(2),
    "{id}: odd number of hex digits"
  );
  (0..hex.len())
    .step_by(2)
    .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap_or_else(|_| panic!("{id}: bad hex")))
    .collect()
}

/// The text and byte vectors of every file, in file order.
fn load() -> Vec<Vector> {
  let dir = vectors_dir();
  let mut names: Vec<PathBuf> = fs::read_dir(&dir)
    .unwrap_or_else(|error| panic!("cannot list {}: {error}", dir.display()))
    .map(|entry| entry.expect("directory entry").path())
    .filter(|path| path.extension().and_then(|ext| ext.to_str()) == Some("json"))
    .collect();
  names.sort();
  assert!(!names.is_empty(), "no vector files in {}", dir.display());
  let mut vectors = Vec::new();
  for name in names {
    let text = fs::read_to_string(&name).expect("vector file is UTF-8");
    let doc: Value =
      serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", name.display()));
    let file_agent = string_field(&doc, "agentName", "file");
    let file_tool = string_field(&doc, "toolName", "file");
    for vector in doc["vectors"].as_array().expect("vectors") {
      let id = string_field(vector, "id", "vector").to_owned();
      let input = if let Some(text) = vector.get("text").and_then(Value::as_str) {
        Input::Text(text.encode_utf16().collect())
      } else if let Some(hex) = vector.get("textUtf16Hex").and_then(Value::as_str) {
        Input::Text(parse_units(hex, &id))
      } else if let Some(hex) = vector.get("bytesHex").and_then(Value::as_str) {
        Input::Bytes(parse_bytes(hex, &id))
      } else {
        continue; // a value vector: JavaScript only
      };
      vectors.push(Vector {
        agent_name: vector
          .get("agentName")
          .and_then(Value::as_str)
          .unwrap_or(file_agent)
          .to_owned(),
        tool_name: vector
          .get("toolName")
          .and_then(Value::as_str)
          .unwrap_or(file_tool)
          .to_owned(),
        expect: vector["expect"].clone(),
        id,
        input,
      });
    }
  }
  vectors
}

/// What the package's core makes of a vector: Ok((canonical JSON, hash)) or Err((stage, code)).
fn run_core(vector: &Vector) -> Result<(String, String), (&'static str, &'static str)> {
  let units: Vec<u16> = match &vector.input {
    Input::Text(units) => units.clone(),
    Input::Bytes(bytes) => {
      let text = std::str::from_utf8(bytes).map_err(|_| ("json", "invalid_json"))?;
      if text.starts_with('\u{feff}') {
        return Err(("json", "invalid_json"));
      }
      text.encode_utf16().collect()
    }
  };
  let canonical = canonicalize_text(&units, DecodeOptions::snapshot()).map_err(|failure| {
    let stage = if failure.code == ErrorCode::NegativeZero {
      "snapshot"
    } else {
      "json"
    };
    (stage, failure.code.as_str())
  })?;
  let agent: Vec<u16> = vector.agent_name.encode_utf16().collect();
  let tool: Vec<u16> = vector.tool_name.encode_utf16().collect();
  let hash = proposal_hash_hex(&agent, &tool, &canonical).expect("names are well-formed");
  Ok((
    String::from_utf8(canonical).expect("canonical JSON is UTF-8"),
    hash,
  ))
}

fn describe(result: &Result<(String, String), (&'static str, &'static str)>) -> String {
  match result {
    Ok((json, _)) => format!("accepted as {json:?}"),
    Err((stage, code)) => format!("refused (stage {stage}, code {code})"),
  }
}

#[test]
fn every_text_and_byte_vector_gives_its_expected_result_in_the_rust_core() {
  let vectors = load();
  let mut failures = Vec::new();
  let mut known = Vec::new();
  for vector in &vectors {
    let result = run_core(vector);
    let problem = if let Some(json) = vector.expect.get("canonicalJson").and_then(Value::as_str) {
      let hash = string_field(&vector.expect, "proposalHash", &vector.id);
      match &result {
        Ok((actual, actual_hash)) if actual == json && actual_hash == hash => None,
        Ok((actual, _)) if actual == json => Some("the proposal hash differs".to_owned()),
        _ => Some(format!("expected {json:?}, {}", describe(&result))),
      }
    } else {
      let stage = string_field(&vector.expect, "stage", &vector.id);
      let code = string_field(&vector.expect, "code", &vector.id);
      match &result {
        Err((s, c)) if *s == stage && *c == code => None,
        _ => Some(format!(
          "expected stage {stage} code {code}, {}",
          describe(&result)
        )),
      }
    };
    match (problem, KNOWN_PACKAGE_BUGS.contains(&vector.id.as_str())) {
      (Some(problem), false) => failures.push(format!("{}: {problem}", vector.id)),
      (Some(problem), true) => known.push(format!("{}: {problem}", vector.id)),
      (None, true) => eprintln!(
        "{}: now passes; remove it from KNOWN_PACKAGE_BUGS",
        vector.id
      ),
      (None, false) => {}
    }
  }
  eprintln!("{} text and byte vectors checked", vectors.len());
  for line in &known {
    eprintln!("known package bug (not failed): {line}");
  }
  assert!(vectors.len() >= 200, "only {} vectors", vectors.len());
  assert!(
    failures.is_empty(),
    "{} of {} vectors failed:\n  {}",
    failures.len(),
    vectors.len(),
    failures.join("\n  ")
  );
}

/// JSON string literal of `text` (for the report file; serde_json escapes as JSON needs).
fn quote(text: &str) -> String {
  serde_json::to_string(text).expect("a string serializes")
}

/// `serde_json_canonicalizer` on a vector's input: Ok(canonical JSON) or Err(why not).
fn run_canonicalizer(vector: &Vector) -> Result<String, String> {
  match &vector.input {
    Input::Text(units) => {
      let text = String::from_utf16(units).map_err(|_| {
        "not run: the text is not well-formed UTF-16, so it has no Rust &str".to_owned()
      })?;
      serde_json_canonicalizer::pipe(&text).map_err(|error| format!("error: {error}"))
    }
    Input::Bytes(bytes) => {
      let value: Value =
        serde_json::from_slice(bytes).map_err(|error| format!("error: {error}"))?;
      serde_json_canonicalizer::to_string(&value).map_err(|error| format!("error: {error}"))
    }
  }
}

#[test]
fn serde_json_canonicalizer_on_the_vectors_is_reported_never_failed() {
  let vectors = load();
  let mut lines = Vec::new();
  let (mut agree, mut differ) = (0, 0);
  for vector in &vectors {
    let expected = vector.expect.get("canonicalJson").and_then(Value::as_str);
    let result = run_canonicalizer(vector);
    let verdict = match (&result, expected) {
      (Ok(actual), Some(json)) if actual == json => "agrees",
      (Ok(_), Some(_)) => "different bytes",
      (Ok(_), None) => "accepts what the vector refuses",
      (Err(why), _) if why.starts_with("not run") => "not run",
      (Err(_), Some(_)) => "refuses what the vector accepts",
      (Err(_), None) => "agrees",
    };
    if verdict == "agrees" {
      agree += 1;
    } else {
      differ += 1;
    }
    let (output, error) = match &result {
      Ok(json) => (quote(json), "null".to_owned()),
      Err(why) => ("null".to_owned(), quote(why)),
    };
    lines.push(format!(
      "{{\"id\":{},\"verdict\":{},\"output\":{output},\"error\":{error}}}",
      quote(&vector.id),
      quote(verdict)
    ));
  }
  eprintln!("serde_json_canonicalizer: {agree} vectors agree, {differ} differ or were not run");
  if let Some(path) = std::env::var_os("TAS_VECTORS_DIFFERENTIAL_OUT") {
    fs::write(&path, lines.join("\n") + "\n").expect("the report file can be written");
  }
  assert_eq!(lines.len(), vectors.len());
}
