//! Build logic shared by `cargo xtask` and crypto-sys's build script, in pipeline order:
//! data (sets, targets) → generate → detect → select → compile.

pub mod build_script;
pub mod compile;
pub mod config;
pub mod data;
pub mod detect;
pub mod facts;
pub mod files;
#[cfg(test)]
mod fuzz;
pub mod generate;
pub mod jobs;
pub mod manifest;
pub mod msvc;
pub mod openssldir;
pub mod packed;
pub mod progress;
pub mod select;
pub mod sha256;
pub mod source;
pub mod version;

/// crypto-build's own directory: in the workspace the sets are beside it, in its package in
/// `sets/`, for crypto-sys's build and the `openssl-src` patch crate's alike.
pub fn crate_dir() -> &'static std::path::Path {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The source tree of an OpenSSL line (`data::OPENSSL_LINES`): its source crate's, checked.
pub use source::line_source_dir;

/// `f` of each item, `jobs` at a time (each item on whichever thread is free; with an
/// inherited jobserver, each thread but the first takes a token: [`jobs::each`]), in the
/// items' order: generation's Configures, the C driver's runs, the assembled-only rows' files.
pub fn par_map<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    use std::sync::Mutex;
    let results: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    jobs::each(items.len(), jobs, |i| {
        *results[i].lock().unwrap() = Some(f(&items[i]));
        true
    });
    results.into_iter().map(|r| r.into_inner().unwrap().expect("every item was mapped")).collect()
}

/// A tool a test needs, from `PATH`, or a failure naming the Debian package that installs it
/// (`.ci/install` does): a missing tool fails the test, never passes it as a skip.
#[cfg(test)]
pub(crate) fn installed(tool: &str, package: &str) -> std::path::PathBuf {
    which::which(tool).unwrap_or_else(|e| {
        panic!("{tool}: {e}; install it with `apt-get install {package}` (.ci/install does)")
    })
}
