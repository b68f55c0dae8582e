//! The `lint` step: rustfmt and clippy, as CI checks them, and every file that `cargo xtask
//! lines` writes from the lines' data as it writes it (one edited by hand fails).

use anyhow::{Context, Result};
use xshell::{cmd, Shell};

pub fn run(sh: &Shell, cargo: &str) -> Result<()> {
    cmd!(sh, "{cargo} fmt --all -- --check").run().context("cargo fmt --check")?;
    cmd!(sh, "{cargo} clippy --workspace --all-targets -- -D warnings").run().context("clippy")?;
    cmd!(sh, "{cargo} xtask lines --check").run().context("cargo xtask lines --check")
}
