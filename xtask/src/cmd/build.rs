//! `cargo xtask build`: builds crypto-sys with a chosen set, prints one summary line, and
//! optionally installs an OpenSSL-style prefix.

mod cnf_changes;
mod fips;
mod ssldirs;

use crate::flags::{Build, Selection};
use crate::runner::Runner;
use anyhow::{bail, Context, Result};
use crypto_build::build_script;
use crypto_build::config::{
    per_target_var, AssemblerChoice, BuildConfig, SetChoice, VariantChoice, ALLOW_DOWNGRADE_VAR,
    APPS_VAR, ASM_SET_VAR, ASSEMBLER_VAR, C_VARIANT_VAR, OPENSSLDIR_VAR, STRICT_VAR,
};
use crypto_build::data;
use crypto_build::facts::{BuildFacts, FACTS_FILE};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;
use xshell::{cmd, Shell};

impl Build {
    pub fn run(self, sh: &Shell) -> Result<()> {
        let Selection { asm_set: choice, c_variant: variant, assembler, strict, allow_downgrade } =
            self.selection;
        let triple = match &self.target {
            Some(t) => t.clone(),
            None => crate::cargo::host_triple(sh)?,
        };
        let target = data::target_for(&triple)?;
        let line = self.openssl.line;
        refuse_without_sdk(target, &triple, &crate::cargo::host_triple(sh)?)?;
        if let Some(prefix) = &self.prefix {
            check_prefix(prefix)?;
        }
        let fips_release = match &self.fips_release {
            Some(r) if triple != crate::cargo::host_triple(sh)? => {
                bail!("--fips-release {r} builds the module for this machine only, not {triple}")
            }
            Some(r) => Some(crate::sources::fips_release::validated(r)?),
            None => None,
        };
        let openssldir = ssldirs::resolve(self.openssldir.as_deref(), self.prefix.as_deref())?;
        let started = Instant::now();
        let progress_file = crate::cargo::project_root()
            .join("target")
            .join(format!("crypto-sys-progress-{}", std::process::id()));
        // In the process's environment: the build runs in cargo's child, or in this process
        // for a target without a Rust std.
        std::env::set_var(crypto_build::progress::PROGRESS_VAR, &progress_file);
        let _watch = crate::progress::BuildWatch::start(progress_file);
        let _asm = assembler.map(|a| sh.push_env(ASSEMBLER_VAR, a.name()));
        // Both forms, as for the set: an option wins over the environment's per-target form.
        let _variant = variant.map(|v| {
            let name = v.name();
            (
                sh.push_env(C_VARIANT_VAR, name),
                sh.push_env(per_target_var(C_VARIANT_VAR, &triple), name),
            )
        });
        let _strict = strict.then(|| sh.push_env(STRICT_VAR, "1"));
        let _allow = allow_downgrade.then(|| sh.push_env(ALLOW_DOWNGRADE_VAR, "1"));
        // Always said, so that a build without --apps does not keep an earlier build's program.
        let _apps = sh.push_env(APPS_VAR, if self.apps { "1" } else { "0" });
        let _dir = openssldir.as_ref().map(|d| sh.push_env(OPENSSLDIR_VAR, d));
        let out_dir = if rust_std_installed(sh, &triple)? {
            let target = self.target.as_ref().map(|t| format!("--target={t}"));
            let release = self.release.then(|| "--release".to_string());
            let no_legacy = self.no_legacy.then(|| "--no-default-features".to_string());
            let fips = self.fips.then(|| "--features=fips".to_string());
            let line = line.cargo_feature_arg();
            let cargo_args: Vec<String> = target
                .into_iter()
                .chain(release)
                .chain(no_legacy)
                .chain(fips)
                .chain(line)
                .collect();
            build_crypto_sys(sh, Some(&cargo_args), choice, &triple)?
        } else {
            let overrides = Overrides {
                choice,
                variant,
                assembler,
                strict,
                allow_downgrade,
                legacy: !self.no_legacy,
                apps: self.apps,
                fips: self.fips,
                openssldir,
                line,
            };
            build_without_cargo(sh, &triple, self.prefix.as_deref(), &overrides)?
        };
        let facts = BuildFacts::read(&out_dir)?;
        let summary = facts.summary();
        println!("crypto-sys ({triple}): {summary}, built in {:.1?}", started.elapsed());
        if self.apps {
            report_program(&out_dir, &triple)?;
        }
        if let Some(prefix) = &self.prefix {
            let at = ssldirs::final_prefix(prefix)?;
            let place = ssldirs::placement(&facts.openssldir, &at)?;
            let fips = Fips { triple: &triple, release: fips_release, line: line.version };
            install_prefix(sh, &out_dir, prefix, &summary, &place.rel, &fips)?;
            println!("installed prefix {}", prefix.display());
            println!("{}", ssldirs::config_line(&facts.openssldir, &at, &place));
        }
        Ok(())
    }
}

/// A target whose C needs its own OS's SDK (macOS) cannot be built from another host unless
/// the user names a cross compiler for it (osxcross and the like): one line, not cc's errors.
fn refuse_without_sdk(target: &data::Target, triple: &str, host: &str) -> Result<()> {
    let named =
        [format!("CC_{}", triple.replace('-', "_")), format!("CC_{triple}"), "TARGET_CC".into()]
            .iter()
            .any(|v| std::env::var_os(v).is_some());
    let same_os = |t: &str| t.rsplit_once('-').map(|(_, os)| os.to_string());
    match target.needs_native_sdk {
        Some(sdk) if !named && same_os(host) != same_os(triple) => bail!(
            "{triple} ({}): OpenSSL's C needs {sdk}, which this host lacks; build on that OS, \
             or name a cross compiler in CC_{}. Its asm is assembled and symbol-checked here by \
             `cargo xtask test --step assembled`",
            target.name,
            triple.replace('-', "_")
        ),
        _ => Ok(()),
    }
}

/// `openssl version -a` of the program just linked, where it can run here; else why not.
fn report_program(out_dir: &Path, triple: &str) -> Result<()> {
    match Runner::for_triple(triple) {
        Ok(runner) => {
            let (program, text) = crate::prefix::version_output(runner, out_dir)?;
            println!("{}:\n  {}", program.display(), text.trim().replace('\n', "\n  "));
        }
        Err(why) => {
            println!("{}: built, not run ({why})", crate::prefix::program_path(out_dir)?.display())
        }
    }
    Ok(())
}

/// What the command line says over the user's variables, for the build without cargo (the
/// cargo path passes them through the environment instead).
struct Overrides {
    choice: Option<SetChoice>,
    variant: Option<VariantChoice>,
    assembler: Option<AssemblerChoice>,
    strict: bool,
    allow_downgrade: bool,
    legacy: bool,
    apps: bool,
    fips: bool,
    openssldir: Option<String>,
    line: &'static data::OpensslLine,
}

/// Whether rustup (or the sysroot) has the Rust std for `triple`, so cargo can build for it.
fn rust_std_installed(sh: &Shell, triple: &str) -> Result<bool> {
    let sysroot = cmd!(sh, "rustc --print sysroot").read().context("running rustc")?;
    Ok(Path::new(sysroot.trim()).join("lib/rustlib").join(triple).join("lib").exists())
}

/// crypto-sys's build-script pipeline, run here for a target whose Rust std is missing (so
/// cargo cannot build crypto-sys for it): the same code, given the target by hand. Returns
/// the directory that holds what a build script's OUT_DIR would.
fn build_without_cargo(
    sh: &Shell,
    triple: &str,
    prefix: Option<&Path>,
    o: &Overrides,
) -> Result<PathBuf> {
    let root = crate::cargo::project_root();
    let host = crate::cargo::host_triple(sh)?;
    let out_dir = crate::prefix::build_dir(triple, prefix)?;
    fs::create_dir_all(&out_dir)?;
    let jobs = crypto_build::jobs::count();
    // cc and nasm-rs size their own job pools from NUM_JOBS outside cargo (an inherited
    // jobserver, the lanes' in `cargo xtask test`, bounds them instead).
    std::env::set_var("NUM_JOBS", jobs.to_string());
    let crate_dir = root.join("crypto-sys");
    // nasm-rs reads it, and only cargo sets it: run from the xtask binary itself
    // (`target/debug/xtask build`), a nasm build would panic without it.
    std::env::set_var("CARGO_MANIFEST_DIR", &crate_dir);
    let mut config = BuildConfig::for_target(triple, out_dir.clone(), &crate_dir, jobs, o.line)?;
    config.choice = o.choice.unwrap_or(config.choice);
    config.variant = o.variant.unwrap_or(config.variant);
    config.assembler = o.assembler.or(config.assembler);
    config.strict |= o.strict;
    config.allow_downgrade |= o.allow_downgrade;
    config.legacy = o.legacy;
    config.apps = o.apps;
    config.fips = o.fips;
    config.openssldir = o.openssldir.clone().or(config.openssldir);
    // crypto-sys's prefixed copy too, checked as its build script checks it: the one a Rust
    // program on this target would link (the prefix installs the plain one).
    config.symbol_prefix = Some(crate::cargo::crypto_sys_prefix(sh, config.target)?);
    let mut base = cc::Build::new();
    base.target(triple).host(&host).out_dir(out_dir.join("cc")).cargo_metadata(false);
    let built = build_script::build(&config, base)?;
    if let Some(w) = &built.warning {
        eprintln!("warning: crypto-sys: {w}");
    }
    // Under cargo, the build script's line says it (cargo shows it on every build).
    for w in config.line_warnings() {
        eprintln!("warning: crypto-sys: {w}");
    }
    Ok(out_dir)
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
    let cargo = crate::cargo::cargo();
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
        .find_map(crate::cargo::crypto_sys_out_dir)
        .context("cargo reported no build-script run for crypto-sys")
}

/// Before anything is built: an existing prefix may only be replaced if we installed it, and
/// the install, which is staged beside the prefix, must be able to write there.
fn check_prefix(prefix: &Path) -> Result<()> {
    let is_empty = |p: &Path| fs::read_dir(p).map(|mut d| d.next().is_none()).unwrap_or(false);
    let absolute = std::path::absolute(prefix)?;
    let existing = absolute.ancestors().find(|a| a.exists()).unwrap_or(Path::new("/"));
    if !existing.is_dir() {
        bail!(
            "{} is a file, not a directory; choose a new or empty directory for --prefix",
            existing.display()
        );
    }
    if existing == absolute && !prefix.join(crate::prefix::MARKER).exists() && !is_empty(prefix) {
        bail!(
            "{} exists and is not a prefix installed by `cargo xtask build --prefix`; \
             choose a new or empty directory",
            prefix.display()
        );
    }
    let parent =
        if existing == absolute { absolute.parent().unwrap_or(existing) } else { existing };
    let probe = parent.join(format!(".crypto-sys-write-probe-{}", std::process::id()));
    if let Err(e) = fs::create_dir(&probe) {
        bail!(
            "cannot write in {} ({e}), where the prefix is staged; choose a directory you can \
             write to",
            parent.display()
        );
    }
    let _ = fs::remove_dir(&probe);
    Ok(())
}

/// What a prefix's FIPS module is: the build's own, or a validated release's.
struct Fips<'a> {
    triple: &'a str,
    release: Option<&'static data::ValidatedRelease>,
    /// The line's release, whose libcrypto loads it.
    line: &'a str,
}

/// Installs lib/, include/openssl/, … and OPENSSLDIR's files (at `ssl_dir`, relative) next
/// to the prefix, and its FIPS module, then swaps it in.
fn install_prefix(
    sh: &Shell,
    out_dir: &Path,
    prefix: &Path,
    summary: &str,
    ssl_dir: &Path,
    fips: &Fips,
) -> Result<()> {
    let name = prefix.file_name().context("the prefix needs a directory name")?;
    let parent = prefix.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    fs::create_dir_all(parent)?;
    let tmp = parent.join(format!(".{}.tmp-{}", name.to_string_lossy(), std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    copy_dir(&out_dir.join("lib"), &tmp.join("lib"), |n| n.ends_with(".a") || n.ends_with(".lib"))?;
    copy_dir(&out_dir.join("include/openssl"), &tmp.join("include/openssl"), |n| {
        n.ends_with(".h")
    })?;
    crate::prefix::write_pkg_config(out_dir, &tmp.join("lib/pkgconfig"))?;
    let cmake = tmp.join("lib/cmake/OpenSSL");
    copy_dir(&out_dir.join(crypto_build::compile::CMAKE_DIR), &cmake, |n| {
        crypto_build::compile::CMAKE_FILES.contains(&n)
    })?;
    if out_dir.join("bin").exists() {
        let program = crate::prefix::program_path(out_dir)?;
        fs::create_dir_all(tmp.join("bin"))?;
        fs::copy(&program, tmp.join("bin").join(program.file_name().unwrap()))?;
    }
    fs::copy(out_dir.join(FACTS_FILE), tmp.join(FACTS_FILE))?;
    let kept = ssldirs::install(out_dir, &tmp, prefix, ssl_dir)?;
    for dir in kept.elsewhere {
        println!("kept {} from the earlier install", prefix.join(dir).display());
    }
    for line in kept.notices {
        println!("{line}");
    }
    match fips.release {
        Some(v) => fips::install_release(sh, v, &tmp, ssl_dir, fips.line)?,
        None => fips::install(out_dir, &tmp, ssl_dir, fips.triple)?,
    }
    fs::write(tmp.join(crate::prefix::MARKER), format!("{summary}\n"))?;
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

    #[test]
    fn a_macos_build_from_linux_is_refused_in_one_line_naming_the_assembled_check() {
        let host = "x86_64-unknown-linux-gnu";
        for triple in ["aarch64-apple-darwin", "x86_64-apple-darwin"] {
            let target = data::target_for(triple).unwrap();
            let e = refuse_without_sdk(target, triple, host).unwrap_err().to_string();
            assert!(
                e.contains("macOS SDK") && e.contains("cargo xtask test --step assembled"),
                "{e}"
            );
            assert!(!e.contains('\n'), "{e}");
            refuse_without_sdk(target, triple, "aarch64-apple-darwin").unwrap();
        }
        let arm = data::target_for("aarch64-unknown-linux-gnu").unwrap();
        refuse_without_sdk(arm, "aarch64-unknown-linux-gnu", host).unwrap();
    }

    use super::*;

    #[test]
    fn refuses_a_prefix_that_is_not_ours() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        check_prefix(dir).unwrap();
        fs::write(dir.join("precious.txt"), "x").unwrap();
        let e = check_prefix(dir).unwrap_err().to_string();
        assert!(e.contains("is not a prefix installed by"), "{e}");
        fs::write(dir.join(crate::prefix::MARKER), "x").unwrap();
        check_prefix(dir).unwrap();

        let file = dir.join("precious.txt");
        let e = check_prefix(&file).unwrap_err().to_string();
        assert!(e.contains("precious.txt is a file, not a directory"), "{e}");
        let e = check_prefix(&file.join("under-a-file")).unwrap_err().to_string();
        assert!(e.contains("precious.txt is a file, not a directory"), "{e}");
        // procfs takes no new directories, even from root.
        let e = check_prefix(Path::new("/proc/crypto-sys-prefix")).unwrap_err().to_string();
        assert!(e.contains("cannot write in /proc"), "{e}");
        assert_eq!(fs::read_to_string(&file).unwrap(), "x");
    }
}
