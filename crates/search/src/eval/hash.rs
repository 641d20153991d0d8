//! Digest functions: `md5`, `sha1`, `sha256`, `sha512` of a value's text, as lowercase hex.

use crate::error::SearchError;
use crate::value::Value;
use md5::Md5;
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha512};
use std::fmt::Write;

fn hex<D: Digest>(data: &[u8]) -> String {
    let digest = D::digest(data);
    let mut out = String::with_capacity(digest.len() * 2);
    for b in digest {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// Calls the digest function `name`, or returns `None` if it is not one of them. Null gives
/// null; a multivalue is hashed as its values joined by newlines.
pub fn call(name: &str, v: &[Value]) -> Option<Result<Value, SearchError>> {
    let f: fn(&[u8]) -> String = match name {
        "md5" => hex::<Md5>,
        "sha1" => hex::<Sha1>,
        "sha256" => hex::<Sha256>,
        "sha512" => hex::<Sha512>,
        _ => return None,
    };
    if v[0].is_null() {
        return Some(Ok(Value::Null));
    }
    Some(Ok(Value::Str(f(v[0].as_str().as_bytes()))))
}
