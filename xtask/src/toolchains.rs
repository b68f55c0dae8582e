//! The real toolchains this project is tested with, and the plan each must get. One table
//! feeds `cargo xtask test` (which builds and tests crypto-sys with each) and
//! `cargo xtask toolchains` (which writes docs/toolchains.md).

use crate::flags::Toolchains;
use anyhow::{bail, Context, Result};
use std::fs;
use xshell::{cmd, Shell};

/// A C compiler (as CC) and the plan `auto` must choose with it on linux-x86_64.
pub struct Row {
    pub cc: &'static str,
    /// Files expected to come from asm_avx2; every other asm file comes from asm.
    pub downgraded: &'static [&'static str],
    /// The C variant expected ("" for OpenSSL's default C configuration).
    pub c_variant: &'static str,
}

const NISTP: &str = "ec_nistp_64_gcc_128";

#[rustfmt::skip]
pub const ROWS: &[Row] = &[
    Row { cc: "gcc", downgraded: &[], c_variant: NISTP },
    Row { cc: "clang-14", downgraded: &["crypto/bn/rsaz-2k-avxifma.s", "crypto/bn/rsaz-3k-avxifma.s", "crypto/bn/rsaz-4k-avxifma.s"], c_variant: NISTP },
    Row { cc: "clang-16", downgraded: &[], c_variant: NISTP },
    Row { cc: "clang-19", downgraded: &[], c_variant: NISTP },
];

pub const DOC: &str = "docs/toolchains.md";

impl Toolchains {
    pub fn run(self, sh: &Shell) -> Result<()> {
        let fresh = render(sh)?;
        let path = crate::project_root().join(DOC);
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
        "# Toolchains and their plans\n\nWritten by `cargo xtask toolchains` from `cargo xtask detect` with each toolchain as\n`CC`; `cargo xtask test` builds crypto-sys with each and checks the plan and its\nknown-answer tests.\n\n| CC | assembler | probes rejected | plan (`auto`) | C variant |\n| --- | --- | --- | --- | --- |\n",
    );
    for row in ROWS {
        if which::which(row.cc).is_err() {
            bail!("{} is not installed; .ci/run installs it", row.cc);
        }
        let _cc = sh.push_env("CC", row.cc);
        let json = cmd!(sh, "{exe} detect --json").read()?;
        let downgraded = downgraded_paths(&json);
        if downgraded != row.downgraded {
            bail!(
                "CC={}: detect plans {downgraded:?} from asm_avx2, the table expects {:?}",
                row.cc,
                row.downgraded
            );
        }
        let c_variant = field(&json, "c_variant");
        if c_variant != row.c_variant {
            bail!(
                "CC={}: detect takes C variant `{c_variant}`, the table expects `{}`",
                row.cc,
                row.c_variant
            );
        }
        out += &format!(
            "| `{}` | {} {} | {} | {} | {} |\n",
            row.cc,
            field(&json, "kind"),
            field(&json, "version"),
            rejected(&json),
            plan_text(row),
            if c_variant.is_empty() { "none".into() } else { format!("`{c_variant}`") }
        );
    }
    Ok(out)
}

pub fn plan_text(row: &Row) -> String {
    if row.downgraded.is_empty() {
        "`asm` in full".into()
    } else {
        format!("`asm`, except {} from `asm_avx2`", row.downgraded.join(", "))
    }
}

/// Paths of the downgraded files in `detect --json` output.
fn downgraded_paths(json: &str) -> Vec<String> {
    let list = json.split("\"downgrades\":[").nth(1).unwrap_or("");
    list.split("{\"path\":\"")
        .skip(1)
        .filter_map(|p| p.split('"').next())
        .map(String::from)
        .collect()
}

fn field(json: &str, name: &str) -> String {
    let key = format!("\"{name}\":\"");
    json.find(&key)
        .map(|i| json[i + key.len()..].split('"').next().unwrap_or("").to_string())
        .unwrap_or_default()
}

fn rejected(json: &str) -> String {
    let probes = json.split("\"probes\":{").nth(1).and_then(|r| r.split('}').next()).unwrap_or("");
    let no: Vec<&str> = probes
        .split(',')
        .filter(|p| p.ends_with(":false"))
        .map(|p| p.trim_end_matches(":false").trim_matches('"'))
        .collect();
    if no.is_empty() {
        "none".into()
    } else {
        no.join(", ")
    }
}
