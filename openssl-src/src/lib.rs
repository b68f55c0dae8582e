//! openssl-src's public API (`Build`, `Artifacts`) over crypto-sys's build pipeline, so that
//! `[patch.crates-io] openssl-src = …` puts openssl-sys's `vendored` build on it.

use anyhow::{bail, Context};
use crypto_build::build_script::{self, Request};
use crypto_build::config::CallerEnv;
use crypto_build::data::{self, OpensslLine};
use std::path::{Path, PathBuf};

/// OpenSSL's source tree the build reads: the chosen line's source crate's, checked (this
/// function panics where that fails, as it has no way to say why).
pub fn source_dir() -> PathBuf {
    let line = crypto_build::config::patch_line(feature_line());
    let tree = line.and_then(crypto_build::line_source_dir);
    tree.unwrap_or_else(|e| panic!("OpenSSL's source: {e:#}"))
}

/// This crate's features that choose an OpenSSL line other than the default, each a line's
/// feature (`OpensslLine::feature`), and whether it is on.
const LINE_FEATURES: &[(&str, bool)] = &[("openssl-3-5", cfg!(feature = "openssl-3-5"))];

/// The line this crate's features choose, if one does.
fn feature_line() -> Option<&'static OpensslLine> {
    let on = LINE_FEATURES.iter().find(|(_, on)| *on)?;
    data::OPENSSL_LINES.iter().find(|l| l.feature().as_deref() == Some(on.0))
}

/// This crate's version, as openssl-src's `version()`.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// openssl-src 300.x's features that ask for a Configure option crypto-sys's pre-generated sets
/// do not have: each refused by the build, never dropped silently.
const REFUSED_FEATURES: &[(&str, bool)] = &[
    ("camellia", cfg!(feature = "camellia")),
    ("force-engine", cfg!(feature = "force-engine")),
    ("idea", cfg!(feature = "idea")),
    ("ktls", cfg!(feature = "ktls")),
    ("no-dso", cfg!(feature = "no-dso")),
    ("seed", cfg!(feature = "seed")),
    ("ssl3", cfg!(feature = "ssl3")),
    ("weak-crypto", cfg!(feature = "weak-crypto")),
];

/// What to build, set as openssl-src's builder is; unset parts come from cargo's environment.
pub struct Build {
    out_dir: Option<PathBuf>,
    target: Option<String>,
    host: Option<String>,
    openssl_dir: Option<PathBuf>,
    caller: Option<(String, String)>,
}

/// What was built: an OpenSSL prefix's `include/` and `lib/` (`libssl.a`, `libcrypto.a`).
pub struct Artifacts {
    include_dir: PathBuf,
    lib_dir: PathBuf,
    libs: Vec<String>,
    target: String,
}

impl Default for Build {
    fn default() -> Build {
        Build::new()
    }
}

impl Build {
    /// From a build script's environment: `TARGET`, `HOST`, and `OUT_DIR/openssl-build`.
    pub fn new() -> Build {
        let env = CallerEnv::from_env();
        Build {
            out_dir: env.out_dir.map(|d| d.join("openssl-build")),
            target: env.target,
            host: env.host,
            openssl_dir: None,
            caller: env.package,
        }
    }

    pub fn out_dir<P: AsRef<Path>>(&mut self, path: P) -> &mut Build {
        self.out_dir = Some(path.as_ref().to_path_buf());
        self
    }

    pub fn target(&mut self, target: &str) -> &mut Build {
        self.target = Some(target.to_string());
        self
    }

    pub fn host(&mut self, host: &str) -> &mut Build {
        self.host = Some(host.to_string());
        self
    }

    /// OPENSSLDIR (openssl-sys passes `OPENSSL_CONFIG_DIR`); unset, `CRYPTO_SYS_OPENSSLDIR`'s
    /// or the sets' `/usr/local/ssl`, as openssl-src's default.
    pub fn openssl_dir<P: AsRef<Path>>(&mut self, path: P) -> &mut Build {
        self.openssl_dir = Some(path.as_ref().to_path_buf());
        self
    }

    /// Exits the process on failure, with the error in one line. Use `try_build` to handle it.
    pub fn build(&mut self) -> Artifacts {
        match self.try_build() {
            Ok(a) => a,
            Err(e) => {
                println!("cargo:warning=openssl-src (crypto-sys): {e}");
                eprintln!("error: openssl-src (crypto-sys): {e}");
                std::process::exit(1);
            }
        }
    }

    /// The build, or its error in one line.
    pub fn try_build(&mut self) -> Result<Artifacts, String> {
        self.run().map_err(|e| format!("{e:#}"))
    }

    fn run(&self) -> anyhow::Result<Artifacts> {
        let target = self.target.as_deref().context("TARGET not set: call `.target(..)`")?;
        let host = self.host.as_deref().context("HOST not set: call `.host(..)`")?;
        let out_dir = self.out_dir.as_deref().context("OUT_DIR not set: call `.out_dir(..)`")?;
        let refused: Vec<&str> =
            REFUSED_FEATURES.iter().filter(|(_, on)| *on).map(|(name, _)| *name).collect();
        if !refused.is_empty() {
            bail!(
                "openssl-src's feature(s) {} ask for an OpenSSL configuration crypto-sys's \
                 pre-generated sets lack; turn them off, or remove the openssl-src patch",
                refused.join(", ")
            );
        }
        let openssldir = match &self.openssl_dir {
            Some(d) => Some(d.to_str().context("OPENSSLDIR is not UTF-8")?),
            None => None,
        };
        std::fs::create_dir_all(out_dir)
            .with_context(|| format!("creating {}", out_dir.display()))?;
        let request = Request {
            target,
            host,
            out_dir,
            openssldir,
            legacy: cfg!(feature = "legacy"),
            caller: self.caller.as_ref().map(|(n, v)| (n.as_str(), v.as_str())),
            line: feature_line(),
        };
        let built = build_script::build_for(&request)?;
        // OpenSSL's MSVC names, as openssl-src's: `libssl.lib`, linked as `libssl`.
        let row = crypto_build::data::target_for(target)?;
        Ok(Artifacts {
            include_dir: built.artifacts.include_dir,
            lib_dir: built.artifacts.lib_dir,
            libs: ["ssl", "crypto"].map(|l| row.archive_link_name(l)).into(),
            target: target.to_string(),
        })
    }
}

impl Artifacts {
    pub fn include_dir(&self) -> &Path {
        &self.include_dir
    }

    pub fn lib_dir(&self) -> &Path {
        &self.lib_dir
    }

    pub fn libs(&self) -> &[String] {
        &self.libs
    }

    pub fn target(&self) -> &str {
        &self.target
    }

    /// The lines openssl-src's prints, for a build script that links the libraries itself.
    pub fn print_cargo_metadata(&self) {
        println!("cargo:rustc-link-search=native={}", self.lib_dir.display());
        for lib in &self.libs {
            println!("cargo:rustc-link-lib=static={lib}");
        }
        println!("cargo:include={}", self.include_dir.display());
        println!("cargo:lib={}", self.lib_dir.display());
        if self.target.contains("windows") {
            for lib in ["user32", "crypt32", "advapi32", "ws2_32"] {
                println!("cargo:rustc-link-lib={lib}");
            }
        }
    }
}
