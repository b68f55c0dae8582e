//! `cargo xtask test`: every check CI runs, in one command.

mod aarch64;
mod apps;
mod assembled;
mod consumers;
mod driver_paths;
mod repro;
mod sanitize;
mod windows;

use crate::flags::Test;
use crate::matrix::Row;
use anyhow::{bail, ensure, Context, Result};
use crypto_build::config::ASM_SET_VAR;
use crypto_build::data::{C_VARIANTS, X86_64_CODE_PATHS};
use std::process::Stdio;
use xshell::{cmd, Shell};

/// Tells crypto-sys's tests which downgrades the toolchain table expects.
pub const EXPECT_VAR: &str = "CRYPTO_SYS_EXPECT_DOWNGRADED";
/// Tells crypto-sys's tests/paths.rs which code-path row OPENSSL_ia32cap holds the mask of.
const EXPECT_PATH_VAR: &str = "CRYPTO_SYS_EXPECT_PATH";
/// The suites run on every code path: known answers, the proof that the mask took, and the
/// digests that every path and set must share.
const PATH_SUITES: &[&str] = &["kat", "api", "wycheproof", "paths", "across_paths"];

/// Tells crypto-sys's tests which C variant the build must have taken.
const EXPECT_C_VARIANT_VAR: &str = "CRYPTO_SYS_EXPECT_C_VARIANT";

/// gcc whose C variant probes fail (no `__uint128_t`); shared with xtask/tests/detect.rs.
const CC_WITHOUT_INT128: &str = "xtask/tests/fixtures/cc-without-int128";

impl Test {
    pub fn run(self, sh: &Shell) -> Result<()> {
        if self.sanitize {
            return sanitize::run(sh).context("the sanitizer step");
        }
        if self.assembled {
            return assembled::run().context("the assembled-only rows");
        }
        let cargo = crate::cargo::cargo();
        let cargo = cargo.as_str();
        let mut steps = Steps::default();
        steps.run("fmt and clippy", || {
            cmd!(sh, "{cargo} fmt --all -- --check").run().context("cargo fmt --check")?;
            cmd!(sh, "{cargo} clippy --workspace --all-targets -- -D warnings")
                .run()
                .context("clippy")
        })?;
        steps.run("sets against generate.lock", every_set_matches_the_lock)?;
        let default_row = Row::host().next().expect("a host toolchain row");
        let _variant = sh.push_env(EXPECT_C_VARIANT_VAR, expected_variant(default_row));
        steps.run("workspace tests", || {
            let _expect = sh.push_env(EXPECT_VAR, default_row.downgraded.join(","));
            cmd!(sh, "{cargo} test --workspace").run().context("workspace tests")
        })?;
        steps.run("set auto: verify, every code path", || {
            cmd!(sh, "{cargo} xtask verify").run()?;
            known_answers_on_every_path(sh, cargo, "auto")
        })?;
        steps.run("set asm_avx2: tests, verify, every code path", || {
            let _env = sh.push_env(ASM_SET_VAR, "asm_avx2");
            let _expect = sh.push_env(EXPECT_VAR, "");
            cmd!(sh, "{cargo} test -p crypto-sys")
                .run()
                .context("crypto-sys tests with the asm_avx2 set")?;
            // The wide entry points are stubs.
            cmd!(sh, "{cargo} xtask verify").run().context("verify, set asm_avx2")?;
            known_answers_on_every_path(sh, cargo, "asm_avx2")
        })?;
        steps.run("set no_asm, C probe refused: tests, verify, every code path", || {
            no_asm_step(sh, cargo)
        })?;
        steps.run("other toolchains", || {
            for row in Row::host().skip(1).filter(|r| r.runs_rust_tests()) {
                toolchain(sh, cargo, row)
                    .with_context(|| format!("crypto-sys with CC={}", row.cc))?;
            }
            cmd!(sh, "{cargo} xtask toolchains --check").run().map_err(Into::into)
        })?;
        drop(_variant);
        steps.run(
            "prefix: openssl-sys, pkg-config, CMake, bin/openssl and the C driver",
            || {
                prefix_consumer(sh, cargo)
                    .context("openssl-sys against `cargo xtask build --prefix`")?;
                let prefix = crate::cargo::project_root().join("target/prefix");
                consumers::run(sh, &prefix).context("C build systems against the prefix")?;
                apps::run(&prefix).context("the prefix's bin/openssl")?;
                driver_paths::native_step(sh, &crate::cargo::project_root().join("target/prefix"))
            },
        )?;
        steps.run("sanitizers", || sanitize::run(sh).context("the sanitizer step"))?;
        steps.run("Windows under wine", || {
            windows::run(sh, cargo, windows::Matrix::Ci).context("x86_64-pc-windows-gnu under wine")
        })?;
        steps.run("aarch64 under qemu: gcc and clang-19, asm on every armcap path", || {
            aarch64::run(sh, aarch64::Matrix::Ci).context("aarch64 Linux under qemu")
        })?;
        steps.run(
            "assembled only: VC-WIN64A, mingw64, linux by clang-16, macOS x86_64 and arm64",
            || assembled::run().context("the rows that are only assembled"),
        )?;
        steps.run(
            "package at another path: no perl, debug and release at once, same bytes",
            || package_consumer(sh, cargo).context("crypto-sys from its .crate, without perl"),
        )?;
        steps.run("sccache", || sccache_build(sh, cargo).context("RUSTC_WRAPPER=sccache"))?;
        steps.report();
        println!("cargo xtask test: all checks passed");
        Ok(())
    }
}

/// How long each step took, printed as it ends and again at the end, so that CI's time budget
/// can be read from one run's log.
#[derive(Default)]
struct Steps(Vec<(String, std::time::Duration)>);

impl Steps {
    fn run(&mut self, name: &str, step: impl FnOnce() -> Result<()>) -> Result<()> {
        let started = std::time::Instant::now();
        let result = step();
        let took = started.elapsed();
        let outcome = if result.is_ok() { "done" } else { "FAILED" };
        println!("step `{name}`: {outcome} in {:.0} s", took.as_secs_f64());
        self.0.push((name.to_string(), took));
        result
    }

    fn report(&self) {
        let total: std::time::Duration = self.0.iter().map(|(_, d)| *d).sum();
        println!("cargo xtask test: {:.0} s in all", total.as_secs_f64());
        for (name, took) in &self.0 {
            println!("  {:>6.0} s  {name}", took.as_secs_f64());
        }
    }
}

/// Every configuration of every target, generated where missing (a fresh clone has only
/// what `cargo xtask build` needed) and equal to the committed generate.lock.
fn every_set_matches_the_lock() -> Result<()> {
    use crypto_build::data::{SETS, TARGETS};
    use crypto_build::generate::{self, Config};
    let targets: Vec<_> = TARGETS.iter().collect();
    let sets: Vec<_> = SETS.iter().collect();
    let configs = Config::expand(&targets, &sets);
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let progress = crate::progress::generation;
    generate::ensure_all(&crate::cargo::project_root(), &configs, jobs, Some(&progress))
        .context("the generated sets against generate.lock")?;
    println!("sets: all {} configurations match generate.lock", configs.len());
    Ok(())
}

fn expected_variant(row: &crate::matrix::Row) -> &'static str {
    if row.c_variant.is_empty() {
        "none"
    } else {
        row.c_variant
    }
}

/// The known-answer suites on each code path of the table, with the set already in the env;
/// a path this CPU cannot run is skipped with one line naming the missing feature.
fn known_answers_on_every_path(sh: &Shell, cargo: &str, set: &str) -> Result<()> {
    let suites: Vec<&str> = PATH_SUITES.iter().flat_map(|t| ["--test", t]).collect();
    for path in X86_64_CODE_PATHS {
        let suites = &suites;
        let name = path.name;
        if let Some(feature) = path.missing_cpu_feature() {
            println!("skipped: {name}: this CPU lacks {feature}");
            continue;
        }
        let mut cmd = cmd!(sh, "{cargo} test -p crypto-sys {suites...}").env(EXPECT_PATH_VAR, name);
        cmd = match path.ia32cap {
            Some(mask) => cmd.env("OPENSSL_ia32cap", mask),
            None => cmd.env_remove("OPENSSL_ia32cap"),
        };
        let shown = path.ia32cap.unwrap_or("(unset)");
        println!("known-answer tests, set {set}, {name} path (OPENSSL_ia32cap={shown})");
        cmd.run().with_context(|| format!("known answers with set {set} on the {name} path"))?;
    }
    Ok(())
}

/// Builds and tests crypto-sys with one real toolchain: the plan, exactly one warning line
/// when anything was downgraded (none otherwise), and the known-answer tests.
fn toolchain(sh: &Shell, cargo: &str, row: &crate::matrix::Row) -> Result<()> {
    if which::which(row.cc).is_err() {
        bail!("{} is not installed; .ci/run installs it", row.cc);
    }
    let _cc = sh.push_env("CC", row.cc);
    let _expect = sh.push_env(EXPECT_VAR, row.downgraded.join(","));
    let _variant = sh.push_env(EXPECT_C_VARIANT_VAR, expected_variant(row));
    // CC differs from the previous step's, so the build script reruns and warns afresh.
    let features = row.cargo_features();
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
    cmd!(sh, "{cargo} test -p crypto-sys {features...}").run()?;
    let no_legacy = (!features.is_empty()).then_some("--no-legacy");
    cmd!(sh, "{cargo} xtask verify {no_legacy...}").run()?;
    Ok(())
}

/// no_asm's C configuration, compiled once, by a compiler that fails the C variant's probe:
/// the build also shows OpenSSL's default C configuration.
fn no_asm_step(sh: &Shell, cargo: &str) -> Result<()> {
    let _env = sh.push_env(ASM_SET_VAR, "no_asm");
    let _variant = sh.push_env(EXPECT_C_VARIANT_VAR, "none");
    // Its verify also proves that none of the wide entry points is linked.
    c_probe_refused(sh, cargo).context("a C compiler that fails the __uint128_t probe")?;
    let _cc = sh.push_env("CC", crate::cargo::project_root().join(CC_WITHOUT_INT128));
    let _expect = sh.push_env(EXPECT_VAR, "");
    known_answers_on_every_path(sh, cargo, "no_asm")
}

/// The default C configuration, reported once, when the C compiler fails the variant's probe;
/// an error under --strict. Its build must pass every crypto-sys test.
fn c_probe_refused(sh: &Shell, cargo: &str) -> Result<()> {
    let cc = crate::cargo::project_root().join(CC_WITHOUT_INT128);
    let _cc = sh.push_env("CC", &cc);
    let out = cmd!(sh, "{cargo} build -p crypto-sys").ignore_status().output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warnings: Vec<&str> =
        stderr.lines().filter(|l| l.starts_with("warning: crypto-sys")).collect();
    let expected = format!("C variant `{}` off", C_VARIANTS[0].name);
    if !out.status.success() || warnings.len() != 1 || !warnings[0].contains(&expected) {
        bail!("expected a build with one warning line saying `{expected}`:\n{stderr}");
    }
    println!("{}", warnings[0]);
    {
        let _expect = sh.push_env(EXPECT_VAR, "");
        let _variant = sh.push_env(EXPECT_C_VARIANT_VAR, "none");
        cmd!(sh, "{cargo} test -p crypto-sys").run()?;
    }
    cmd!(sh, "{cargo} xtask verify").run()?;
    let out = cmd!(sh, "{cargo} xtask build --strict").ignore_status().output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.success() || !stderr.contains("strict mode: C variant") {
        bail!("--strict must refuse the default C configuration:\n{stderr}");
    }
    Ok(())
}

/// Installs a prefix and builds a small openssl-sys program against it, statically: found
/// through OPENSSL_DIR, then through PKG_CONFIG_PATH alone, as openssl-sys's users point it.
fn prefix_consumer(sh: &Shell, cargo: &str) -> Result<()> {
    let root = crate::cargo::project_root();
    let prefix = root.join("target/prefix");
    cmd!(sh, "{cargo} xtask build --prefix {prefix} --apps").run()?;
    let _static = sh.push_env("OPENSSL_STATIC", "1");
    let manifest = root.join("xtask/tests/prefix-consumer/Cargo.toml");
    let target_dir = root.join("target/prefix-consumer");
    let pkgconfig = prefix.join("lib/pkgconfig");
    for (var, value) in [("OPENSSL_DIR", &prefix), ("PKG_CONFIG_PATH", &pkgconfig)] {
        let _found = sh.push_env(var, value);
        // openssl-sys's build script reruns only when the variables change, not the
        // libraries: a rerun must link the prefix just installed.
        cmd!(
            sh,
            "{cargo} clean -p openssl-sys --manifest-path {manifest} --target-dir {target_dir}"
        )
        .run()?;
        cmd!(sh, "{cargo} run --manifest-path {manifest} --target-dir {target_dir}")
            .run()
            .with_context(|| format!("openssl-sys finding the prefix through {var}"))?;
    }
    Ok(())
}

/// Unpacks the `.crate` files of `cargo xtask package` and builds a consumer from them with
/// perl absent from PATH, in debug and release at once: both must give this workspace's
/// prefix's libraries, byte for byte (see `repro`). A package stripped of its lock or sets
/// must fail with one clear line.
fn package_consumer(sh: &Shell, cargo: &str) -> Result<()> {
    let root = crate::cargo::project_root();
    cmd!(sh, "{cargo} xtask package").run()?;
    let work = root.join("target/package-test");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work)?;
    for krate in crate::cargo::crates(&root) {
        cmd!(sh, "tar -xzf {krate} -C {work}").run()?;
    }
    crypto_build::generate::copy_tree(
        &root.join("xtask/tests/package-consumer"),
        &work.join("consumer"),
    )?;
    let path = path_without_perl(&work.join("bin"))?;
    let _path = sh.push_env("PATH", &path);
    if which::which_in("perl", Some(&path), &root).is_ok() {
        bail!("perl is still on the PATH built for this test");
    }
    let manifest = work.join("consumer/Cargo.toml");
    let target_dir = work.join("target");
    repro::Race {
        project: &work.join("consumer"),
        target_dir: &target_dir,
        args: &["run"],
        path: &path,
        reference: &root.join("target/prefix"),
    }
    .run(cargo)?;

    // The build reads the lock the package carries: without it, or without the sets, it fails.
    let sets = work.join(format!("crypto-sys-{}/sets", env!("CARGO_PKG_VERSION")));
    std::fs::remove_file(sets.join(crypto_build::generate::lock::FILE_NAME))?;
    let stderr = failed_build(sh, cargo, &manifest, &target_dir)?;
    if !stderr.contains("no generate.lock") {
        bail!("a package without its generate.lock must fail clearly:\n{stderr}");
    }
    std::fs::remove_dir_all(&sets)?;
    let stderr = failed_build(sh, cargo, &manifest, &target_dir)?;
    if !stderr.contains("carries no pre-generated asm sets") {
        bail!("a package without its sets must fail clearly:\n{stderr}");
    }
    Ok(())
}

/// A build that must fail; its standard error.
fn failed_build(
    sh: &Shell,
    cargo: &str,
    manifest: &std::path::Path,
    target_dir: &std::path::Path,
) -> Result<String> {
    let out = cmd!(sh, "{cargo} build --manifest-path {manifest} --target-dir {target_dir}")
        .ignore_status()
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if out.status.success() {
        bail!("the build should have failed:\n{stderr}");
    }
    Ok(stderr)
}

/// A PATH of symlinks to every program on the current PATH except perl.
fn path_without_perl(bin: &std::path::Path) -> Result<String> {
    std::fs::create_dir_all(bin)?;
    let path = std::env::var("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let name = e.file_name();
            let link = bin.join(&name);
            if name.to_string_lossy().starts_with("perl") || link.exists() {
                continue;
            }
            let _ = std::os::unix::fs::symlink(e.path(), link);
        }
    }
    Ok(bin.display().to_string())
}

/// With RUSTC_WRAPPER=sccache, cc must route OpenSSL's C through sccache too. A separate
/// target directory gets this workspace's cached objects of the prefix's libcrypto, but none
/// of libssl's, so exactly libssl's units compile, and sccache must see each of them.
fn sccache_build(sh: &Shell, cargo: &str) -> Result<()> {
    let root = crate::cargo::project_root();
    let target_dir = root.join("target/sccache");
    let objcache = target_dir.join("crypto-sys-objcache");
    if objcache.exists() {
        std::fs::remove_dir_all(&objcache)
            .with_context(|| format!("removing {}", objcache.display()))?;
    }
    std::fs::create_dir_all(&objcache)?;
    // cargo tags only a target directory it creates; crypto-sys looks for the tag to place
    // its cache, and would otherwise climb to this workspace's.
    std::fs::write(
        target_dir.join("CACHEDIR.TAG"),
        "Signature: 8a477f597d28d172789f06886806bc55\n",
    )?;
    let cached = |lib: &str| -> Result<Vec<String>> {
        let data = std::fs::read(root.join("target/prefix/lib").join(lib))?;
        let members = repro::members(&data)?;
        Ok(members.into_iter().map(|m| m.name).filter(|n| n.ends_with(".o")).collect())
    };
    for key in cached("libcrypto.a")? {
        let from = root.join("target/crypto-sys-objcache").join(&key);
        std::fs::copy(&from, objcache.join(&key))
            .with_context(|| format!("seeding the cache with {}", from.display()))?;
    }
    let ssl_units = cached("libssl.a")?.len() as u64;
    ensure!(ssl_units > 50, "libssl.a has only {ssl_units} objects");
    let sccache = Sccache::start(sh)?;
    let _wrapper = sh.push_env("RUSTC_WRAPPER", "sccache");
    cmd!(sh, "{cargo} clean -p crypto-sys --target-dir {target_dir}").run()?;
    cmd!(sh, "{cargo} build -p crypto-sys --target-dir {target_dir}").run()?;
    let (c_compiles, stats) = sccache.c_compiles(sh)?;
    ensure!(
        c_compiles >= ssl_units,
        "sccache saw {c_compiles} C compilations, but libssl's {ssl_units} units were compiled: \
         cc did not route them through RUSTC_WRAPPER=sccache:\n{stats}"
    );
    println!("sccache handled {c_compiles} C compilations (libssl's {ssl_units} units)");
    Ok(())
}

/// An sccache server of its own, its statistics zeroed; stopped on drop.
struct Sccache;

impl Sccache {
    fn start(sh: &Shell) -> Result<Sccache> {
        ensure!(which::which("sccache").is_ok(), "sccache is not installed; .ci/run installs it");
        let _ = cmd!(sh, "sccache --stop-server").quiet().ignore_status().ignore_stderr().run();
        cmd!(sh, "sccache --start-server").run()?;
        cmd!(sh, "sccache --zero-stats").quiet().run()?;
        Ok(Sccache)
    }

    /// C compilations sccache handled (hits and misses, so a warm sccache counts too), and
    /// its statistics for messages.
    fn c_compiles(&self, sh: &Shell) -> Result<(u64, String)> {
        let stats = cmd!(sh, "sccache --show-stats").read()?;
        let n = stats
            .lines()
            .filter(|l| {
                l.contains("(C/C++)")
                    && (l.starts_with("Cache hits") || l.starts_with("Cache misses"))
            })
            .filter_map(|l| l.split_whitespace().last()?.parse::<u64>().ok())
            .sum();
        Ok((n, stats))
    }
}

impl Drop for Sccache {
    fn drop(&mut self) {
        let _ = std::process::Command::new("sccache")
            .arg("--stop-server")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// For the ignored tests that run one step of `cargo xtask test` alone: a shell in the
/// workspace, and the cargo to run.
#[cfg(test)]
pub fn step_shell() -> (xshell::Shell, String) {
    let sh = xshell::Shell::new().unwrap();
    sh.change_dir(crate::cargo::project_root());
    (sh, crate::cargo::cargo())
}

#[cfg(test)]
mod tests {
    /// The package step on its own, after `cargo xtask build --prefix target/prefix`:
    /// `cargo test -p xtask -- --ignored package_step`.
    #[test]
    #[ignore = "builds OpenSSL from the .crate, debug and release at once; cargo xtask test runs it"]
    fn package_step() {
        let (sh, cargo) = super::step_shell();
        super::package_consumer(&sh, &cargo).unwrap();
    }

    /// The sccache step on its own, after `cargo xtask build --prefix target/prefix`; twice, as
    /// two runs of `cargo xtask test` do: `cargo test -p xtask -- --ignored sccache_step`.
    #[test]
    #[ignore = "compiles libssl through sccache twice; cargo xtask test runs it once"]
    fn sccache_step_twice() {
        let (sh, cargo) = super::step_shell();
        for _ in 0..2 {
            super::sccache_build(&sh, &cargo).unwrap();
        }
    }

    /// The prefix's consumers on their own: `cargo test -p xtask -- --ignored prefix_step`.
    #[test]
    #[ignore = "installs a prefix and builds openssl-sys and C programs against it"]
    fn prefix_step() {
        let (sh, cargo) = super::step_shell();
        super::prefix_consumer(&sh, &cargo).unwrap();
        super::consumers::run(&sh, &crate::cargo::project_root().join("target/prefix")).unwrap();
        super::apps::run(&crate::cargo::project_root().join("target/prefix")).unwrap();
    }

    /// The no_asm step on its own: `cargo test -p xtask -- --ignored no_asm_step`.
    #[test]
    #[ignore = "builds OpenSSL's no_asm configuration; cargo xtask test runs it"]
    fn no_asm_step() {
        let (sh, cargo) = super::step_shell();
        super::no_asm_step(&sh, &cargo).unwrap();
    }
}
