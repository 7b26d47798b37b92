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

/// The shape of the single value on a tape: what decides how its views are made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shape {
  /// Arrays and objects.
  pub containers: usize,
  /// Elements of every array plus members of every object.
  pub members: usize,
  /// Members of the widest object.
  pub widest_object: usize,
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
  /// parse. Measured on Node 20 (benches/payloads.js, minimum of 15 rounds): a copy about
  /// 50 ns per container and 10 ns per member, a parse about 250 ns plus 3 ns per
  /// character. Deep, container-heavy values (200 nested two-member containers in 2.7 kB)
  /// stay parsed; so do very wide objects, which V8 keeps as dictionaries.
  pub fn worth_a_template(&self, json_len: usize) -> bool {
    self.widest_object <= COPYABLE_KEYS
      && 3 * json_len + 250 > 100 * self.containers + 20 * self.members
  }
}

#[cfg(test)]
mod tests {
  use super::*;

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
        widest_object: 2
      }
    );
  }
}
