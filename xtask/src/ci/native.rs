//! The runner-only steps (`msvc`, `macos-arm64`, `macos-x86_64`): on a GitHub runner of the
//! target's own OS, crypto-sys built natively and its suites run on every code path the CPU
//! can run, then the prefix with its `openssl` program, whose `version -a` runs there.

use anyhow::{ensure, Result};
use xshell::{cmd, Shell};

pub fn run(sh: &Shell, cargo: &str, triple: &str) -> Result<()> {
    let host = crate::cargo::host_triple(sh)?;
    ensure!(host == triple, "this step builds {triple} natively; the host is {host}");
    cmd!(sh, "{cargo} test -p crypto-sys").run()?;
    if crate::triple::Triple::parse(triple)?.arch == "x86_64" {
        super::sets::known_answers_on_every_path(sh, cargo, "auto", &[])?;
    }
    let prefix = crate::cargo::project_root().join(super::prefix::PREFIX);
    cmd!(sh, "{cargo} xtask build --prefix {prefix} --apps").run()?;
    Ok(())
}
