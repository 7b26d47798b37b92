//! A reader of canonical JSON (RFC 8785 output) that keeps numbers as their text.

pub enum Value {
  Null,
  Bool(bool),
  Number(String),
  String(String),
  Array(Vec<Value>),
  Object(Vec<(String, Value)>),
}

/// JSON's number grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
fn is_json_number(s: &[u8]) -> bool {
  let digits = |mut i: usize| {
    let start = i;
    while s.get(i).is_some_and(u8::is_ascii_digit) {
      i += 1;
    }
    (i > start).then_some(i)
  };
  let mut i = usize::from(s.first() == Some(&b'-'));
  i = match s.get(i) {
    Some(b'0') => i + 1,
    Some(b'1'..=b'9') => digits(i).unwrap_or(i),
    _ => return false,
  };
  if s.get(i) == Some(&b'.') {
    match digits(i + 1) {
      Some(next) => i = next,
      None => return false,
    }
  }
  if matches!(s.get(i), Some(b'e' | b'E')) {
    i += 1;
    if matches!(s.get(i), Some(b'+' | b'-')) {
      i += 1;
    }
    match digits(i) {
      Some(next) => i = next,
      None => return false,
    }
  }
  i == s.len()
}

pub fn parse(text: &str) -> Option<Value> {
  let mut p = Parser {
    s: text.as_bytes(),
    i: 0,
    text,
  };
  let v = p.value(0)?;
  (p.i == p.s.len()).then_some(v)
}

struct Parser<'a> {
  s: &'a [u8],
  i: usize,
  text: &'a str,
}

impl Parser<'_> {
  fn peek(&self) -> Option<u8> {
    self.s.get(self.i).copied()
  }

  fn literal(&mut self, word: &str, v: Value) -> Option<Value> {
    if self.s[self.i..].starts_with(word.as_bytes()) {
      self.i += word.len();
      Some(v)
    } else {
      None
    }
  }

  fn value(&mut self, depth: usize) -> Option<Value> {
    if depth > 1000 {
      return None;
    }
    match self.peek()? {
      b'n' => self.literal("null", Value::Null),
      b't' => self.literal("true", Value::Bool(true)),
      b'f' => self.literal("false", Value::Bool(false)),
      b'"' => self.string().map(Value::String),
      b'[' => {
        self.i += 1;
        let mut items = Vec::new();
        if self.peek()? == b']' {
          self.i += 1;
          return Some(Value::Array(items));
        }
        loop {
          items.push(self.value(depth + 1)?);
          match self.peek()? {
            b',' => self.i += 1,
            b']' => {
              self.i += 1;
              return Some(Value::Array(items));
            }
            _ => return None,
          }
        }
      }
      b'{' => {
        self.i += 1;
        let mut fields = Vec::new();
        if self.peek()? == b'}' {
          self.i += 1;
          return Some(Value::Object(fields));
        }
        loop {
          let key = self.string()?;
          if self.peek()? != b':' {
            return None;
          }
          self.i += 1;
          fields.push((key, self.value(depth + 1)?));
          match self.peek()? {
            b',' => self.i += 1,
            b'}' => {
              self.i += 1;
              return Some(Value::Object(fields));
            }
            _ => return None,
          }
        }
      }
      _ => {
        let start = self.i;
        while matches!(
          self.peek(),
          Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
        ) {
          self.i += 1;
        }
        let text = &self.text[start..self.i];
        is_json_number(text.as_bytes()).then(|| Value::Number(text.to_owned()))
      }
    }
  }

  fn hex4(&mut self) -> Option<u32> {
    let h = self.text.get(self.i..self.i + 4)?;
    self.i += 4;
    u32::from_str_radix(h, 16).ok()
  }

  fn string(&mut self) -> Option<String> {
    if self.peek()? != b'"' {
      return None;
    }
    self.i += 1;
    let mut out = String::new();
    loop {
      let start = self.i;
      while !matches!(self.peek()?, b'"' | b'\\') {
        self.i += 1;
      }
      out.push_str(&self.text[start..self.i]);
      let c = self.peek()?;
      self.i += 1;
      if c == b'"' {
        return Some(out);
      }
      let e = self.peek()?;
      self.i += 1;
      match e {
        b'"' => out.push('"'),
        b'\\' => out.push('\\'),
        b'/' => out.push('/'),
        b'b' => out.push('\u{8}'),
        b'f' => out.push('\u{c}'),
        b'n' => out.push('\n'),
        b'r' => out.push('\r'),
        b't' => out.push('\t'),
        b'u' => {
          let u = self.hex4()?;
          out.push(char::from_u32(u)?);
        }
        _ => return None,
      }
    }
  }
}
