//! The runner-only steps (`msvc`, `msvc-i686`, `macos-arm64`, `macos-x86_64`): on a GitHub
//! runner of the target's own OS (for i686, the x86_64 runner, which runs 32-bit programs),
//! crypto-sys built and its suites run on every code path the CPU can run, then the prefix
//! with its `openssl` program, whose `version -a` runs there.

use crate::triple::Triple;
use anyhow::{ensure, Result};
use crypto_build::data::{self, Arch};
use xshell::{cmd, Shell};

pub fn run(sh: &Shell, cargo: &str, triple: &str) -> Result<()> {
    let host = crate::cargo::host_triple(sh)?;
    ensure!(
        Triple::parse(triple)?.runs_natively_on(&Triple::parse(&host)?),
        "this step builds and runs {triple}, which a {host} host does not run itself"
    );
    // Another target the host runs (i686 on x86_64) is built with its Rust std, and tested.
    let cross: Vec<&str> = if host == triple { vec![] } else { vec!["--target", triple] };
    let cross = &cross[..];
    cmd!(sh, "{cargo} test -p crypto-sys {cross...}").run()?;
    let arch = data::target_for(triple)?.arch;
    if matches!(arch, Arch::X86_64 | Arch::X86) {
        super::sets::known_answers_on_every_path_of(sh, cargo, "auto", cross, arch)?;
    }
    let prefix = crate::cargo::project_root().join(super::prefix::PREFIX);
    cmd!(sh, "{cargo} xtask build {cross...} --prefix {prefix} --apps").run()?;
    Ok(())
}
