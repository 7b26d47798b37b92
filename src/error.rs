//! The public error codes. Each variant is one cause; `as_str` is the stable code that
//! JavaScript sees, and the `Display` text is the human sentence used in messages. No
//! variant carries payload data, so no message can leak a key or a value.

use thiserror::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Error)]
pub enum ErrorCode {
  #[error(
    "the value contains undefined, a bigint, a symbol or a function, which have no JSON form"
  )]
  UnsupportedType,
  #[error("the value contains a number that is NaN or infinite")]
  NonFiniteNumber,
  #[error("the value contains negative zero, which JSON cannot tell from zero")]
  NegativeZero,
  #[error("the value contains a string or key with a lone UTF-16 surrogate")]
  LoneSurrogate,
  #[error("the value contains an object that is not a plain record (a class instance, a built-in such as Date or Map, a Proxy, or another prototype)")]
  NonPlainObject,
  #[error("the value contains an array with holes")]
  SparseArray,
  #[error("the value contains an array with own properties besides its elements")]
  ArrayExtraProperty,
  #[error("the value contains a getter or setter property")]
  AccessorProperty,
  #[error("the value contains a non-enumerable property")]
  NonEnumerableProperty,
  #[error("the value contains a symbol-keyed property")]
  SymbolKey,
  #[error("the value contains a cycle")]
  Cycle,
  #[error("the value reaches the same object or array more than once")]
  RepeatedReference,
  #[error("the value is nested deeper than the depth limit")]
  DepthLimit,
  #[error("the text is not valid JSON")]
  InvalidJson,
  #[error("the text has an object with the same key twice")]
  DuplicateKey,
  #[error("the canonical JSON would exceed the largest string JavaScript can hold")]
  SizeLimit,
  #[error("the package was called again from code that ran during one of its own calls; the outer call fails closed")]
  ReentrantCall,
  #[error("the tool schema is asynchronous; use prepareToolCallAsync")]
  AsyncSchema,
  #[error("the snapshot text is strict JSON but not in RFC 8785 canonical form")]
  NotCanonical,
  #[error("the proposal hash does not match the agent name, tool name and canonical JSON")]
  HashMismatch,
  #[error("the value is not a stored snapshot (an object with string fields agentName, toolName, argsCanonicalJson and proposalHash)")]
  NotASnapshot,
  #[error("an internal error occurred in tool-argument-snapshot (a bug: please report it)")]
  Internal,
}

impl ErrorCode {
  pub const ALL: [ErrorCode; 22] = [
    ErrorCode::UnsupportedType,
    ErrorCode::NonFiniteNumber,
    ErrorCode::NegativeZero,
    ErrorCode::LoneSurrogate,
    ErrorCode::NonPlainObject,
    ErrorCode::SparseArray,
    ErrorCode::ArrayExtraProperty,
    ErrorCode::AccessorProperty,
    ErrorCode::NonEnumerableProperty,
    ErrorCode::SymbolKey,
    ErrorCode::Cycle,
    ErrorCode::RepeatedReference,
    ErrorCode::DepthLimit,
    ErrorCode::InvalidJson,
    ErrorCode::DuplicateKey,
    ErrorCode::SizeLimit,
    ErrorCode::ReentrantCall,
    ErrorCode::AsyncSchema,
    ErrorCode::NotCanonical,
    ErrorCode::HashMismatch,
    ErrorCode::NotASnapshot,
    ErrorCode::Internal,
  ];

  /// The stable code string of the public API.
  pub const fn as_str(self) -> &'static str {
    match self {
      ErrorCode::UnsupportedType => "unsupported_type",
      ErrorCode::NonFiniteNumber => "non_finite_number",
      ErrorCode::NegativeZero => "negative_zero",
      ErrorCode::LoneSurrogate => "lone_surrogate",
      ErrorCode::NonPlainObject => "non_plain_object",
      ErrorCode::SparseArray => "sparse_array",
      ErrorCode::ArrayExtraProperty => "array_extra_property",
      ErrorCode::AccessorProperty => "accessor_property",
      ErrorCode::NonEnumerableProperty => "non_enumerable_property",
      ErrorCode::SymbolKey => "symbol_key",
      ErrorCode::Cycle => "cycle",
      ErrorCode::RepeatedReference => "repeated_reference",
      ErrorCode::DepthLimit => "depth_limit",
      ErrorCode::InvalidJson => "invalid_json",
      ErrorCode::DuplicateKey => "duplicate_key",
      ErrorCode::SizeLimit => "size_limit",
      ErrorCode::ReentrantCall => "reentrant_call",
      ErrorCode::AsyncSchema => "async_schema",
      ErrorCode::NotCanonical => "not_canonical",
      ErrorCode::HashMismatch => "hash_mismatch",
      ErrorCode::NotASnapshot => "not_a_snapshot",
      ErrorCode::Internal => "internal_error",
    }
  }
}

impl AsRef<str> for ErrorCode {
  fn as_ref(&self) -> &str {
    self.as_str()
  }
}

/// A failure of the encoder or decoder: the code, and where it happened as an
/// RFC 6901 JSON Pointer in UTF-16 units when the caller asked for a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
  pub code: ErrorCode,
  pub path: Option<Vec<u16>>,
}

impl From<ErrorCode> for Failure {
  fn from(code: ErrorCode) -> Self {
    Failure { code, path: None }
  }
}

impl std::fmt::Display for Failure {
  fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    write!(f, "{}: {}", self.code.as_str(), self.code)
  }
}

impl std::error::Error for Failure {}
