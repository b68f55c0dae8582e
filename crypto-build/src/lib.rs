//! Build logic shared by `cargo xtask` and crypto-sys's build script, in pipeline order:
//! data (sets, targets) → generate → detect → select → compile.

pub mod build_script;
pub mod compile;
pub mod config;
pub mod data;
pub mod detect;
pub mod facts;
pub mod generate;
pub mod manifest;
pub mod openssldir;
pub mod packed;
pub mod progress;
pub mod select;
pub mod sha256;

/// OpenSSL's source tree, from the pinned openssl-src, which generation and every build read.
pub use openssl_src::source_dir as openssl_source_dir;
