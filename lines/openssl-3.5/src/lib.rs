//! The pre-generated asm sets of one of crypto-sys's OpenSSL lines, packed (`sets/`, with
//! its `generate.lock`), which crypto-build restores and checks for a packaged build.

/// This crate's directory, where `sets/` lies.
pub fn crate_dir() -> &'static std::path::Path {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
}
