//! `cargo xtask build`: builds crypto-sys with a chosen set (and installs a prefix).

use crate::flags::Build;
use anyhow::Result;
use xshell::Shell;

impl Build {
    pub fn run(self, _sh: &Shell) -> Result<()> {
        anyhow::bail!("not yet")
    }
}
