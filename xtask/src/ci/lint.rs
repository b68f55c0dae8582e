//! The `lint` step: rustfmt and clippy, as CI checks them.

use anyhow::{Context, Result};
use xshell::{cmd, Shell};

pub fn run(sh: &Shell, cargo: &str) -> Result<()> {
    cmd!(sh, "{cargo} fmt --all -- --check").run().context("cargo fmt --check")?;
    cmd!(sh, "{cargo} clippy --workspace --all-targets -- -D warnings").run().context("clippy")
}
