//! An OpenSSL release's tree for crypto-sys (`openssl/`, trimmed to what a build reads, never
//! edited), with `source.lock` (the release, the archive it was made from and that archive's
//! SHA-256, the SHA-256 of the file list) and `files.sha256` (each file's SHA-256), which
//! crypto-build checks before it compiles anything.

/// This crate's directory, where `openssl/`, `source.lock` and `files.sha256` lie.
pub fn crate_dir() -> &'static std::path::Path {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
}
