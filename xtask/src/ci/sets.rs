//! The steps that build crypto-sys through cargo on this host and run its Rust tests: the
//! workspace's own build, each set on every x86_64 code path, and the other host toolchains
//! of the matrix.

use crate::matrix::{workspace_row, How, Row};
use anyhow::{bail, ensure, Context, Result};
use crypto_build::config::ASM_SET_VAR;
use crypto_build::data::{is_set, Arch, AsmSet, SetRole, IA32CAP, NISTP, NO_C_VARIANT};
use crypto_build::facts::BuildFacts;
use xshell::{cmd, Shell};

/// Tells crypto-sys's tests which downgrades the toolchain table expects.
pub const EXPECT_VAR: &str = "CRYPTO_SYS_EXPECT_DOWNGRADED";
/// libtest's words that also run the test needing `EXPECT_VAR`, ignored without them so that a
/// plain `cargo test` reports it as not run rather than as passed.
pub const WITH_EXPECTATIONS: [&str; 2] = ["--", "--include-ignored"];
/// Tells crypto-sys's tests/paths.rs which code-path row OPENSSL_ia32cap holds the mask of.
const EXPECT_PATH_VAR: &str = "CRYPTO_SYS_EXPECT_PATH";
/// The suites run on every code path: known answers, the proof that the mask took, and the
/// digests that every path and set must share.
const PATH_SUITES: &[&str] = &["kat", "api", "wycheproof", "paths", "across_paths"];

/// Tells crypto-sys's tests which C variant the build must have taken.
pub const EXPECT_C_VARIANT_VAR: &str = "CRYPTO_SYS_EXPECT_C_VARIANT";

/// gcc whose C variant probes fail (no `__uint128_t`); shared with xtask/tests/detect.rs.
const CC_WITHOUT_INT128: &str = "xtask/tests/fixtures/cc-without-int128";

/// `cargo test --workspace` with the workspace row's expectations.
pub fn workspace(sh: &Shell, cargo: &str) -> Result<()> {
    let row = workspace_row();
    let _variant = sh.push_env(EXPECT_C_VARIANT_VAR, row.c_variant);
    let _expect = sh.push_env(EXPECT_VAR, row.downgraded.join(","));
    cmd!(sh, "{cargo} test --workspace {WITH_EXPECTATIONS...}").run().context("workspace tests")
}

/// `auto` (the default set): verify, and the known answers on every code path.
pub fn auto(sh: &Shell, cargo: &str) -> Result<()> {
    let _variant = sh.push_env(EXPECT_C_VARIANT_VAR, workspace_row().c_variant);
    let line = super::line_args();
    cmd!(sh, "{cargo} xtask verify {line...}").run()?;
    super::support_date::check(sh, cargo).context("the support date's warning")?;
    known_answers_on_every_path(sh, cargo, "auto", &super::line_features())
}

/// `asm_avx2`: crypto-sys's tests, verify (the wide entry points are stubs), every code path.
pub fn asm_avx2(sh: &Shell, cargo: &str) -> Result<()> {
    let _variant = sh.push_env(EXPECT_C_VARIANT_VAR, workspace_row().c_variant);
    let _env = sh.push_env(ASM_SET_VAR, AsmSet::avx2().name);
    let _expect = sh.push_env(EXPECT_VAR, "");
    let (line, features): (_, &[&str]) = (super::line_args(), &super::line_features());
    cmd!(sh, "{cargo} test -p crypto-sys {features...} {WITH_EXPECTATIONS...}")
        .run()
        .context("crypto-sys tests with the asm_avx2 set")?;
    cmd!(sh, "{cargo} xtask verify {line...}").run().context("verify, set asm_avx2")?;
    known_answers_on_every_path(sh, cargo, AsmSet::avx2().name, features)
}

/// The host rows of the matrix built with their own C compiler, then the docs of the
/// matrix against `detect` (which describe the default line).
pub fn toolchains(sh: &Shell, cargo: &str) -> Result<()> {
    for row in crate::matrix::rows(How::Rust) {
        toolchain(sh, cargo, row).with_context(|| format!("crypto-sys with CC={}", row.cc))?;
    }
    if !super::line().is_default() {
        println!("docs/toolchains.md describes the default line: checked by its run");
        return Ok(());
    }
    cmd!(sh, "{cargo} xtask toolchains --check").run().map_err(Into::into)
}

/// The known-answer suites on each code path of the table, with the set already in the env
/// and crypto-sys's `features`; a path this CPU cannot run is skipped with one line naming the
/// missing feature. A set without asm reads no OPENSSL_ia32cap, so each mask runs the test
/// that proves it (`paths`) alone; its caller has run the suites once.
pub fn known_answers_on_every_path(
    sh: &Shell,
    cargo: &str,
    set: &str,
    features: &[&str],
) -> Result<()> {
    known_answers_on_every_path_of(sh, cargo, set, features, Arch::X86_64)
}

/// The same on `arch`'s code paths (32-bit x86's for `--target i686-pc-windows-msvc`), with
/// `args` for cargo (features, a target).
pub fn known_answers_on_every_path_of(
    sh: &Shell,
    cargo: &str,
    set: &str,
    args: &[&str],
    arch: Arch,
) -> Result<()> {
    let features = args;
    let no_asm = is_set(set, SetRole::PlainC);
    let suites: &[&str] = if no_asm { &["paths"] } else { PATH_SUITES };
    if no_asm {
        println!("set {set}: no asm reads OPENSSL_ia32cap, so each mask runs the paths test alone");
    }
    let suites: Vec<&str> = suites.iter().flat_map(|t| ["--test", t]).collect();
    for path in arch.code_paths() {
        let suites = &suites;
        let name = path.name;
        if let Some(feature) = path.missing_cpu_feature() {
            println!("skipped: {name}: this CPU lacks {feature}");
            continue;
        }
        let mut cmd = cmd!(sh, "{cargo} test -p crypto-sys {features...} {suites...}")
            .env(EXPECT_PATH_VAR, name);
        cmd = match path.cap {
            Some(mask) => cmd.env(IA32CAP.env, mask),
            None => cmd.env_remove(IA32CAP.env),
        };
        let shown = path.cap.unwrap_or("(unset)");
        println!("known-answer tests, set {set}, {name} path ({}={shown})", IA32CAP.env);
        cmd.run().with_context(|| format!("known answers with set {set} on the {name} path"))?;
    }
    Ok(())
}

/// Builds and tests crypto-sys with one real toolchain: the plan, exactly one warning line
/// when anything was downgraded (none otherwise), and the known-answer tests.
fn toolchain(sh: &Shell, cargo: &str, row: &Row) -> Result<()> {
    if which::which(row.cc).is_err() {
        bail!("{} is not installed: apt-get install {} (.ci/install does)", row.cc, row.package);
    }
    let _cc = sh.push_env("CC", row.cc);
    let _expect = sh.push_env(EXPECT_VAR, row.downgraded.join(","));
    let _variant = sh.push_env(EXPECT_C_VARIANT_VAR, row.c_variant);
    // CC differs from the previous step's, so the build script reruns and warns afresh.
    let features: &[&str] = &[row.cargo_features(), &super::line_features()].concat();
    let out = cmd!(sh, "{cargo} build -p crypto-sys {features...}").ignore_status().output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        bail!("build failed:\n{stderr}");
    }
    let warnings: Vec<&str> =
        stderr.lines().filter(|l| l.starts_with("warning: crypto-sys")).collect();
    let want = usize::from(!row.downgraded.is_empty());
    if warnings.len() != want {
        bail!(
            "expected {want} warning line(s) from crypto-sys, got {}: {warnings:?}",
            warnings.len()
        );
    }
    for w in &warnings {
        println!("{w}");
    }
    cmd!(sh, "{cargo} test -p crypto-sys {features...} {WITH_EXPECTATIONS...}").run()?;
    let no_legacy = (!row.legacy).then_some("--no-legacy");
    let line = super::line_args();
    cmd!(sh, "{cargo} xtask verify {no_legacy...} {line...}").run()?;
    Ok(())
}

/// no_asm's C configuration, compiled once, by a compiler that fails the C variant's probe:
/// the build also shows OpenSSL's default C configuration.
pub fn no_asm(sh: &Shell, cargo: &str) -> Result<()> {
    let _env = sh.push_env(ASM_SET_VAR, AsmSet::plain_c().name);
    let _variant = sh.push_env(EXPECT_C_VARIANT_VAR, NO_C_VARIANT);
    // Its verify also proves that none of the wide entry points is linked.
    c_probe_refused(sh, cargo).context("a C compiler that fails the __uint128_t probe")?;
    let _cc = sh.push_env("CC", crate::cargo::project_root().join(CC_WITHOUT_INT128));
    let _expect = sh.push_env(EXPECT_VAR, "");
    known_answers_on_every_path(sh, cargo, AsmSet::plain_c().name, &super::line_features())
}

/// The default C configuration, reported once, when the C compiler fails the variant's probe;
/// an error under --strict. Its build must pass every crypto-sys test.
fn c_probe_refused(sh: &Shell, cargo: &str) -> Result<()> {
    let cc = crate::cargo::project_root().join(CC_WITHOUT_INT128);
    let _cc = sh.push_env("CC", &cc);
    let (line, features): (&[&str], &[&str]) = (&super::line_args(), &super::line_features());
    let json = "--message-format=json-render-diagnostics";
    let out =
        cmd!(sh, "{cargo} build -p crypto-sys {features...} {json}").ignore_status().output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warnings: Vec<&str> =
        stderr.lines().filter(|l| l.starts_with("warning: crypto-sys")).collect();
    if !out.status.success() || warnings.len() != 1 {
        bail!("expected a build with one warning line:\n{stderr}");
    }
    println!("{}", warnings[0]);
    let messages = String::from_utf8_lossy(&out.stdout);
    let out_dir = messages.lines().find_map(crate::cargo::crypto_sys_out_dir);
    let facts = BuildFacts::read(&out_dir.context("cargo reported no build-script run")?)?;
    ensure!(
        facts.is_default_c() && facts.c_variant_refused.as_deref() == Some(NISTP),
        "expected OpenSSL's default C configuration, {NISTP} refused; the build's facts say C {} \
         (refused: {:?})",
        facts.c_variant_name(),
        facts.c_variant_refused
    );
    {
        let _expect = sh.push_env(EXPECT_VAR, "");
        let _variant = sh.push_env(EXPECT_C_VARIANT_VAR, NO_C_VARIANT);
        cmd!(sh, "{cargo} test -p crypto-sys {features...} {WITH_EXPECTATIONS...}").run()?;
    }
    cmd!(sh, "{cargo} xtask verify {line...}").run()?;
    let out = cmd!(sh, "{cargo} xtask build --strict {line...}").ignore_status().output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.success() || !stderr.contains("strict mode: C variant") {
        bail!("--strict must refuse the default C configuration:\n{stderr}");
    }
    Ok(())
}
