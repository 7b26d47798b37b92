//! RFC 6901 JSON Pointers, built only when a caller asked for the failure's path.

/// One step of a path: an object key (UTF-16) or an array index.
#[derive(Debug, Clone)]
pub enum Segment<'a> {
  Key(&'a [u16]),
  Index(usize),
}

/// Joins segments into a pointer: `/` before each, `~` as `~0`, `/` as `~1`.
pub fn build(segments: &[Segment<'_>]) -> Vec<u16> {
  let mut out = Vec::new();
  for segment in segments {
    out.push(b'/' as u16);
    match segment {
      Segment::Key(key) => {
        for &unit in key.iter() {
          match unit {
            0x7e => out.extend_from_slice(&[0x7e, b'0' as u16]),
            0x2f => out.extend_from_slice(&[0x7e, b'1' as u16]),
            _ => out.push(unit),
          }
        }
      }
      Segment::Index(index) => out.extend(index.to_string().encode_utf16()),
    }
  }
  out
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn escapes_tilde_and_slash_as_rfc_6901_says() {
    let a: Vec<u16> = "a/b".encode_utf16().collect();
    let m: Vec<u16> = "m~n".encode_utf16().collect();
    let p = build(&[Segment::Key(&a), Segment::Index(3), Segment::Key(&m)]);
    assert_eq!(String::from_utf16(&p).unwrap(), "/a~1b/3/m~0n");
    assert!(build(&[]).is_empty());
  }
}
