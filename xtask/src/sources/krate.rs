//! A source crate made from a release's tree: the tree trimmed into scratch space and listed,
//! its packed size held to crates.io's limit, then the crate's committed files (Cargo.toml,
//! src/lib.rs, source.lock: written from the release alone, never by hand) and its tree
//! installed where the line's crate lies.

use anyhow::{bail, Context, Result};
use crypto_build::data::{series_of, source_crate_of};
use crypto_build::source::list::{FileList, SourceLock, LIST_FILE, LOCK_FILE, TREE_DIR};
use std::fs;
use std::path::{Path, PathBuf};

/// crates.io refuses larger uploads.
pub const MAX_CRATE_BYTES: u64 = 10 * 1024 * 1024;

/// A release's tree trimmed into scratch space: what a source crate of it holds.
pub struct Trimmed {
    /// `DIR/openssl`.
    pub tree: PathBuf,
    pub list: FileList,
    /// The tree as a gzip'd tar, as `cargo package` would pack it.
    pub packed_bytes: u64,
}

/// `release_tree` (an OpenSSL tree) trimmed into `dir/openssl/` and listed; refused in one line,
/// `dir` removed, when it packs to more than [`MAX_CRATE_BYTES`].
pub fn trim(release_tree: &Path, dir: &Path) -> Result<Trimmed> {
    let _ = fs::remove_dir_all(dir);
    let tree = dir.join(TREE_DIR);
    let list = crypto_gen::source::trimmed_list(release_tree, Some(&tree))
        .with_context(|| format!("trimming {}", release_tree.display()))?;
    let packed_bytes = packed_size(&tree, &list)?;
    if packed_bytes > MAX_CRATE_BYTES {
        let _ = fs::remove_dir_all(dir);
        bail!(
            "{} trimmed packs to {packed_bytes} bytes, over crates.io's limit of {MAX_CRATE_BYTES} \
             for a source crate: refused, nothing written",
            release_tree.display()
        );
    }
    Ok(Trimmed { tree, list, packed_bytes })
}

/// The bytes of `tree`'s listed files as a gzip'd tar (cargo's default compression).
fn packed_size(tree: &Path, list: &FileList) -> Result<u64> {
    let gz = flate2::write::GzEncoder::new(Counter(0), flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    for (rel, _) in &list.files {
        tar.append_path_with_name(tree.join(rel), Path::new(TREE_DIR).join(rel))
            .with_context(|| format!("packing {rel}"))?;
    }
    Ok(tar.into_inner()?.finish()?.0)
}

/// A writer that only counts.
struct Counter(u64);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The crate's Cargo.toml for `release`.
pub fn manifest(release: &str) -> String {
    let series = series_of(release);
    format!(
        r#"[package]
# OpenSSL's release tree for crypto-sys's OpenSSL {series} line (data::OPENSSL_LINES), made from the
# archive source.lock names, trimmed to what a build reads and never edited. The tree and its
# files.sha256 are made, not committed: `cargo xtask sources` (or, for the default line, the
# build on first use); `cargo xtask update-openssl` moves the crate to another release.
name = "{}"
version = "{release}"
description = "OpenSSL {release}'s release tree, trimmed to what a build reads and never edited: the source of crypto-sys's OpenSSL {series} line"
edition.workspace = true
# OpenSSL's license: the crate is its release tree (openssl/LICENSE.txt).
license = "Apache-2.0"
rust-version.workspace = true
documentation = "https://docs.rs/crypto-sys"
# Explicit: the tree and its list are git-ignored, and ship.
include = ["Cargo.toml", "src/**", "{LOCK_FILE}", "{LIST_FILE}", "{TREE_DIR}/**"]
"#,
        source_crate_of(release)
    )
}

/// The crate's src/lib.rs, the same for every release.
pub const LIB: &str = r#"//! An OpenSSL release's tree for crypto-sys (`openssl/`, trimmed to what a build reads, never
//! edited), with `source.lock` (the release, the archive it was made from and that archive's
//! SHA-256, the SHA-256 of the file list) and `files.sha256` (each file's SHA-256), which
//! crypto-build checks before it compiles anything.

/// This crate's directory, where `openssl/`, `source.lock` and `files.sha256` lie.
pub fn crate_dir() -> &'static std::path::Path {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
}
"#;

/// Writes the crate at `dir` (which must not exist) for `lock`, its tree renamed in from
/// `trimmed`: the committed files, then the tree, then its list, last.
pub fn write(dir: &Path, lock: &SourceLock, trimmed: &Trimmed) -> Result<()> {
    if dir.exists() {
        bail!("{} exists already", dir.display());
    }
    fs::create_dir_all(dir.join("src")).with_context(|| format!("creating {}", dir.display()))?;
    let name = source_crate_of(&lock.release);
    fs::write(dir.join("Cargo.toml"), manifest(&lock.release))?;
    fs::write(dir.join("src/lib.rs"), LIB)?;
    fs::write(dir.join(LOCK_FILE), lock.render(&name))?;
    fs::rename(&trimmed.tree, dir.join(TREE_DIR))
        .with_context(|| format!("installing {}", dir.join(TREE_DIR).display()))?;
    crypto_build::files::write_atomic(&dir.join(LIST_FILE), trimmed.list.render().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each committed source crate is what this module writes for its release: no hand edits.
    #[test]
    fn the_committed_crates_are_written_from_their_release() {
        let root = crate::cargo::project_root();
        for line in crypto_build::data::OPENSSL_LINES {
            let dir = root.join(line.source_crate_dir());
            let lock = SourceLock::read(&dir).unwrap();
            assert_eq!(lock.release, line.version);
            let text = |f: &str| fs::read_to_string(dir.join(f)).unwrap();
            assert_eq!(text("Cargo.toml"), manifest(line.version), "{}", line.source_crate());
            assert_eq!(text("src/lib.rs"), LIB);
            assert_eq!(text(LOCK_FILE), lock.render(&line.source_crate()));
        }
    }

    #[test]
    fn a_tree_over_the_limit_is_refused_and_nothing_left() {
        let dir = tempfile::tempdir().unwrap();
        let release = dir.path().join("release");
        fs::create_dir_all(release.join("crypto")).unwrap();
        fs::write(release.join("Configure"), "perl").unwrap();
        let trimmed = trim(&release, &dir.path().join("small")).unwrap();
        assert_eq!(trimmed.list.files.len(), 1);
        // Bytes that do not compress, a little over the limit.
        let mut noise = Vec::with_capacity(MAX_CRATE_BYTES as usize + 4096);
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        while noise.len() < noise.capacity() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            noise.extend_from_slice(&x.to_le_bytes());
        }
        fs::write(release.join("crypto/big.c"), noise).unwrap();
        let out = dir.path().join("big");
        let e = trim(&release, &out).err().unwrap().to_string();
        assert!(e.contains("over crates.io's limit") && !e.contains('\n'), "{e}");
        assert!(!out.exists());
    }
}
