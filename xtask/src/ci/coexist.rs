//! The `coexist` steps: crypto-sys beside another OpenSSL in one binary, as a user's graph
//! brings one: the `openssl` crate on the system's shared libssl (`coexist`), or on its own
//! `vendored` build (`coexist-vendored`, `--full`: OpenSSL's Configure and make). Each copy
//! reports its own version and seals AES-256-GCM to the published answer, and each opens what
//! the other sealed (`xtask/tests/coexist`). Then the control: the same binary with the prefix
//! turned off must fail to build or run, or mix the two, so that the test can see a mix.

use crate::cargo::project_root;
use anyhow::{ensure, Context, Result};
use crypto_build::config::SYMBOL_PREFIX_VAR;
use std::fs;
use std::path::Path;
use xshell::{cmd, Shell};

const SRC: &str = "xtask/tests/coexist/src";
const WORK: &str = "target/coexist-test";

/// The other OpenSSL: the `openssl` dependency that brings it, and how to learn the release it
/// is from outside the binary.
struct Other {
    name: &'static str,
    dependency: &'static str,
    release: fn(&Shell, &Path) -> Result<String>,
}

const SYSTEM: Other = Other {
    name: "system",
    dependency: "openssl = \"0.10\"",
    release: |sh, _| {
        let pkg_config = which::which("pkg-config")
            .context("pkg-config: install it with `apt-get install pkgconf` (.ci/install does)")?;
        let v = cmd!(sh, "{pkg_config} --modversion openssl").read();
        v.context("the system's libssl (install libssl-dev, as .ci/install does)")
    },
};

const VENDORED: Other = Other {
    name: "vendored",
    dependency: "openssl = { version = \"0.10\", features = [\"vendored\"] }",
    // openssl-src's version carries its release as build metadata: `300.6.1+3.6.3`.
    release: |sh, dir| {
        let (cargo, manifest) = (crate::cargo::cargo(), dir.join("Cargo.toml"));
        let json =
            cmd!(sh, "{cargo} metadata --format-version 1 --manifest-path {manifest}").read()?;
        let metadata = crate::cargo::Metadata::parse(&json)?;
        let version = &metadata.package("openssl-src")?.version;
        Ok(version.split_once('+').context("openssl-src's release")?.1.to_string())
    },
};

pub fn run(sh: &Shell, cargo: &str) -> Result<()> {
    coexist(sh, cargo, &SYSTEM)
}

pub fn vendored(sh: &Shell, cargo: &str) -> Result<()> {
    coexist(sh, cargo, &VENDORED)
}

fn coexist(sh: &Shell, cargo: &str, other: &Other) -> Result<()> {
    let root = project_root();
    let dir = root.join(WORK).join(other.name);
    if dir.exists() {
        fs::remove_dir_all(&dir)?;
    }
    crypto_build::files::copy_tree(&root.join(SRC), &dir.join("src"))?;
    let krate = root.join("crypto-sys").display().to_string();
    let features =
        super::line().feature().map_or(String::new(), |f| format!(", features = [\"{f}\"]"));
    fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"coexist\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\ncrypto-sys = {{ path = {krate:?}{features} }}\n{}\n\n[workspace]\n",
            other.dependency
        ),
    )?;
    let (manifest, target_dir) = (dir.join("Cargo.toml"), root.join("target"));
    let run = |prefix: &str| {
        cmd!(sh, "{cargo} run -q --manifest-path {manifest} --target-dir {target_dir}")
            .env(SYMBOL_PREFIX_VAR, prefix)
            .ignore_status()
            .output()
    };
    let out = run("1")?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    ensure!(
        out.status.success(),
        "crypto-sys beside the {} OpenSSL: {}\n{stdout}",
        other.name,
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs = (other.release)(sh, &dir)?;
    let ours = super::line().version;
    for want in [
        format!("crypto-sys: OpenSSL {ours} "),
        format!("openssl: OpenSSL {theirs} "),
        "aes-256-gcm: each opens the other's: ok".to_string(),
    ] {
        ensure!(
            stdout.contains(&want),
            "coexist ({}): expected `{want}` in:\n{stdout}",
            other.name
        );
    }
    println!("coexist ({}): {}", other.name, stdout.trim().replace('\n', " | "));
    let control = run("0")?;
    let text = String::from_utf8_lossy(&control.stdout);
    let apart = text.contains(&format!("crypto-sys: OpenSSL {ours} "))
        && text.contains(&format!("openssl: OpenSSL {theirs} "))
        && text.contains(": ok");
    ensure!(
        !(control.status.success() && apart),
        "coexist ({}): with {SYMBOL_PREFIX_VAR}=0 the two OpenSSLs still kept apart, so the test \
         cannot tell a mix:\n{text}",
        other.name
    );
    let seen = match control.status.success() {
        true => format!("mixed: {}", text.trim().replace('\n', " | ")),
        false => {
            let err = String::from_utf8_lossy(&control.stderr);
            let last = err.lines().rfind(|l| !l.trim().is_empty()).unwrap_or_default();
            format!("failed: {}", last.trim())
        }
    };
    println!("coexist ({}), the control with {SYMBOL_PREFIX_VAR}=0: {seen}", other.name);
    Ok(())
}
