//! `cargo xtask test`: every check CI runs, in one command.

use crate::flags::Test;
use anyhow::{Context, Result};
use crypto_build::config::ASM_SET_VAR;
use xshell::{cmd, Shell};

/// Sets besides the default (`auto`, which is `asm` here) whose build must pass the KATs.
/// Each gets its own target directory, so switching never rebuilds the others.
const OTHER_SETS: &[&str] = &["asm_avx2", "no_asm"];

impl Test {
    pub fn run(self, sh: &Shell) -> Result<()> {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        cmd!(sh, "{cargo} fmt --all -- --check").run().context("cargo fmt --check")?;
        cmd!(sh, "{cargo} clippy --workspace --all-targets -- -D warnings")
            .run()
            .context("clippy")?;
        cmd!(sh, "{cargo} test --workspace").run().context("workspace tests")?;
        for set in OTHER_SETS {
            let _env = sh.push_env(ASM_SET_VAR, set);
            let dir = format!("target/sets/{set}");
            cmd!(sh, "{cargo} test -p crypto-sys --target-dir {dir}")
                .run()
                .with_context(|| format!("crypto-sys tests with the {set} set"))?;
        }
        println!("cargo xtask test: all checks passed");
        Ok(())
    }
}
