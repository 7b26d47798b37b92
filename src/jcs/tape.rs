//! The tape: the flat form in which a value crosses from JavaScript to Rust (and from
//! the strict decoder to the encoder). Four parallel streams, read in step:
//!
//! * `ops`: one byte per value, one of the constants below;
//! * `nums`: one `f64` per `NUMBER`;
//! * `lens`: for `STRING` its length in UTF-16 units, for `ARRAY` its element count,
//!   for `OBJECT` its member count followed, per member, by the key's length;
//! * `text`: the UTF-16 units of every key and string, concatenated in tape order;
//! * `bigs`: long strings, one per `BIG_STRING`, kept apart so that JavaScript hands
//!   them over as they are instead of copying them into `text` first.
//!
//! An object's members are `key, value` pairs in the source order; the encoder sorts.

use crate::error::{ErrorCode, Failure};

pub const NULL: u8 = 0;
pub const FALSE: u8 = 1;
pub const TRUE: u8 = 2;
pub const NUMBER: u8 = 3;
pub const STRING: u8 = 4;
pub const ARRAY: u8 = 5;
pub const OBJECT: u8 = 6;
pub const BIG_STRING: u8 = 7;

#[derive(Debug, Clone, Copy)]
pub struct TapeRef<'a> {
  pub ops: &'a [u8],
  pub nums: &'a [f64],
  pub lens: &'a [u32],
  pub text: &'a [u16],
  pub bigs: &'a [&'a [u16]],
}

/// The long strings of a tape (`BIG_STRING`), which the encoder reads one at a time, in
/// the order it writes them, so that a caller can hand them over one by one instead of
/// copying them all first.
pub trait LongStrings {
  /// How many there are.
  fn count(&self) -> usize;
  /// The length in UTF-16 units of long string `index`, or None if there is none.
  fn len(&self, index: usize) -> Option<usize>;
  /// Calls `write` with the UTF-16 units of long string `index`.
  fn with_units(
    &mut self,
    index: usize,
    write: &mut dyn FnMut(&[u16]) -> Result<(), Failure>,
  ) -> Result<(), Failure>;
  /// Appends the UTF-16 units of long string `index` to `out`.
  fn read_into(&mut self, index: usize, out: &mut Vec<u16>) -> Result<(), Failure> {
    self.with_units(index, &mut |units| {
      out.extend_from_slice(units);
      Ok(())
    })
  }
}

/// Long strings already in memory.
pub struct InMemory<'a>(pub &'a [&'a [u16]]);

impl LongStrings for InMemory<'_> {
  fn count(&self) -> usize {
    self.0.len()
  }

  fn len(&self, index: usize) -> Option<usize> {
    self.0.get(index).map(|units| units.len())
  }

  fn with_units(
    &mut self,
    index: usize,
    write: &mut dyn FnMut(&[u16]) -> Result<(), Failure>,
  ) -> Result<(), Failure> {
    write(self.0.get(index).ok_or(ErrorCode::Internal)?)
  }
}

#[derive(Debug, Default, Clone)]
pub struct Tape {
  pub ops: Vec<u8>,
  pub nums: Vec<f64>,
  pub lens: Vec<u32>,
  pub text: Vec<u16>,
}

impl Tape {
  pub fn as_ref(&self) -> TapeRef<'_> {
    TapeRef {
      ops: &self.ops,
      nums: &self.nums,
      lens: &self.lens,
      text: &self.text,
      bigs: &[],
    }
  }

  pub fn clear(&mut self) {
    self.ops.clear();
    self.nums.clear();
    self.lens.clear();
    self.text.clear();
  }
}

/// Four UTF-16 units of a key from `at`, packed big-endian into a u64 (units past the
/// end are 0). Two keys whose earlier chunks are equal compare as their chunks at `at` do
/// when those differ (a key that ends is a prefix of the other); equal chunks say nothing.
#[inline]
pub fn key_chunk(units: &[u16], at: usize) -> u64 {
  let mut chunk = 0u64;
  for i in at..at + 4 {
    chunk = (chunk << 16) | units.get(i).copied().unwrap_or(0) as u64;
  }
  chunk
}

/// Chunks are compared this deep at most (64 units); past it, keys are compared whole.
const CHUNK_DEPTH: usize = 64;

/// Sorts `order` (each a key's first [`key_chunk`] and an index) by the keys' UTF-16 code
/// units (RFC 8785 section 3.2.3); `key(index)` gives a key's units. Integers are sorted
/// instead of slices: the pairs by their first chunk, then each run of equal chunks by
/// the next chunk, and so on (keys of one object often share long prefixes); short runs,
/// and runs deeper than [`CHUNK_DEPTH`], by comparing what is left of the keys. Does not
/// recurse deeper than `CHUNK_DEPTH / 4` levels.
pub fn sort_keys<'k>(order: &mut [(u64, u32)], key: &impl Fn(u32) -> &'k [u16]) {
  sort_from(order, key, 0);
}

fn sort_from<'k>(order: &mut [(u64, u32)], key: &impl Fn(u32) -> &'k [u16], at: usize) {
  order.sort_unstable_by_key(|entry| entry.0);
  let mut start = 0;
  while start < order.len() {
    let chunk = order[start].0;
    let end = start
      + order[start..]
        .iter()
        .take_while(|entry| entry.0 == chunk)
        .count();
    let run = &mut order[start..end];
    start = end;
    if run.len() < 2 {
      continue;
    }
    let next = at + 4;
    if run.len() <= 8 || next >= CHUNK_DEPTH || run.iter().all(|entry| key(entry.1).len() <= next) {
      // Every key of the run has the same units before `at` wherever both have one.
      run.sort_unstable_by(|a, b| {
        let (a, b) = (key(a.1), key(b.1));
        let same = at.min(a.len()).min(b.len());
        a[same..].cmp(&b[same..])
      });
    } else {
      for entry in run.iter_mut() {
        entry.0 = key_chunk(key(entry.1), next);
      }
      sort_from(run, key, next);
    }
  }
}

/// The shape of the single value on a tape: what decides how its views are made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shape {
  /// Arrays and objects.
  pub containers: usize,
  /// Elements of every array plus members of every object.
  pub members: usize,
  /// Members of the widest object.
  pub widest_object: usize,
  /// Numbers (counted by the encoder's scan pass only).
  pub numbers: usize,
  /// Characters of the canonical JSON that are numbers (counted by the encoder only).
  pub number_chars: usize,
  /// UTF-16 units of the long strings (counted by the encoder's scan pass only).
  pub big_units: usize,
}

/// How the views of a snapshot are made (see [`Shape::views`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Views {
  /// JSON.parse of the canonical JSON for every view.
  Parse,
  /// JSON.parse once into a template, then a copy of it per view.
  Copy,
  /// A template from JSON.parse of the skeleton (see `Encoder::encode_skeleton_into`)
  /// with the tape's own numbers and long strings put in, then a copy per view.
  Skeleton,
}

/// Objects with more members than this are not worth copying for views: V8 keeps them
/// as dictionaries, which spread copies slowly.
pub const COPYABLE_KEYS: usize = 512;

impl Shape {
  /// Counts the containers and members of a tape the encoder accepted.
  pub fn of(tape: &TapeRef<'_>) -> Shape {
    let mut shape = Shape::default();
    let mut lens = 0usize;
    // Members left per open object (arrays need no key lengths): a key's length comes
    // right before each member of an object.
    let mut open: Vec<(u32, bool)> = Vec::new();
    for &op in tape.ops {
      if let Some(top) = open.last_mut() {
        if top.1 {
          lens += 1;
        }
        top.0 -= 1;
      }
      match op {
        STRING => lens += 1,
        ARRAY | OBJECT => {
          let count = tape.lens.get(lens).copied().unwrap_or(0);
          lens += 1;
          shape.containers += 1;
          shape.members += count as usize;
          if op == OBJECT {
            shape.widest_object = shape.widest_object.max(count as usize);
          }
          open.push((count, op == OBJECT));
        }
        _ => {}
      }
      while matches!(open.last(), Some((0, _))) {
        open.pop();
      }
    }
    shape
  }

  /// Whether copying a parsed template is cheaper than parsing the JSON again, for a
  /// value of this shape whose canonical JSON has `json_len` characters. A template costs
  /// a parse and a copy for the first view and a copy for each later one: with the two
  /// views of a step (policy, execution) it wins when a copy costs less than half a
  /// parse. Measured on Node 20 (support/payloads.js, minimum of 15 rounds): a copy about
  /// 50 ns per container and 10 ns per member, a parse about 250 ns plus 3 ns per
  /// character. Deep, container-heavy values (200 nested two-member containers in 2.7 kB)
  /// stay parsed; so do very wide objects, which V8 keeps as dictionaries.
  /// Whether no object is too wide to copy (see `COPYABLE_KEYS`).
  pub fn copyable(&self) -> bool {
    self.widest_object <= COPYABLE_KEYS
  }

  pub fn worth_a_template(&self, json_len: usize) -> bool {
    self.widest_object <= COPYABLE_KEYS
      && 3 * json_len + 250 > 100 * self.containers + 20 * self.members
  }

  /// How views of a value of this shape, with `json_len` characters of canonical JSON,
  /// are made when its tape's numbers and long strings can be put into a template
  /// (`skeleton_allowed`: the tape came from the walk, whose numbers and strings the
  /// JavaScript side still holds). A skeleton pays when numbers and long strings make up
  /// at least half of the text: parsing a double costs about 40 ns on V8 14 (100 on
  /// V8 11), a long string about 1 ns per character, putting either in a few ns, and the
  /// skeleton a second writing pass over what is left.
  pub fn views(&self, json_len: usize, skeleton_allowed: bool) -> Views {
    if self.widest_object > COPYABLE_KEYS {
      Views::Parse
    } else if skeleton_allowed
      && (self.numbers >= 64 || self.big_units > 0)
      && 2 * (self.number_chars + self.big_units) >= json_len
    {
      Views::Skeleton
    } else if self.worth_a_template(json_len) {
      Views::Copy
    } else {
      Views::Parse
    }
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn sorting_by_prefix_then_units_is_sorting_by_units() {
    let keys: Vec<Vec<u16>> = [
      "",
      "a",
      "a\u{0}",
      "a\u{0}\u{0}\u{0}\u{0}",
      "ab",
      "abcd",
      "abcde",
      "abcd\u{0}",
      "b",
      "\u{ffff}",
      "\u{e9}",
      "\u{1f600}",
      "\u{ff61}",
      "10",
      "9",
      "alpha_123",
      "alpha_1234",
      "alpha_12",
      "alph",
    ]
    .iter()
    .map(|s| s.encode_utf16().collect())
    .collect();
    let mut order: Vec<(u64, u32)> = keys
      .iter()
      .enumerate()
      .map(|(i, k)| (key_chunk(k, 0), i as u32))
      .collect();
    sort_keys(&mut order, &|i| &keys[i as usize]);
    let sorted: Vec<&Vec<u16>> = order.iter().map(|&(_, i)| &keys[i as usize]).collect();
    let mut expected: Vec<&Vec<u16>> = keys.iter().collect();
    expected.sort();
    assert_eq!(sorted, expected);
  }

  #[test]
  fn long_shared_prefixes_and_trailing_zeros_sort_as_units() {
    // Runs longer than 8 at every depth, keys past CHUNK_DEPTH, keys that differ only by
    // trailing U+0000, and many keys that share prefixes of every length.
    let mut keys: Vec<Vec<u16>> = Vec::new();
    for i in 0..300u32 {
      let mut key: Vec<u16> = "shared-prefix-"
        .repeat(i as usize % 7)
        .encode_utf16()
        .collect();
      key.extend(format!("{}", i * 7919 % 1000).encode_utf16());
      key.extend(std::iter::repeat_n(0, i as usize % 3));
      keys.push(key);
    }
    for i in 0..40u16 {
      keys.push(
        std::iter::repeat_n(0x61, 70 + i as usize % 5)
          .chain([i, 0])
          .collect(),
      );
      keys.push(
        std::iter::repeat_n(0x61, 70 + i as usize % 5)
          .chain([i])
          .collect(),
      );
    }
    keys.sort();
    keys.dedup();
    // Scrambled insertion order.
    let mut scrambled: Vec<Vec<u16>> = Vec::new();
    for i in 0..keys.len() {
      scrambled.push(keys[i * 37 % keys.len()].clone());
    }
    assert_eq!(keys.len(), scrambled.len());
    let mut order: Vec<(u64, u32)> = scrambled
      .iter()
      .enumerate()
      .map(|(i, k)| (key_chunk(k, 0), i as u32))
      .collect();
    sort_keys(&mut order, &|i| &scrambled[i as usize]);
    let sorted: Vec<Vec<u16>> = order
      .iter()
      .map(|&(_, i)| scrambled[i as usize].clone())
      .collect();
    assert_eq!(sorted, keys);
  }

  #[test]
  fn counts_containers_members_and_the_widest_object() {
    // {"a":[1,{"b":null,"c":"x"}],"d":{}}
    let ops = [OBJECT, ARRAY, NUMBER, OBJECT, NULL, STRING, OBJECT];
    let lens = [2, 1, 2, 2, 1, 1, 1, 1, 0];
    let text: Vec<u16> = "abcxd".encode_utf16().collect();
    let tape = TapeRef {
      ops: &ops,
      nums: &[1.0],
      lens: &lens,
      text: &text,
      bigs: &[],
    };
    assert_eq!(
      Shape::of(&tape),
      Shape {
        containers: 4,
        members: 6,
        widest_object: 2,
        ..Shape::default()
      }
    );
  }
}
