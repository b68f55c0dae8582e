//! The `prefix` step: `cargo xtask build --prefix target/prefix --apps`, then what users point
//! at a prefix: openssl-sys (through OPENSSL_DIR and through pkg-config), C build systems, the
//! `openssl` program with the installed config, a prefix built `--openssldir ssl`, and the C
//! driver.

use anyhow::{ensure, Context, Result};
use xshell::{cmd, Shell};

/// Where the step installs the prefix; the package and sccache steps compare with it.
pub const PREFIX: &str = "target/prefix";

pub fn run(sh: &Shell, cargo: &str) -> Result<()> {
    let prefix = crate::cargo::project_root().join(PREFIX);
    consumer(sh, cargo).context("openssl-sys against `cargo xtask build --prefix`")?;
    super::consumers::run(sh, &prefix).context("C build systems against the prefix")?;
    super::apps::run(&prefix).context("the prefix's bin/openssl")?;
    super::ssldirs::run(sh, cargo, &prefix).context("a prefix built with --openssldir ssl")?;
    super::driver_paths::native_step(sh, &prefix)
}

/// Installs a prefix and builds a small openssl-sys program against it, statically: found
/// through OPENSSL_DIR, then through PKG_CONFIG_PATH alone, as openssl-sys's users point it.
fn consumer(sh: &Shell, cargo: &str) -> Result<()> {
    let root = crate::cargo::project_root();
    let prefix = root.join("target/prefix");
    crate::prefix::remove_earlier(&prefix)?;
    let out = cmd!(sh, "{cargo} xtask build --prefix {prefix} --apps").read()?;
    println!("{out}");
    // OPENSSLDIR is the default, outside the prefix: the summary says how to use its config.
    let conf = prefix.join(crate::prefix::SSL_DIR).join("openssl.cnf");
    let want = "set OPENSSL_CONF to it or build with --openssldir ssl";
    let line = out.lines().find(|l| l.starts_with("config: ")).unwrap_or("");
    ensure!(
        line.contains(&format!("installed {}", conf.display())) && line.contains(want),
        "the summary should name {} and say `{want}`:\n{out}",
        conf.display()
    );
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
