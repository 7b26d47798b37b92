//! Tape to RFC 8785 bytes. A first pass checks the tape's shape and records where each
//! container ends, so the second pass can visit an object's members in key order
//! (UTF-16 code units, RFC 8785 section 3.2.3) without copying any output twice.
//! Neither pass recurses: nesting lives on explicit stacks, so a deep value needs no
//! native stack (a worker thread may have little of it left when it calls in).

use super::output::{Output, Utf8Out};
use super::pointer::{self, Segment};
use super::tape::{self, key_chunk, sort_keys, InMemory, LongStrings, Shape, TapeRef};
use super::MAX_DEPTH;
use crate::error::{ErrorCode, Failure};

#[derive(Debug, Clone, Copy, Default)]
struct Cursor {
  op: usize,
  num: usize,
  len: usize,
  text: usize,
  big: usize,
  /// Pre-order index of the next container on the tape.
  container: usize,
}

#[derive(Debug, Clone, Copy)]
struct Member {
  key_start: usize,
  key_len: usize,
  value: Cursor,
}

/// A container being written.
#[derive(Debug, Clone, Copy)]
enum Frame {
  /// Elements follow one another on the tape; `next` is the index of the next one.
  Array { count: usize, next: usize },
  /// Members in `members[base..base + count]` (tape order), their key order in
  /// `order[base..base + count]`; `end` is the cursor after the object, where writing
  /// resumes once it is closed.
  Object {
    base: usize,
    count: usize,
    next: usize,
    end: Cursor,
  },
}

/// What the encoder learned while writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Encoded {
  /// Every byte written is ASCII, so the output is also valid Latin-1.
  pub ascii: bool,
}

/// Reusable scratch space, so repeated calls allocate nothing once warm.
#[derive(Debug, Default)]
pub struct Encoder {
  ends: Vec<Cursor>,
  members: Vec<Member>,
  /// Per member: its key's prefix and its index in `members`, sorted by key per object.
  order: Vec<(u64, u32)>,
  frames: Vec<Frame>,
  /// Pending member counts of the scan pass: (index in `ends`, members left, object?).
  open: Vec<(usize, u32, bool)>,
  /// The shape of the last tape encoded, counted by the scan pass.
  shape: Shape,
  /// When the last value encoded was an object wider than [`tape::COPYABLE_KEYS`]: the
  /// tape index of each of its members, in key order (see [`Encoder::root_order`]).
  root_order: Vec<u32>,
}

/// Encodes with fresh scratch space; see [`Encoder::encode`].
pub fn encode(tape: TapeRef<'_>, out: &mut Vec<u8>, track_path: bool) -> Result<Encoded, Failure> {
  Encoder::default().encode(tape, out, track_path)
}

impl Encoder {
  /// Appends the canonical JSON (UTF-8) of the single value on `tape` to `out`. With
  /// `track_path`, a failure carries the JSON Pointer of the offending value.
  pub fn encode(
    &mut self,
    tape: TapeRef<'_>,
    out: &mut Vec<u8>,
    track_path: bool,
  ) -> Result<Encoded, Failure> {
    let mut utf8 = Utf8Out {
      bytes: out,
      ascii: true,
    };
    self.encode_into(tape, &mut utf8, track_path)?;
    Ok(Encoded { ascii: utf8.ascii })
  }

  /// When the value last encoded was an object wider than [`tape::COPYABLE_KEYS`]: for
  /// each of its members in key order (RFC 8785), its position among the object's members
  /// on the tape; else empty.
  pub fn root_order(&self) -> &[u32] {
    &self.root_order
  }

  /// Appends the canonical JSON of the single value on `tape` to any [`Output`].
  pub fn encode_into<O: Output>(
    &mut self,
    tape: TapeRef<'_>,
    out: &mut O,
    track_path: bool,
  ) -> Result<(), Failure> {
    self.write(tape, &mut InMemory(tape.bigs), out, track_path, false)
  }

  /// [`Encoder::encode_into`] with the long strings read from `bigs` (`tape.bigs` is not
  /// used), each once, when it is written.
  pub fn encode_with_long_strings<O: Output>(
    &mut self,
    tape: TapeRef<'_>,
    bigs: &mut dyn LongStrings,
    out: &mut O,
    track_path: bool,
  ) -> Result<(), Failure> {
    self.write(tape, bigs, out, track_path, false)
  }

  /// Appends the *skeleton* of the single value on `tape`: its canonical JSON with every
  /// number written as its index among the tape's numbers (0, 1, ...) and every long
  /// string as minus one more than its index among the tape's long strings (-1, -2, ...).
  /// JSON.parse of the skeleton, with those placeholders replaced by the tape's own
  /// numbers and strings, is the value JSON.parse of the canonical JSON gives, members in
  /// the same order, without parsing a digit of a number or a character of a long string.
  /// The long strings are counted from `bigs` but not read.
  pub fn encode_skeleton_into<O: Output>(
    &mut self,
    tape: TapeRef<'_>,
    bigs: &mut dyn LongStrings,
    out: &mut O,
  ) -> Result<(), Failure> {
    self.write(tape, bigs, out, false, true)
  }

  fn write<O: Output>(
    &mut self,
    tape: TapeRef<'_>,
    bigs: &mut dyn LongStrings,
    out: &mut O,
    track_path: bool,
    placeholders: bool,
  ) -> Result<(), Failure> {
    self.ends.clear();
    self.members.clear();
    self.order.clear();
    self.frames.clear();
    self.root_order.clear();
    self.shape = Shape::default();
    let end = scan(
      &tape,
      &*bigs,
      &mut self.ends,
      &mut self.open,
      &mut self.shape,
    )?;
    if end.op != tape.ops.len()
      || end.num != tape.nums.len()
      || end.len != tape.lens.len()
      || end.text != tape.text.len()
      || end.big != bigs.count()
    {
      return Err(ErrorCode::Internal.into());
    }
    let mut writer = Writer {
      tape,
      ends: &self.ends,
      members: &mut self.members,
      order: &mut self.order,
      frames: &mut self.frames,
      root_order: &mut self.root_order,
      out,
      path: if track_path { Some(Vec::new()) } else { None },
      placeholders,
      number_chars: 0,
    };
    writer.run(bigs)?;
    if !placeholders {
      self.shape.number_chars = writer.number_chars;
    }
    Ok(())
  }

  /// The shape of the value the last successful encoding wrote.
  pub fn shape(&self) -> Shape {
    self.shape
  }
}

/// Writes `index` in decimal, with a minus sign when `negative`.
fn write_index<O: Output>(out: &mut O, index: usize, negative: bool) {
  let mut digits = [0u8; 21];
  let mut at = digits.len();
  let mut rest = index;
  loop {
    at -= 1;
    digits[at] = b'0' + (rest % 10) as u8;
    rest /= 10;
    if rest == 0 {
      break;
    }
  }
  if negative {
    at -= 1;
    digits[at] = b'-';
  }
  out.ascii(&digits[at..]);
}

fn get<T: Copy>(slice: &[T], index: usize) -> Result<T, Failure> {
  slice
    .get(index)
    .copied()
    .ok_or_else(|| ErrorCode::Internal.into())
}

fn take_text(tape: &TapeRef<'_>, cursor: &mut Cursor) -> Result<(), Failure> {
  let len = get(tape.lens, cursor.len)? as usize;
  cursor.len += 1;
  cursor.text = cursor.text.checked_add(len).ok_or(ErrorCode::Internal)?;
  if cursor.text > tape.text.len() {
    return Err(ErrorCode::Internal.into());
  }
  Ok(())
}

/// Checks the shape of the single value on the tape, records each container's end
/// cursor in pre-order, and returns the cursor after the value.
fn scan(
  tape: &TapeRef<'_>,
  bigs: &dyn LongStrings,
  ends: &mut Vec<Cursor>,
  open: &mut Vec<(usize, u32, bool)>,
  shape: &mut Shape,
) -> Result<Cursor, Failure> {
  open.clear();
  let mut cursor = Cursor::default();
  loop {
    // One value at `cursor`.
    let op = get(tape.ops, cursor.op)?;
    cursor.op += 1;
    match op {
      tape::NULL | tape::FALSE | tape::TRUE => {}
      tape::NUMBER => {
        get(tape.nums, cursor.num)?;
        cursor.num += 1;
        shape.numbers += 1;
      }
      tape::STRING => take_text(tape, &mut cursor)?,
      tape::BIG_STRING => {
        shape.big_units += bigs.len(cursor.big).ok_or(ErrorCode::Internal)?;
        cursor.big += 1;
      }
      tape::ARRAY | tape::OBJECT => {
        if open.len() >= MAX_DEPTH {
          return Err(ErrorCode::DepthLimit.into());
        }
        ends.push(Cursor::default());
        cursor.container += 1;
        let count = get(tape.lens, cursor.len)?;
        cursor.len += 1;
        shape.containers += 1;
        shape.members += count as usize;
        if op == tape::OBJECT {
          shape.widest_object = shape.widest_object.max(count as usize);
        }
        open.push((ends.len() - 1, count, op == tape::OBJECT));
      }
      _ => return Err(ErrorCode::Internal.into()),
    }
    // Close finished containers, then position at the next member, if any.
    loop {
      let Some(top) = open.last_mut() else {
        return Ok(cursor);
      };
      if top.1 == 0 {
        ends[top.0] = cursor;
        open.pop();
        continue;
      }
      top.1 -= 1;
      if top.2 {
        take_text(tape, &mut cursor)?;
      }
      break;
    }
  }
}

struct Writer<'t, 's, O: Output> {
  tape: TapeRef<'t>,
  ends: &'s [Cursor],
  members: &'s mut Vec<Member>,
  order: &'s mut Vec<(u64, u32)>,
  frames: &'s mut Vec<Frame>,
  /// Where the root object's key order is kept (see [`Encoder::root_order`]).
  root_order: &'s mut Vec<u32>,
  out: &'s mut O,
  /// One segment per open frame: the member being written.
  path: Option<Vec<Segment<'t>>>,
  /// Write the skeleton's placeholders instead of numbers and long strings.
  placeholders: bool,
  /// Characters written for numbers.
  number_chars: usize,
}

impl<'t, O: Output> Writer<'t, '_, O> {
  fn fail(&self, code: ErrorCode) -> Failure {
    Failure {
      code,
      path: self.path.as_deref().map(pointer::build),
    }
  }

  fn set_path(&mut self, segment: Segment<'t>) {
    let depth = self.frames.len();
    if let Some(path) = &mut self.path {
      path.truncate(depth - 1);
      path.push(segment);
    }
  }

  fn string(&mut self, units: &[u16]) -> Result<(), Failure> {
    self.out.string(units).map_err(|code| self.fail(code))
  }

  fn key(&self, member: &Member) -> &'t [u16] {
    &self.tape.text[member.key_start..member.key_start + member.key_len]
  }

  /// Moves `cursor` past one value without writing it. The scan pass has already
  /// checked every index used here.
  fn skip(&self, cursor: &mut Cursor) {
    match self.tape.ops[cursor.op] {
      tape::NUMBER => {
        cursor.op += 1;
        cursor.num += 1;
      }
      tape::STRING => {
        cursor.op += 1;
        cursor.text += self.tape.lens[cursor.len] as usize;
        cursor.len += 1;
      }
      tape::BIG_STRING => {
        cursor.op += 1;
        cursor.big += 1;
      }
      tape::ARRAY | tape::OBJECT => *cursor = self.ends[cursor.container],
      _ => cursor.op += 1,
    }
  }

  fn run(&mut self, bigs: &mut dyn LongStrings) -> Result<(), Failure> {
    let tape = self.tape;
    let mut cursor = Cursor::default();
    loop {
      // Write the value at `cursor`, or open it.
      let op = tape.ops[cursor.op];
      cursor.op += 1;
      match op {
        tape::NULL => self.out.ascii(b"null"),
        tape::FALSE => self.out.ascii(b"false"),
        tape::TRUE => self.out.ascii(b"true"),
        tape::NUMBER => {
          let index = cursor.num;
          cursor.num += 1;
          if self.placeholders {
            write_index(self.out, index, false);
          } else {
            match self.out.number(tape.nums[index]) {
              Ok(written) => self.number_chars += written,
              Err(code) => return Err(self.fail(code)),
            }
          }
        }
        tape::STRING => {
          let len = tape.lens[cursor.len] as usize;
          cursor.len += 1;
          let units = &tape.text[cursor.text..cursor.text + len];
          cursor.text += len;
          self.string(units)?;
        }
        tape::BIG_STRING => {
          let index = cursor.big;
          cursor.big += 1;
          if self.placeholders {
            write_index(self.out, index + 1, true);
          } else if let Err(failure) = self.out.long_string(bigs, index) {
            return Err(match failure {
              Ok(code) => self.fail(code),
              Err(failure) => failure,
            });
          }
        }
        tape::ARRAY => {
          cursor.container += 1;
          let count = tape.lens[cursor.len] as usize;
          cursor.len += 1;
          self.out.ascii(b"[");
          self.frames.push(Frame::Array { count, next: 0 });
        }
        _ => self.open_object(&mut cursor)?,
      }
      // Find the next value to write, closing the containers that are complete.
      loop {
        let Some(frame) = self.frames.last_mut() else {
          return Ok(());
        };
        match frame {
          Frame::Array { count, next } => {
            if *next == *count {
              self.out.ascii(b"]");
              self.close();
              continue;
            }
            let index = *next;
            *next += 1;
            if index > 0 {
              self.out.ascii(b",");
            }
            self.set_path(Segment::Index(index));
          }
          Frame::Object {
            base,
            count,
            next,
            end,
          } => {
            if *next == *count {
              let (base, count, end) = (*base, *count, *end);
              if base == 0 && self.frames.len() == 1 && count > tape::COPYABLE_KEYS {
                // The root object, too wide to copy: its key order, for its views.
                self.root_order.clear();
                self
                  .root_order
                  .extend(self.order[..count].iter().map(|entry| entry.1));
              }
              self.out.ascii(b"}");
              self.members.truncate(base);
              self.order.truncate(base);
              cursor = end;
              self.close();
              continue;
            }
            let member = self.members[self.order[*base + *next].1 as usize];
            let first = *next == 0;
            *next += 1;
            if !first {
              self.out.ascii(b",");
            }
            let name = self.key(&member);
            self.set_path(Segment::Key(name));
            self.string(name)?;
            self.out.ascii(b":");
            cursor = member.value;
          }
        }
        break;
      }
    }
  }

  fn close(&mut self) {
    self.frames.pop();
    let depth = self.frames.len();
    if let Some(path) = &mut self.path {
      path.truncate(depth);
    }
  }

  /// Collects an object's members in key order and opens its frame.
  fn open_object(&mut self, cursor: &mut Cursor) -> Result<(), Failure> {
    let tape = self.tape;
    cursor.container += 1;
    let count = tape.lens[cursor.len] as usize;
    cursor.len += 1;
    let base = self.members.len();
    for _ in 0..count {
      let key_len = tape.lens[cursor.len] as usize;
      cursor.len += 1;
      let key_start = cursor.text;
      cursor.text += key_len;
      self.order.push((
        key_chunk(&tape.text[key_start..key_start + key_len], 0),
        self.members.len() as u32,
      ));
      self.members.push(Member {
        key_start,
        key_len,
        value: *cursor,
      });
      self.skip(cursor);
    }
    let text = tape.text;
    let members = &*self.members;
    let key = |index: u32| {
      let m = &members[index as usize];
      &text[m.key_start..m.key_start + m.key_len]
    };
    sort_keys(&mut self.order[base..], &key);
    for i in base + 1..base + count {
      // Equal keys end up with equal chunks (sort_keys): differing chunks, differing keys.
      if self.order[i - 1].0 == self.order[i].0 && key(self.order[i - 1].1) == key(self.order[i].1)
      {
        let repeated = key(self.order[i].1);
        self.frames.push(Frame::Object {
          base,
          count,
          next: 0,
          end: *cursor,
        });
        self.set_path(Segment::Key(repeated));
        return Err(self.fail(ErrorCode::DuplicateKey));
      }
    }
    self.out.ascii(b"{");
    self.frames.push(Frame::Object {
      base,
      count,
      next: 0,
      end: *cursor,
    });
    Ok(())
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::jcs::tape::Tape;

  fn units(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
  }

  /// Builds `{"b":[1,"x"],"a":null}` by hand, in source order.
  fn sample() -> Tape {
    Tape {
      ops: vec![
        tape::OBJECT,
        tape::ARRAY,
        tape::NUMBER,
        tape::STRING,
        tape::NULL,
      ],
      nums: vec![1.0],
      // object count, key "b", array count, string "x", key "a"
      lens: vec![2, 1, 2, 1, 1],
      text: units("bxa"),
    }
  }

  #[test]
  fn sorts_members_and_keeps_array_order() {
    let t = sample();
    let mut out = Vec::new();
    let encoded = encode(t.as_ref(), &mut out, false).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), r#"{"a":null,"b":[1,"x"]}"#);
    assert!(encoded.ascii);
  }

  #[test]
  fn the_skeleton_has_placeholders_where_numbers_and_long_strings_are() {
    let mut t = sample();
    t.nums = vec![1.5];
    t.ops[4] = tape::BIG_STRING;
    let big: Vec<u16> = "long".encode_utf16().collect();
    let bigs: [&[u16]; 1] = [&big];
    let tape = TapeRef {
      bigs: &bigs,
      ..t.as_ref()
    };
    let mut encoder = Encoder::default();
    let mut json = Vec::new();
    encoder.encode(tape, &mut json, false).unwrap();
    assert_eq!(
      String::from_utf8(json).unwrap(),
      r#"{"a":"long","b":[1.5,"x"]}"#
    );
    let shape = encoder.shape();
    let mut skeleton = Vec::new();
    encoder
      .encode_skeleton_into(
        tape,
        &mut InMemory(tape.bigs),
        &mut Utf8Out {
          bytes: &mut skeleton,
          ascii: true,
        },
      )
      .unwrap();
    assert_eq!(
      String::from_utf8(skeleton).unwrap(),
      r#"{"a":-1,"b":[0,"x"]}"#
    );
    assert_eq!(
      (shape.numbers, shape.number_chars, shape.big_units),
      (1, 3, 4)
    );
  }

  #[test]
  fn refuses_a_tape_that_does_not_add_up() {
    let mut t = sample();
    t.lens[0] = 3;
    assert_eq!(
      encode(t.as_ref(), &mut Vec::new(), false).unwrap_err().code,
      ErrorCode::Internal
    );
    let mut t = sample();
    t.ops.push(tape::NULL);
    assert_eq!(
      encode(t.as_ref(), &mut Vec::new(), false).unwrap_err().code,
      ErrorCode::Internal
    );
    let mut t = sample();
    t.ops[0] = 42;
    assert_eq!(
      encode(t.as_ref(), &mut Vec::new(), false).unwrap_err().code,
      ErrorCode::Internal
    );
  }

  #[test]
  fn reports_the_path_of_a_bad_number_only_when_asked() {
    let mut t = sample();
    t.nums[0] = -0.0;
    let plain = encode(t.as_ref(), &mut Vec::new(), false).unwrap_err();
    assert_eq!(
      plain,
      Failure {
        code: ErrorCode::NegativeZero,
        path: None
      }
    );
    let traced = encode(t.as_ref(), &mut Vec::new(), true).unwrap_err();
    assert_eq!(String::from_utf16(&traced.path.unwrap()).unwrap(), "/b/0");
  }

  #[test]
  fn stops_at_the_depth_limit() {
    let mut t = Tape::default();
    for _ in 0..MAX_DEPTH {
      t.ops.push(tape::ARRAY);
      t.lens.push(1);
    }
    t.ops.push(tape::NULL);
    assert!(encode(t.as_ref(), &mut Vec::new(), false).is_ok());
    let mut t = Tape::default();
    for _ in 0..=MAX_DEPTH {
      t.ops.push(tape::ARRAY);
      t.lens.push(1);
    }
    t.ops.push(tape::NULL);
    assert_eq!(
      encode(t.as_ref(), &mut Vec::new(), false).unwrap_err().code,
      ErrorCode::DepthLimit
    );
  }
}
