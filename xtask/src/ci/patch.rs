//! The `patch` step: projects outside the workspace on openssl-sys's `vendored` feature, switched
//! to crypto-sys's build by one `[patch.crates-io] openssl-src` entry: through a path, a
//! `file://` git repository, and the packaged crates with no perl on PATH; crypto-sys beside
//! them in one binary; and the patch's `Build` for aarch64, whose prefix the C driver checks
//! under qemu. Every build shares the workspace's target directory, so its object cache.

use crate::cargo::project_root;
use anyhow::{bail, ensure, Context, Result};
use crypto_build::config::OPENSSL_LINE_VAR;
use crypto_build::data::{AsmSet, OpensslLine};
use crypto_build::facts::BuildFacts;
use std::fs;
use std::path::{Path, PathBuf};
use xshell::{cmd, Shell};

const CONSUMER: &str = "xtask/tests/patch-consumer";
const BOTH: &str = "xtask/tests/patch-both";
const CROSS: &str = "xtask/tests/patch-cross";
const WORK: &str = "target/patch-test";
const LINES_WORK: &str = "target/patch-lines-test";
/// Where each step unpacks the packaged crates: beside its projects, never inside one. cargo
/// names a path dependency inside a project by its path relative to it, so the same relative
/// path from two steps' projects would share compiled crates in the one target directory, each
/// with the other's directory compiled in (`env!("CARGO_MANIFEST_DIR")`, seen here: a 3.5 build
/// read the `patch` step's unpacked sets).
const CRATES: &str = "crates";

/// A scratch project: the consumer's manifest, with these lines added.
struct Project<'a> {
    name: &'a str,
    /// Where it is written: `<work>/<name>`.
    work: &'a Path,
    /// `[dependencies]` lines beyond `openssl`'s.
    deps: Vec<String>,
    /// `[build-dependencies]` lines: the patch's feature is turned on there, beside
    /// openssl-sys's build-dependency on openssl-src (cargo resolves a build-dependency's
    /// features apart from a normal dependency's).
    build_deps: Vec<String>,
    /// `[patch.crates-io]` lines: the switch a user makes.
    patches: Vec<String>,
    /// The source of `src/`.
    src: &'a str,
}

pub fn run(sh: &Shell, cargo: &str) -> Result<()> {
    let root = project_root();
    let work = fresh(&root.join(WORK))?;
    // The default line's sets only: the other lines' are `patch-lines`'s.
    let line = crypto_build::data::DEFAULT_LINE;
    let name = line.name();
    cmd!(sh, "{cargo} xtask package --openssl {name}").run()?;
    let unpacked = work.join(CRATES);
    crate::cargo::unpack_crates(sh, &root, &unpacked)?;
    projects(sh, cargo, (&work, &unpacked), line, None)?;
    bad_input(sh, cargo, &work.join("path"))?;
    let patch = root.join("openssl-src");
    one_openssl(sh, cargo, &root, &patch, line)?;
    cross(sh, cargo, &root, &patch)
}

/// The `patch-lines` step (`--full`): each other line through the patch, chosen by its feature
/// (through a path, a `file://` git repository, the packaged crates of every line without
/// perl, and beside crypto-sys on the same line) and by [`OPENSSL_LINE_VAR`] alone; and
/// crypto-sys on it from the packaged crates, without perl.
pub fn lines(sh: &Shell, cargo: &str) -> Result<()> {
    let root = project_root();
    let work = fresh(&root.join(LINES_WORK))?;
    cmd!(sh, "{cargo} xtask package").run()?;
    let unpacked = work.join(CRATES);
    crate::cargo::unpack_crates(sh, &root, &unpacked)?;
    for line in crypto_build::data::OPENSSL_LINES.iter().filter(|l| !l.is_default()) {
        let feature = line.feature().context("another line has a feature")?;
        projects(sh, cargo, (&work, &unpacked), line, Some(&feature))?;
        let path = |p: &Path| format!("{{ path = {:?} }}", p.display().to_string());
        let by_var = Project {
            name: "path-variable",
            work: &work,
            deps: vec![],
            build_deps: vec![],
            patches: vec![format!("openssl-src = {}", path(&root.join("openssl-src")))],
            src: CONSUMER,
        };
        check_consumer(sh, cargo, (&by_var, line), &[(OPENSSL_LINE_VAR, line.name())])?;
        one_openssl(sh, cargo, &root, &root.join("openssl-src"), line)?;
        packaged_crypto_sys(sh, cargo, &unpacked, line)?;
    }
    Ok(())
}

/// `dir`, emptied.
fn fresh(dir: &Path) -> Result<PathBuf> {
    if dir.exists() {
        fs::remove_dir_all(dir).with_context(|| format!("removing {}", dir.display()))?;
    }
    fs::create_dir_all(dir)?;
    Ok(dir.to_path_buf())
}

/// The consumer on `line` through the patch by a path, by a `file://` git repository of the
/// workspace, and from the packaged crates in `unpacked` with no perl on PATH; `feature`, the
/// patch's feature that chooses the line ([`feature_dep`]).
fn projects(
    sh: &Shell,
    cargo: &str,
    (work, unpacked): (&Path, &Path),
    line: &OpensslLine,
    feature: Option<&str>,
) -> Result<()> {
    let root = project_root();
    let path = |p: &Path| format!("{{ path = {:?} }}", p.display().to_string());
    let build_deps: Vec<String> = feature.map(feature_dep).into_iter().collect();
    let project = |name, patches| Project {
        name,
        work,
        deps: vec![],
        build_deps: build_deps.clone(),
        patches,
        src: CONSUMER,
    };
    let patch = format!("openssl-src = {}", path(&root.join("openssl-src")));
    check_consumer(sh, cargo, (&project("path", vec![patch]), line), &[])?;
    let repo = git_repo(sh, &root, &work.join("repo"))?;
    let url = format!("file://{}", repo.display());
    // A checkout has no source crate's tree: its build makes the line's from the registry's
    // openssl-src, through crypto-gen.
    let git = vec![format!("openssl-src = {{ git = {url:?} }}")];
    check_consumer(sh, cargo, (&project("git", git), line), &[])?;
    let no_perl = super::package::path_without_perl(&work.join("bin"))?;
    let patch = unpacked.join(format!("openssl-src-{}", crate::cargo::PATCH_VERSION));
    let mut patches = vec![format!("openssl-src = {}", path(&patch))];
    patches.extend(crate::cargo::unpacked_patches(unpacked));
    let packaged = project("packaged", patches);
    check_consumer(sh, cargo, (&packaged, line), &[("PATH", no_perl.as_str())])?;
    Ok(())
}

/// The line a user asks the patch for: openssl-src named among the project's
/// build-dependencies with the patch's feature `feature` (a `[patch]` entry cannot turn one on).
fn feature_dep(feature: &str) -> String {
    format!("openssl-src = {{ version = \"300\", features = [\"{feature}\"] }}")
}

/// crypto-sys on `line` (its feature) from the crates unpacked in `unpacked`, with no perl on
/// PATH: the package consumer, its asm as many files as the workspace's own build of the line.
fn packaged_crypto_sys(sh: &Shell, cargo: &str, unpacked: &Path, line: &OpensslLine) -> Result<()> {
    let root = project_root();
    let prefix = root.join(LINES_WORK).join(format!("prefix-{}", line.name()));
    let name = line.name();
    cmd!(sh, "{cargo} xtask build --openssl {name} --prefix {prefix}").run()?;
    let expect = crate::prefix::facts(&prefix)?.asm_files.len().to_string();
    let dir = super::package::consumer(&root, unpacked)?;
    let (manifest, target_dir) = (dir.join("Cargo.toml"), root.join("target"));
    let feature = format!("crypto-sys/{}", line.feature().context("another line")?);
    let no_perl = super::package::path_without_perl(&unpacked.join("bin"))?;
    let out = cmd!(
        sh,
        "{cargo} run --manifest-path {manifest} --target-dir {target_dir} --features {feature}"
    )
    .env("PATH", no_perl)
    .env("CRYPTO_SYS_EXPECT_ASM_FILES", expect)
    .read()
    .with_context(|| format!("the packaged crypto-sys on OpenSSL {}", line.version))?;
    let want = format!("package consumer: OpenSSL {} (", line.version);
    ensure!(out.contains(&want), "expected `{want}` in:\n{out}");
    println!("patch-lines (crypto-sys, packaged, no perl): {}", out.trim());
    Ok(())
}

/// The project in `WORK/<name>`, built and run: its version line names the OpenSSL release,
/// and its platform line the set and assembler the build's facts record; TLS 1.3 passed.
fn check_consumer(
    sh: &Shell,
    cargo: &str,
    (p, line): (&Project, &OpensslLine),
    env: &[(&str, &str)],
) -> Result<BuildFacts> {
    let dir = write_project(p)?;
    // A user's graph holds one OpenSSL tree per line and no generator, however the patch comes.
    crate::graph::check_user_graph(cargo, &dir.join("Cargo.toml"), None, line)
        .with_context(|| format!("the `{}` project", p.name))?;
    let (out_dir, stdout) =
        build_and_run(sh, cargo, &dir, env).with_context(|| format!("the `{}` project", p.name))?;
    let facts = BuildFacts::read(&out_dir.join("openssl-build"))
        .context("openssl-sys's build ran no crypto-sys pipeline: the patch was not used")?;
    let platform = format!(
        "crypto-sys: set {} requested {}, {}",
        facts.effective_set, facts.requested_set, facts.assembler_kind
    );
    ensure!(
        facts.openssl_version == line.version,
        "{}: the patch built OpenSSL {}, not {}",
        p.name,
        facts.openssl_version,
        line.version
    );
    let version = format!("version: OpenSSL {} ", facts.openssl_version);
    ensure!(stdout.contains(&version), "{}: expected `{version}` in:\n{stdout}", p.name);
    ensure!(stdout.contains(&platform), "{}: expected `{platform}` in:\n{stdout}", p.name);
    ensure!(stdout.contains("tls: TLSv1.3 "), "{}: no TLS 1.3 handshake in:\n{stdout}", p.name);
    let lines = stdout.lines().collect::<Vec<_>>().join(" | ");
    println!("patch ({}, OpenSSL {}): {lines}", p.name, line.version);
    Ok(facts)
}

fn write_project(p: &Project) -> Result<PathBuf> {
    let root = project_root();
    let dir = p.work.join(p.name);
    crypto_build::files::copy_tree(&root.join(p.src).join("src"), &dir.join("src"))?;
    let mut manifest = fs::read_to_string(root.join(CONSUMER).join("Cargo.toml"))?;
    for dep in &p.deps {
        manifest.push_str(&format!("{dep}\n"));
    }
    if !p.build_deps.is_empty() {
        manifest.push_str("\n[build-dependencies]\n");
        for dep in &p.build_deps {
            manifest.push_str(&format!("{dep}\n"));
        }
    }
    manifest.push_str("\n[patch.crates-io]\n");
    for line in &p.patches {
        manifest.push_str(&format!("{line}\n"));
    }
    fs::write(dir.join("Cargo.toml"), manifest)?;
    Ok(dir)
}

/// Builds the project in the workspace's target directory and runs it: openssl-sys's OUT_DIR
/// and the program's standard output.
fn build_and_run(
    sh: &Shell,
    cargo: &str,
    dir: &Path,
    env: &[(&str, &str)],
) -> Result<(PathBuf, String)> {
    let manifest = dir.join("Cargo.toml");
    let target_dir = project_root().join("target");
    let mut build = cmd!(
        sh,
        "{cargo} build --manifest-path {manifest} --target-dir {target_dir} --message-format=json-render-diagnostics"
    );
    for (k, v) in env {
        build = build.env(k, v);
    }
    let json = build.read().context("building it")?;
    let out_dir = json
        .lines()
        .find_map(|l| crate::cargo::build_script_out_dir(l, "openssl-sys"))
        .context("cargo reported no openssl-sys build script")?;
    let exe = target_dir.join("debug/patch-consumer");
    let stdout = cmd!(sh, "{exe}").read().with_context(|| format!("running {}", exe.display()))?;
    Ok((out_dir, stdout))
}

/// A git repository of the workspace's tracked files as they are now, with the host's
/// configurations of every line's sets committed too: a checkout that has generated them once
/// (a fresh one generates them with perl, minutes this step does not spend again). No source
/// crate's tree: a checkout's build makes the default line's from the registry's openssl-src.
fn git_repo(sh: &Shell, root: &Path, repo: &Path) -> Result<PathBuf> {
    copy_tracked(sh, root, repo)?;
    let host = crypto_build::data::target_for(crate::matrix::HOST)?.name;
    let sets = crypto_build::data::OPENSSL_LINES.iter().flat_map(|line| {
        let (from, to) = (line.root(root), line.root(repo));
        crypto_build::data::SETS.iter().map(move |set| (from.join(set.name), to.join(set.name)))
    });
    for (from, to) in sets {
        // A line's sets the run has not generated: the checkout generates them, as any would.
        let Ok(entries) = fs::read_dir(&from) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == host || name.starts_with(&format!("{host}+")) {
                crypto_build::files::copy_tree(&entry.path(), &to.join(&name))?;
            }
        }
    }
    let _dir = sh.push_dir(repo);
    cmd!(sh, "git init -q").run()?;
    cmd!(sh, "git add -A -f").run()?;
    cmd!(sh, "git -c user.name=xtask -c user.email=xtask@localhost commit -q -m snapshot").run()?;
    Ok(repo.to_path_buf())
}

/// The workspace's tracked files as they are now, copied to `to`.
pub(super) fn copy_tracked(sh: &Shell, root: &Path, to: &Path) -> Result<()> {
    let files = cmd!(sh, "git -C {root} ls-files -z").read()?;
    for f in files.split('\0').filter(|f| !f.is_empty() && root.join(f).is_file()) {
        let dest = to.join(f);
        fs::create_dir_all(dest.parent().context("a file's directory")?)?;
        fs::copy(root.join(f), &dest).with_context(|| format!("copying {f}"))?;
    }
    Ok(())
}

/// A malformed variable reaches the patched build as crypto-sys's does: refused in one line,
/// from openssl-sys's build script, before anything is compiled; so is a line the table lacks.
fn bad_input(sh: &Shell, cargo: &str, project: &Path) -> Result<()> {
    let manifest = project.join("Cargo.toml");
    let target_dir = project_root().join("target");
    let lines = crypto_build::config::Accepts::Line.values().join(", ");
    let cases = [
        (crypto_build::config::STRICT_VAR, "maybe", "`maybe` is not valid; accepted: ".to_string()),
        (OPENSSL_LINE_VAR, "9.9", format!("`9.9` is not valid; accepted: {lines}")),
    ];
    for (var, value, message) in cases {
        let out = cmd!(sh, "{cargo} build --manifest-path {manifest} --target-dir {target_dir}")
            .env(var, value)
            .ignore_status()
            .output()?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        // cargo shows it as openssl-sys's warning line, and in the build script's stderr.
        let want = format!("openssl-src (crypto-sys): {var}={message}");
        ensure!(!out.status.success(), "{var}={value} built:\n{stderr}");
        let warned =
            stderr.lines().any(|l| l.starts_with("warning: openssl-sys") && l.contains(&want));
        ensure!(warned, "expected openssl-sys's warning line `…{want}…` in:\n{stderr}");
        println!("patch: {var}={value} refused in one line");
    }
    Ok(())
}

/// crypto-sys and openssl-sys (through the patch) in one binary: both builds are one build,
/// the second one all from the object cache, their libcrypto.a the same bytes, so the linker
/// takes each object once, from either.
fn one_openssl(
    sh: &Shell,
    cargo: &str,
    root: &Path,
    patch: &Path,
    line: &OpensslLine,
) -> Result<()> {
    let krate = root.join("crypto-sys").display().to_string();
    // Another line: the same feature on both (crypto-sys's, and the patch's by naming it).
    let features = line.feature().map_or(String::new(), |f| format!(", features = [\"{f}\"]"));
    let deps = vec![format!("crypto-sys = {{ path = {krate:?}{features} }}")];
    let work = root.join(if line.is_default() { WORK } else { LINES_WORK });
    let p = Project {
        name: "both",
        work: &work,
        deps,
        build_deps: line.feature().as_deref().map(feature_dep).into_iter().collect(),
        patches: vec![format!("openssl-src = {{ path = {:?} }}", patch.display().to_string())],
        src: BOTH,
    };
    let dir = write_project(&p)?;
    let manifest = dir.join("Cargo.toml");
    let target_dir = root.join("target");
    let json = cmd!(
        sh,
        "{cargo} build --manifest-path {manifest} --target-dir {target_dir} --message-format=json-render-diagnostics"
    )
    .read()?;
    let out = |name| {
        json.lines()
            .find_map(|l| crate::cargo::build_script_out_dir(l, name))
            .with_context(|| format!("cargo reported no {name} build script"))
    };
    let ours = out("crypto-sys")?.join("lib/libcrypto.a");
    let theirs = out("openssl-sys")?.join("openssl-build/lib/libcrypto.a");
    let same = fs::read(&ours)? == fs::read(&theirs)?;
    ensure!(same, "{} and {} differ: two builds in one binary", ours.display(), theirs.display());
    let exe = target_dir.join("debug/patch-consumer");
    let stdout = cmd!(sh, "{exe}").read()?;
    ensure!(stdout.contains("both: ok"), "{stdout}");
    let size = fs::metadata(&exe)?.len() as f64 / 1e6;
    println!(
        "patch (crypto-sys beside it, OpenSSL {}): the plain libcrypto.a the same bytes, \
         crypto-sys's copy under its prefix, a {size:.1} MB binary | {}",
        line.version,
        stdout.replace('\n', " | ")
    );
    Ok(())
}

/// The patch's `Build` for aarch64 Linux from a host program, as openssl-sys's build script
/// calls it; the C driver checks the result under qemu on every armcap path.
fn cross(sh: &Shell, cargo: &str, root: &Path, patch: &Path) -> Result<()> {
    let triple = crypto_build::data::triples::AARCH64_LINUX;
    let row = crate::matrix::rows(crate::matrix::How::Qemu)
        .find(|r| r.target == triple && !r.cc.starts_with("clang"))
        .context("no gcc row for aarch64")?;
    let dir = root.join(WORK).join("cross");
    crypto_build::files::copy_tree(&root.join(CROSS), &dir)?;
    let manifest = dir.join("Cargo.toml");
    let mut text = fs::read_to_string(&manifest)?;
    // With `legacy`, as openssl-sys asks for it: the aarch64 step's build then, every object
    // from the cache when that step ran first (without it, 796 of 1079 units compiled again).
    let dep = format!("{{ path = {:?}, features = [\"legacy\"] }}", patch.display().to_string());
    text.push_str(&format!("openssl-src = {dep}\n"));
    fs::write(&manifest, text)?;
    let target_dir = root.join("target");
    let host = crate::cargo::host_triple(sh)?;
    let out = target_dir.join("patch-test-cross");
    let cc = format!("CC_{}", triple.replace('-', "_"));
    cmd!(
        sh,
        "{cargo} run --manifest-path {manifest} --target-dir {target_dir} -- {triple} {host} {out}"
    )
    .env(cc, row.cc)
    .run()
    .context("the patch's Build for aarch64")?;
    let facts = BuildFacts::read(&out)?;
    let asm = AsmSet::avx512().name;
    if facts.target != triple || facts.effective_set != asm || !facts.legacy_provider {
        bail!(
            "the aarch64 build took {} for {} (legacy provider: {}), expected {asm} with it",
            facts.effective_set,
            facts.target,
            facts.legacy_provider
        );
    }
    println!(
        "patch (aarch64): {} units, {} compiled (the rest from the aarch64 step's objects)",
        facts.units, facts.compiled
    );
    crate::prefix::write_pkg_config(&out, &out.join("lib/pkgconfig"))?;
    super::driver_paths::check_prefix(sh, &row.driver()?, &out)
}
