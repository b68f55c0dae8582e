//! The real toolchains this project is tested with, and the plan each must get. One table
//! feeds `cargo xtask test` (which builds and tests crypto-sys with each) and
//! `cargo xtask toolchains` (which writes docs/toolchains.md).

use super::detect::Report;
use crate::flags::Toolchains;
use crate::matrix::{How, Row, ROWS};
use anyhow::{bail, Context, Result};
use crypto_build::data::NO_C_VARIANT;
use std::fs;
use xshell::{cmd, Shell};

pub const DOC: &str = "docs/toolchains.md";

impl Toolchains {
    pub fn run(self, sh: &Shell) -> Result<()> {
        let fresh = render(sh)?;
        let path = crate::cargo::project_root().join(DOC);
        if self.check {
            let committed = fs::read_to_string(&path).unwrap_or_default();
            if committed != fresh {
                bail!("{DOC} is out of date; run `cargo xtask toolchains` and commit it");
            }
            println!("{DOC} is up to date");
        } else {
            fs::write(&path, fresh).with_context(|| format!("writing {DOC}"))?;
            println!("wrote {DOC}");
        }
        Ok(())
    }
}

/// The table, from `cargo xtask detect --json` run with each toolchain as CC.
fn render(sh: &Shell) -> Result<String> {
    let exe = std::env::current_exe()?;
    let mut out = String::from(
        "# Toolchains and their plans\n\nWritten by `cargo xtask toolchains` from `cargo xtask detect` with each toolchain as\n`CC` (or `CC_<triple>`; none for the MSVC rows, built as a fresh clone builds them);\n`cargo xtask test` builds OpenSSL with each and checks the plan and the known answers as the\nlast column says (the rows are `xtask/src/matrix.rs`).\n\n| target | CC | assembler | probes rejected | plan (`auto`) | C variant | tested |\n| --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for row in ROWS {
        // Only assembled, a row's C compiler may be one this host cannot have (MSVC).
        if !(row.how == How::Assembled && row.package.is_empty()) && which::which(row.cc).is_err() {
            bail!("{} is not installed; .ci/run installs it (apt install {})", row.cc, row.package);
        }
        let _cc = row.names_cc().then(|| sh.push_env(row.cc_var(), row.cc));
        let cross = row.cc_var() != "CC";
        let target = cross.then_some(["--target", row.target]).into_iter().flatten();
        let asm = row.assembler.map(|a| ["--assembler", a]).into_iter().flatten();
        let json = cmd!(sh, "{exe} detect --json {target...} {asm...}").read()?;
        let report: Report = serde_json::from_str(&json).context("reading `detect --json`")?;
        let downgraded: Vec<&str> = report.downgrades.iter().map(|d| d.path.as_str()).collect();
        if downgraded != row.downgraded {
            bail!(
                "CC={}: detect plans {downgraded:?} from asm_avx2, the table expects {:?}",
                row.cc,
                row.downgraded
            );
        }
        let c_variant = report.c_variant.as_deref().unwrap_or(NO_C_VARIANT);
        if c_variant != row.c_variant {
            bail!(
                "CC={}: detect takes C variant `{c_variant}`, the table expects `{}`",
                row.cc,
                row.c_variant
            );
        }
        let cc = match row.names_cc() {
            true => format!("`{}`", row.cc),
            false => format!("none (`{}` run as {})", row.cc, crypto_build::detect::CLANG_CL),
        };
        out += &format!(
            "| {} | {cc} | {} {} | {} | {} | {} | {} |\n",
            if cross { row.target.to_string() } else { format!("host ({})", row.target) },
            report.kind,
            report.version.as_deref().unwrap_or_default(),
            rejected(&report),
            plan_text(row),
            variant_text(row, c_variant)?,
            row.tested()
        );
    }
    Ok(out)
}

/// The C variant taken, or `none` with each variant the target refuses and why.
fn variant_text(row: &Row, c_variant: &str) -> Result<String> {
    if c_variant != NO_C_VARIANT {
        return Ok(format!("`{c_variant}`"));
    }
    let target = crypto_build::data::target_for(row.target)?;
    let refused: Vec<String> =
        target.refused_variants.iter().map(|(v, why)| format!("`{v}` refused: {why}")).collect();
    Ok(if refused.is_empty() {
        c_variant.into()
    } else {
        format!("{NO_C_VARIANT} ({})", refused.join("; "))
    })
}

pub fn plan_text(row: &Row) -> String {
    if row.downgraded.is_empty() {
        "`asm` in full".into()
    } else {
        format!("`asm`, except {} from `asm_avx2`", row.downgraded.join(", "))
    }
}

/// The probes the assembler failed, in the table's order, or `none`.
fn rejected(report: &Report) -> String {
    let no: Vec<&str> =
        report.probes.iter().filter(|(_, ok)| !ok).map(|(name, _)| name.as_str()).collect();
    if no.is_empty() {
        "none".into()
    } else {
        no.join(", ")
    }
}
