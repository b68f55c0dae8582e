//! The `sccache` step: with RUSTC_WRAPPER=sccache, OpenSSL's C goes through sccache too.

use anyhow::{ensure, Context, Result};
use std::process::Stdio;
use xshell::{cmd, Shell};

/// With RUSTC_WRAPPER=sccache, cc must route OpenSSL's C through sccache too. A separate
/// target directory gets this workspace's cached objects of the prefix's libcrypto, but none
/// of libssl's, so exactly libssl's units compile, and sccache must see each of them.
pub fn run(sh: &Shell, cargo: &str) -> Result<()> {
    let root = crate::cargo::project_root();
    let target_dir = root.join("target/sccache");
    let objcache = target_dir.join("crypto-sys-objcache");
    if objcache.exists() {
        std::fs::remove_dir_all(&objcache)
            .with_context(|| format!("removing {}", objcache.display()))?;
    }
    std::fs::create_dir_all(&objcache)?;
    // cargo tags only a target directory it creates; crypto-sys looks for the tag to place
    // its cache, and would otherwise climb to this workspace's.
    std::fs::write(target_dir.join("CACHEDIR.TAG"), super::repro::CACHEDIR_TAG)?;
    let cached = |lib: &str| -> Result<Vec<String>> {
        let data = std::fs::read(root.join("target/prefix/lib").join(lib))?;
        let members = super::repro::members(&data)?;
        Ok(members.into_iter().map(|m| m.name).filter(|n| n.ends_with(".o")).collect())
    };
    for key in cached("libcrypto.a")? {
        let from = root.join("target/crypto-sys-objcache").join(&key);
        std::fs::copy(&from, objcache.join(&key))
            .with_context(|| format!("seeding the cache with {}", from.display()))?;
    }
    let ssl_units = cached("libssl.a")?.len() as u64;
    ensure!(ssl_units > 50, "libssl.a has only {ssl_units} objects");
    let sccache = Sccache::start(sh)?;
    let _wrapper = sh.push_env("RUSTC_WRAPPER", "sccache");
    cmd!(sh, "{cargo} clean -p crypto-sys --target-dir {target_dir}").run()?;
    cmd!(sh, "{cargo} build -p crypto-sys --target-dir {target_dir}").run()?;
    let (c_compiles, stats) = sccache.c_compiles(sh)?;
    ensure!(
        c_compiles >= ssl_units,
        "sccache saw {c_compiles} C compilations, but libssl's {ssl_units} units were compiled: \
         cc did not route them through RUSTC_WRAPPER=sccache:\n{stats}"
    );
    println!("sccache handled {c_compiles} C compilations (libssl's {ssl_units} units)");
    Ok(())
}

/// An sccache server of its own, its statistics zeroed; stopped on drop.
struct Sccache;

impl Sccache {
    fn start(sh: &Shell) -> Result<Sccache> {
        ensure!(which::which("sccache").is_ok(), "sccache is not installed; .ci/run installs it");
        // Debian's sccache 0.4 waits 10 s for its server and has no knob for it; on a loaded
        // machine it can miss (mozilla/sccache #1438): a second and third try, each said.
        let mut attempt = 1;
        loop {
            let stop = cmd!(sh, "sccache --stop-server").quiet().ignore_status().ignore_stderr();
            let _ = stop.run();
            match cmd!(sh, "sccache --start-server").run() {
                Ok(()) => break,
                Err(e) if attempt < 3 => println!("sccache's server did not start ({e}); again"),
                Err(e) => return Err(e).context("sccache's server did not start in three tries"),
            }
            attempt += 1;
        }
        cmd!(sh, "sccache --zero-stats").quiet().run()?;
        Ok(Sccache)
    }

    /// C compilations sccache handled (hits and misses, so a warm sccache counts too), and
    /// its statistics for messages.
    fn c_compiles(&self, sh: &Shell) -> Result<(u64, String)> {
        let stats = cmd!(sh, "sccache --show-stats").read()?;
        let n = stats
            .lines()
            .filter(|l| {
                l.contains("(C/C++)")
                    && (l.starts_with("Cache hits") || l.starts_with("Cache misses"))
            })
            .filter_map(|l| l.split_whitespace().last()?.parse::<u64>().ok())
            .sum();
        Ok((n, stats))
    }
}

impl Drop for Sccache {
    fn drop(&mut self) {
        let _ = std::process::Command::new("sccache")
            .arg("--stop-server")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}
