//! Build logic shared by `cargo xtask` and crypto-sys's build script, in pipeline order:
//! data (sets, targets) → generate → select → compile.

pub mod data;
pub mod generate;
pub mod manifest;
pub mod sha256;
