//! The `patch` step: projects outside the workspace on openssl-sys's `vendored` feature, switched
//! to crypto-sys's build by one `[patch.crates-io] openssl-src` entry: through a path, a
//! `file://` git repository, and the packaged crates with no perl on PATH; crypto-sys beside
//! them in one binary; and the patch's `Build` for aarch64, whose prefix the C driver checks
//! under qemu. Every build shares the workspace's target directory, so its object cache.

use crate::cargo::project_root;
use anyhow::{bail, ensure, Context, Result};
use crypto_build::data::AsmSet;
use crypto_build::facts::BuildFacts;
use std::fs;
use std::path::{Path, PathBuf};
use xshell::{cmd, Shell};

const CONSUMER: &str = "xtask/tests/patch-consumer";
const BOTH: &str = "xtask/tests/patch-both";
const CROSS: &str = "xtask/tests/patch-cross";
const WORK: &str = "target/patch-test";

/// A scratch project: the consumer's manifest, with these lines added.
struct Project<'a> {
    name: &'a str,
    /// `[dependencies]` lines beyond `openssl`'s.
    deps: Vec<String>,
    /// `[patch.crates-io]` lines: the switch a user makes.
    patches: Vec<String>,
    /// The source of `src/`.
    src: &'a str,
}

pub fn run(sh: &Shell, cargo: &str) -> Result<()> {
    let root = project_root();
    let work = root.join(WORK);
    if work.exists() {
        fs::remove_dir_all(&work).with_context(|| format!("removing {}", work.display()))?;
    }
    fs::create_dir_all(&work)?;
    let patch = root.join("openssl-src");
    let path = |p: &Path| format!("{{ path = {:?} }}", p.display().to_string());
    let consumer = |name, patches| Project { name, deps: vec![], patches, src: CONSUMER };
    let plain = consumer("path", vec![format!("openssl-src = {}", path(&patch))]);
    check_consumer(sh, cargo, &plain, &[])?;
    let repo = git_repo(sh, &root, &work.join("repo"))?;
    let git = format!("openssl-src = {{ git = \"file://{}\" }}", repo.display());
    check_consumer(sh, cargo, &consumer("git", vec![git]), &[])?;
    let unpacked = packaged(sh, cargo, &root, &work.join("packaged"))?;
    let no_perl = super::package::path_without_perl(&work.join("bin"))?;
    let version = env!("CARGO_PKG_VERSION");
    let packaged = consumer(
        "packaged",
        vec![
            format!(
                "openssl-src = {}",
                path(&unpacked.join(format!("openssl-src-{}", crate::cargo::PATCH_VERSION)))
            ),
            format!("crypto-build = {}", path(&unpacked.join(format!("crypto-build-{version}")))),
        ],
    );
    check_consumer(sh, cargo, &packaged, &[("PATH", no_perl.as_str())])?;
    bad_input(sh, cargo, &work.join("path"))?;
    one_openssl(sh, cargo, &root, &patch)?;
    cross(sh, cargo, &root, &patch)
}

/// The project in `WORK/<name>`, built and run: its version line names the OpenSSL release,
/// and its platform line the set and assembler the build's facts record; TLS 1.3 passed.
fn check_consumer(
    sh: &Shell,
    cargo: &str,
    p: &Project,
    env: &[(&str, &str)],
) -> Result<BuildFacts> {
    let dir = write_project(p)?;
    let (out_dir, stdout) =
        build_and_run(sh, cargo, &dir, env).with_context(|| format!("the `{}` project", p.name))?;
    let facts = BuildFacts::read(&out_dir.join("openssl-build"))
        .context("openssl-sys's build ran no crypto-sys pipeline: the patch was not used")?;
    let platform = format!(
        "crypto-sys: set {} requested {}, {}",
        facts.effective_set, facts.requested_set, facts.assembler_kind
    );
    let version = format!("version: OpenSSL {} ", facts.openssl_version);
    ensure!(stdout.contains(&version), "{}: expected `{version}` in:\n{stdout}", p.name);
    ensure!(stdout.contains(&platform), "{}: expected `{platform}` in:\n{stdout}", p.name);
    ensure!(stdout.contains("tls: TLSv1.3 "), "{}: no TLS 1.3 handshake in:\n{stdout}", p.name);
    println!("patch ({}): {}", p.name, stdout.lines().collect::<Vec<_>>().join(" | "));
    Ok(facts)
}

fn write_project(p: &Project) -> Result<PathBuf> {
    let root = project_root();
    let dir = root.join(WORK).join(p.name);
    crypto_build::generate::copy_tree(&root.join(p.src).join("src"), &dir.join("src"))?;
    let mut manifest = fs::read_to_string(root.join(CONSUMER).join("Cargo.toml"))?;
    for dep in &p.deps {
        manifest.push_str(&format!("{dep}\n"));
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
/// configurations of every set committed too: a checkout that has generated them once (a
/// fresh one generates them with perl, minutes this step does not spend again).
fn git_repo(sh: &Shell, root: &Path, repo: &Path) -> Result<PathBuf> {
    let files = cmd!(sh, "git -C {root} ls-files -z").read()?;
    for f in files.split('\0').filter(|f| !f.is_empty() && root.join(f).is_file()) {
        let to = repo.join(f);
        fs::create_dir_all(to.parent().context("a file's directory")?)?;
        fs::copy(root.join(f), &to).with_context(|| format!("copying {f}"))?;
    }
    let host = crypto_build::data::target_for(crate::matrix::HOST)?.name;
    for set in crypto_build::data::SETS {
        for entry in fs::read_dir(root.join(set.name))?.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == host || name.starts_with(&format!("{host}+")) {
                crypto_build::generate::copy_tree(&entry.path(), &repo.join(set.name).join(&name))?;
            }
        }
    }
    let _dir = sh.push_dir(repo);
    cmd!(sh, "git init -q").run()?;
    cmd!(sh, "git add -A -f").run()?;
    cmd!(sh, "git -c user.name=xtask -c user.email=xtask@localhost commit -q -m snapshot").run()?;
    Ok(repo.to_path_buf())
}

/// `cargo xtask package`'s crates, unpacked in `dir`.
fn packaged(sh: &Shell, cargo: &str, root: &Path, dir: &Path) -> Result<PathBuf> {
    cmd!(sh, "{cargo} xtask package").run()?;
    fs::create_dir_all(dir)?;
    for krate in crate::cargo::crates(root) {
        cmd!(sh, "tar -xzf {krate} -C {dir}").run()?;
    }
    Ok(dir.to_path_buf())
}

/// A malformed variable reaches the patched build as crypto-sys's does: refused in one line,
/// from openssl-sys's build script.
fn bad_input(sh: &Shell, cargo: &str, project: &Path) -> Result<()> {
    let manifest = project.join("Cargo.toml");
    let target_dir = project_root().join("target");
    let out = cmd!(sh, "{cargo} build --manifest-path {manifest} --target-dir {target_dir}")
        .env(crypto_build::config::STRICT_VAR, "maybe")
        .ignore_status()
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    // cargo shows it as openssl-sys's warning line, and in the build script's stderr.
    let want = "openssl-src (crypto-sys): CRYPTO_SYS_STRICT=`maybe` is not valid; accepted: ";
    ensure!(!out.status.success(), "CRYPTO_SYS_STRICT=maybe built:\n{stderr}");
    let warned = stderr.lines().any(|l| l.starts_with("warning: openssl-sys") && l.contains(want));
    ensure!(warned, "expected openssl-sys's warning line `…{want}…` in:\n{stderr}");
    println!("patch: CRYPTO_SYS_STRICT=maybe refused in one line");
    Ok(())
}

/// crypto-sys and openssl-sys (through the patch) in one binary: both builds are one build,
/// the second one all from the object cache, their libcrypto.a the same bytes, so the linker
/// takes each object once, from either.
fn one_openssl(sh: &Shell, cargo: &str, root: &Path, patch: &Path) -> Result<()> {
    let krate = root.join("crypto-sys");
    let p = Project {
        name: "both",
        deps: vec![format!("crypto-sys = {{ path = {:?} }}", krate.display().to_string())],
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
    ensure!(same, "{} and {} differ: two OpenSSLs in one binary", ours.display(), theirs.display());
    let exe = target_dir.join("debug/patch-consumer");
    let stdout = cmd!(sh, "{exe}").read()?;
    ensure!(stdout.contains("both: ok"), "{stdout}");
    println!(
        "patch (crypto-sys beside it): one libcrypto.a, the same bytes | {}",
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
    crypto_build::generate::copy_tree(&root.join(CROSS), &dir)?;
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
