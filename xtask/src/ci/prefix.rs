//! The `prefix` step: `cargo xtask build --prefix target/prefix --apps`, then what users point
//! at a prefix: openssl-sys (through OPENSSL_DIR and through pkg-config), C build systems, the
//! `openssl` program, and the C driver.

use anyhow::{Context, Result};
use xshell::{cmd, Shell};

/// Where the step installs the prefix; the package and sccache steps compare with it.
pub const PREFIX: &str = "target/prefix";

pub fn run(sh: &Shell, cargo: &str) -> Result<()> {
    let prefix = crate::cargo::project_root().join(PREFIX);
    consumer(sh, cargo).context("openssl-sys against `cargo xtask build --prefix`")?;
    super::consumers::run(sh, &prefix).context("C build systems against the prefix")?;
    super::apps::run(&prefix).context("the prefix's bin/openssl")?;
    super::driver_paths::native_step(sh, &prefix)
}

/// Installs a prefix and builds a small openssl-sys program against it, statically: found
/// through OPENSSL_DIR, then through PKG_CONFIG_PATH alone, as openssl-sys's users point it.
fn consumer(sh: &Shell, cargo: &str) -> Result<()> {
    let root = crate::cargo::project_root();
    let prefix = root.join("target/prefix");
    cmd!(sh, "{cargo} xtask build --prefix {prefix} --apps").run()?;
    let _static = sh.push_env("OPENSSL_STATIC", "1");
    let manifest = root.join("xtask/tests/prefix-consumer/Cargo.toml");
    let target_dir = root.join("target/prefix-consumer");
    let pkgconfig = prefix.join("lib/pkgconfig");
    for (var, value) in [("OPENSSL_DIR", &prefix), ("PKG_CONFIG_PATH", &pkgconfig)] {
        let _found = sh.push_env(var, value);
        // openssl-sys's build script reruns only when the variables change, not the
        // libraries: a rerun must link the prefix just installed.
        cmd!(
            sh,
            "{cargo} clean -p openssl-sys --manifest-path {manifest} --target-dir {target_dir}"
        )
        .run()?;
        cmd!(sh, "{cargo} run --manifest-path {manifest} --target-dir {target_dir}")
            .run()
            .with_context(|| format!("openssl-sys finding the prefix through {var}"))?;
    }
    Ok(())
}
