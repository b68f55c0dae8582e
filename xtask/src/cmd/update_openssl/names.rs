//! Names from our tables as the report's JSON holds them: a `'static` string, read back as
//! the one of a known list it spells. Below both the diff model (`compare.rs`) and the API
//! section (`api.rs`), which the model holds.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};

/// A name from our tables. Spelled so that serde, which borrows a field it sees written
/// `&str` from the input, reads it through its `deserialize_with` instead.
pub type Name = &'static str;

/// One of `names`, as the `'static` it is.
pub fn one_of<'de, D: Deserializer<'de>>(
    d: D,
    names: &[&'static str],
) -> Result<&'static str, D::Error> {
    let name = String::deserialize(d)?;
    names
        .iter()
        .find(|n| **n == name)
        .copied()
        .ok_or_else(|| D::Error::custom(format!("`{name}` is none of {names:?}")))
}
