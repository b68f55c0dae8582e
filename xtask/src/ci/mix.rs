//! Two copies of one OpenSSL build in one C program, as a Windows binary run under wine:
//! crypto-sys's prefixed copy, which a dependent's C reaches through its exported headers, and
//! the plain one an installed prefix holds (`xtask/tests/mix`). Each copy hashes, and an error
//! pushed in one stays out of the other's queue. The control links the plain copy for both
//! sides, as a build without the prefix would: one queue, and the program must say so.

use crate::driver::{Invocation, Toolchain};
use anyhow::{ensure, Context, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;
use xshell::Shell;

const SRC: &str = "xtask/tests/mix";

/// The program against `prefix` (installed by `cargo xtask build --target triple --prefix`)
/// and the prefixed copy that build made beside it, run by `tc`; then the control.
pub fn two_copies(sh: &Shell, tc: &Toolchain, triple: &str, prefix: &Path) -> Result<()> {
    let root = crate::cargo::project_root();
    let target = crypto_build::data::target_for(triple)?;
    let p = crate::cargo::crypto_sys_prefix(sh, target)?;
    let prefixed =
        crate::prefix::build_dir(triple, Some(prefix))?.join(crypto_build::prefixed::DIR);
    let (_, libs) = crate::driver::pkg_config(sh, prefix, "libcrypto")?;
    let (side, main) = (root.join(SRC).join("side.c"), root.join(SRC).join("main.c"));
    let include = |dir: &Path| format!("-I{}", dir.join("include").display());
    let ours = prefixed.join("lib").join(target.archive_file(&p.library("crypto")));
    ensure!(ours.exists(), "{} not found: the build made no prefixed copy", ours.display());
    let dir = root.join(crate::driver::DRIVER_DIR).join(format!("mix-{}", tc.name));
    let run = |name: &str, prefixed_side: &Path, extra: Option<&PathBuf>| -> Result<String> {
        let exe = dir.join(name).join(tc.exe);
        let sources = [
            (side.clone(), vec!["-DSIDE_PREFIXED".to_string(), include(prefixed_side)]),
            (side.clone(), vec![include(prefix)]),
            (main.clone(), vec![]),
        ];
        let libs: Vec<String> = extra
            .map(|l| l.display().to_string())
            .into_iter()
            .chain(libs.iter().cloned())
            .collect();
        crate::driver::build_program(sh, tc, &sources, &libs, &exe)
            .with_context(|| format!("building the {name} program"))?;
        let log = exe.with_extension("log");
        let inv = Invocation {
            exe: &exe,
            args: &[],
            cwd: exe.parent().context("the program's directory")?,
            env: &[],
            log: &log,
            timeout: Duration::from_secs(120),
        };
        let out = tc.runner.run(&inv)?;
        ensure!(out.status.success(), "{name}: {}\n{}\n{}", out.status, out.stdout, out.stderr);
        ensure!(out.stdout.contains("sha256: both copies ok"), "{name}: {}", out.stdout);
        Ok(out.stdout.trim().replace('\n', " | "))
    };
    let apart = run("two-copies", &prefixed, Some(&ours))?;
    ensure!(apart.contains("copies: apart"), "{}: the two copies mixed: {apart}", tc.name);
    let control = run("one-copy", prefix, None)?;
    ensure!(
        control.contains("copies: mixed"),
        "{}: the control must see one queue: {control}",
        tc.name
    );
    println!("mix ({}): {apart}; without the prefix: {control}", tc.name);
    Ok(())
}
