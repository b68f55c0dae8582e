//! The `lines` step: each OpenSSL line but the default (`data::OPENSSL_LINES`), on the
//! host row: crypto-sys's suites, the known answers on every code path, and the C driver and
//! the documented `openssl` flows against a prefix of the line.

use super::sets::{
    known_answers_on_every_path, EXPECT_C_VARIANT_VAR, EXPECT_VAR, WITH_EXPECTATIONS,
};
use crate::matrix::workspace_row;
use anyhow::{Context, Result};
use crypto_build::data::OPENSSL_LINES;
use xshell::{cmd, Shell};

/// crypto-sys built with the line's feature and every suite run, then the known answers on
/// every code path; then `cargo xtask build --openssl NAME --prefix --apps --openssldir ssl`,
/// checked by the C driver (its Wycheproof families on every path, the line's release
/// reported) and by the `openssl` flows on the config it installed (`flows.rs`).
pub fn run(sh: &Shell, cargo: &str) -> Result<()> {
    let row = workspace_row();
    let _variant = sh.push_env(EXPECT_C_VARIANT_VAR, row.c_variant);
    let _expect = sh.push_env(EXPECT_VAR, row.downgraded.join(","));
    for line in OPENSSL_LINES {
        let Some(feature) = line.feature() else { continue };
        let version = line.version;
        let features = ["--features", feature.as_str()];
        cmd!(sh, "{cargo} test -p crypto-sys {features...} {WITH_EXPECTATIONS...}")
            .run()
            .with_context(|| format!("crypto-sys's tests on OpenSSL {version}"))?;
        known_answers_on_every_path(sh, cargo, "auto", &features)
            .with_context(|| format!("OpenSSL {version}"))?;
        let prefix = super::line_target_dir("prefix", line);
        let name = line.name();
        crate::prefix::remove_earlier(&prefix)?;
        cmd!(sh, "{cargo} xtask build --openssl {name} --prefix {prefix} --apps --openssldir ssl")
            .run()
            .with_context(|| format!("a prefix of OpenSSL {version}"))?;
        super::driver_paths::check_prefix(sh, &row.driver()?, &prefix)
            .with_context(|| format!("the C driver on OpenSSL {version}"))?;
        super::flows::on_prefix(&prefix, &format!("flows-{name}"))?;
    }
    Ok(())
}
