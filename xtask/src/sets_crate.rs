//! Each other OpenSSL line's sets crate (`crypto-sys-sets-3-5`, at the line's sets root
//! `lines/openssl-3.5/`): the crate that carries that line's pre-generated sets in its package, as
//! crypto-build's carries the default line's (one crate could not hold both under crates.io's
//! 10 MiB). Its Cargo.toml and src/lib.rs are written from the line's series alone.

use crypto_build::data::{series_of, sets_crate_of};

/// Its version: crypto-build's, whose generator and lock its sets are.
pub const VERSION: &str = "0.1.0";

/// The crate's Cargo.toml for `release`'s series.
pub fn manifest(release: &str) -> String {
    let series = series_of(release);
    format!(
        r#"[package]
# The pre-generated sets of crypto-sys's OpenSSL {series} line (data::OPENSSL_LINES), for a
# packaged build: `cargo xtask package` copies them into `sets/` (each distinct file once),
# checked against this directory's generate.lock. In the workspace they are read in place.
name = "{}"
version = "{VERSION}"
description = "The pre-generated asm sets of crypto-sys's OpenSSL {series} line, checked against their hash lock"
edition.workspace = true
license.workspace = true
rust-version.workspace = true
documentation = "https://docs.rs/crypto-sys"
# Explicit: the sets are git-ignored, and only their packed copy ships.
include = ["Cargo.toml", "src/**", "sets/**"]
"#,
        sets_crate_of(release)
    )
}

/// The crate's src/lib.rs, the same for every line.
pub const LIB: &str = r#"//! The pre-generated asm sets of one of crypto-sys's OpenSSL lines, packed (`sets/`, with
//! its `generate.lock`), which crypto-build restores and checks for a packaged build.

/// This crate's directory, where `sets/` lies.
pub fn crate_dir() -> &'static std::path::Path {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    /// Each other line's committed sets crate is what this module writes for it, at
    /// crypto-build's version.
    #[test]
    fn the_committed_sets_crates_are_written_from_their_series() {
        let root = crate::cargo::project_root();
        let krate = std::fs::read_to_string(root.join("crypto-build/Cargo.toml")).unwrap();
        assert!(krate.contains(&format!("\nversion = \"{VERSION}\"\n")));
        for line in crypto_build::data::OPENSSL_LINES.iter().filter(|l| !l.is_default()) {
            let dir = line.root(&root);
            let text = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
            assert_eq!(text("Cargo.toml"), manifest(line.version), "{}", line.name());
            assert_eq!(text("src/lib.rs"), LIB);
        }
    }
}
