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
