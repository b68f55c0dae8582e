//! `cargo xtask build`: builds crypto-sys with a chosen set, prints one summary line, and
//! optionally installs an OpenSSL-style prefix.

use crate::flags::Build;
use anyhow::{bail, Context, Result};
use crypto_build::build_script::SUMMARY_FILE;
use crypto_build::config::{
    per_target_var, AssemblerChoice, SetChoice, VariantChoice, ALLOW_DOWNGRADE_VAR, ASM_SET_VAR,
    ASSEMBLER_VAR, C_VARIANT_VAR, STRICT_VAR,
};
use crypto_build::data;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;
use xshell::{cmd, Shell};

/// Marks a directory as a prefix this command installed, so it may be replaced.
pub const PREFIX_MARKER: &str = ".crypto-sys-prefix";

impl Build {
    pub fn run(self, sh: &Shell) -> Result<()> {
        let choice = self.asm_set.as_deref().map(SetChoice::parse).transpose()?;
        let variant = self.c_variant.as_deref().map(VariantChoice::parse).transpose()?;
        let assembler =
            self.assembler.as_deref().map(AssemblerChoice::parse).transpose()?.flatten();
        let triple = match &self.target {
            Some(t) => t.clone(),
            None => host_triple(sh)?,
        };
        data::target_for(&triple)?;
        if let Some(prefix) = &self.prefix {
            check_prefix(prefix)?;
        }
        let started = Instant::now();
        let _asm = assembler.map(|a| sh.push_env(ASSEMBLER_VAR, a.name()));
        let _variant = variant.map(|v| sh.push_env(C_VARIANT_VAR, v.name()));
        let _strict = self.strict.then(|| sh.push_env(STRICT_VAR, "1"));
        let _allow = self.allow_downgrade.then(|| sh.push_env(ALLOW_DOWNGRADE_VAR, "1"));
        let target = self.target.as_ref().map(|t| format!("--target={t}"));
        let release = self.release.then(|| "--release".to_string());
        let cargo_args: Vec<String> = target.into_iter().chain(release).collect();
        let out_dir = build_crypto_sys(sh, Some(&cargo_args), choice, &triple)?;
        let summary = fs::read_to_string(out_dir.join(SUMMARY_FILE))
            .with_context(|| format!("reading the build summary in {}", out_dir.display()))?;
        println!("crypto-sys ({triple}): {}, built in {:.1?}", summary.trim(), started.elapsed());
        if let Some(prefix) = &self.prefix {
            install_prefix(&out_dir, prefix, &summary)?;
            println!("installed prefix {}", prefix.display());
        }
        Ok(())
    }
}

pub fn host_triple(sh: &Shell) -> Result<String> {
    let info = cmd!(sh, "rustc -vV").read()?;
    info.lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(String::from)
        .context("rustc -vV printed no host triple")
}

/// Runs cargo and returns crypto-sys's build script OUT_DIR.
/// Without --asm-set the environment is left alone, so the build is shared with `cargo test`.
/// Only an explicit --target goes to cargo, since it changes cargo's output directory.
pub fn build_crypto_sys(
    sh: &Shell,
    cargo_args: Option<&[String]>,
    choice: Option<SetChoice>,
    triple: &str,
) -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let args = cargo_args.unwrap_or_default();
    let _env = choice.map(|c| {
        (
            sh.push_env(ASM_SET_VAR, c.name()),
            sh.push_env(per_target_var(ASM_SET_VAR, triple), c.name()),
        )
    });
    let messages =
        cmd!(sh, "{cargo} build -p crypto-sys {args...} --message-format=json-render-diagnostics")
            .read()
            .context("building crypto-sys")?;
    messages
        .lines()
        .filter(|l| l.contains(r#""reason":"build-script-executed""#))
        .filter(|l| l.contains("crypto-sys"))
        .find_map(|l| json_string_field(l, "out_dir"))
        .map(PathBuf::from)
        .context("cargo reported no build-script run for crypto-sys")
}

/// The value of a string field in one line of cargo's JSON (paths have no escapes but `\\`).
fn json_string_field(line: &str, field: &str) -> Option<String> {
    let key = format!("\"{field}\":\"");
    let rest = &line[line.find(&key)? + key.len()..];
    let end = rest.find('"')?;
    Some(rest[..end].replace("\\\\", "\\"))
}

/// An existing prefix may only be replaced if we installed it.
fn check_prefix(prefix: &Path) -> Result<()> {
    let is_empty = |p: &Path| fs::read_dir(p).map(|mut d| d.next().is_none()).unwrap_or(false);
    if prefix.exists() && !prefix.join(PREFIX_MARKER).exists() && !is_empty(prefix) {
        bail!(
            "{} exists and is not a prefix installed by `cargo xtask build --prefix`; \
             choose a new or empty directory",
            prefix.display()
        );
    }
    Ok(())
}

/// Installs lib/ and include/openssl/ next to the prefix, then swaps it in.
fn install_prefix(out_dir: &Path, prefix: &Path, summary: &str) -> Result<()> {
    let name = prefix.file_name().context("the prefix needs a directory name")?;
    let parent = prefix.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    fs::create_dir_all(parent)?;
    let tmp = parent.join(format!(".{}.tmp-{}", name.to_string_lossy(), std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    copy_dir(&out_dir.join("lib"), &tmp.join("lib"), |n| n.ends_with(".a"))?;
    copy_dir(&out_dir.join("include/openssl"), &tmp.join("include/openssl"), |n| {
        n.ends_with(".h")
    })?;
    fs::write(tmp.join(PREFIX_MARKER), summary)?;
    let old = parent.join(format!(".{}.old-{}", name.to_string_lossy(), std::process::id()));
    if prefix.exists() {
        fs::rename(prefix, &old).with_context(|| format!("moving aside {}", prefix.display()))?;
    }
    fs::rename(&tmp, prefix).with_context(|| format!("installing {}", prefix.display()))?;
    let _ = fs::remove_dir_all(&old);
    Ok(())
}

fn copy_dir(from: &Path, to: &Path, keep: impl Fn(&str) -> bool) -> Result<()> {
    fs::create_dir_all(to)?;
    for e in fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let e = e?;
        if keep(&e.file_name().to_string_lossy()) {
            fs::copy(e.path(), to.join(e.file_name()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_out_dir_from_cargo_json() {
        let line = r#"{"reason":"build-script-executed","package_id":"path+file:///w/crypto-sys#0.1.0","out_dir":"/w/target/debug/build/crypto-sys-1/out"}"#;
        assert_eq!(
            json_string_field(line, "out_dir").unwrap(),
            "/w/target/debug/build/crypto-sys-1/out"
        );
    }

    #[test]
    fn refuses_a_prefix_that_is_not_ours() {
        let dir = std::env::temp_dir().join(format!("xtask-prefix-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        check_prefix(&dir).unwrap();
        fs::write(dir.join("precious.txt"), "x").unwrap();
        let e = check_prefix(&dir).unwrap_err().to_string();
        assert!(e.contains("is not a prefix installed by"), "{e}");
        fs::write(dir.join(PREFIX_MARKER), "x").unwrap();
        check_prefix(&dir).unwrap();
        fs::remove_dir_all(&dir).unwrap();
    }
}
