//! The `tarball-move` step (`--full`): a line moved to a release tarball ships. The other
//! line's tree (its source crate's, made from the registry's openssl-src) is packed as its
//! release tarball, `openssl-X.Y.Z.tar.gz`, and a scratch copy of the workspace is moved to it
//! with `cargo xtask update-openssl --source FILE --sha256 HEX --openssl LINE`, as a
//! maintainer moves a line to a release the registry lacks. The moved workspace then packages
//! its crates; a fresh clone of it fails in one line naming the tarball until the tarball is at
//! hand, then builds the line; the packaged crates build it with no perl; both libcrypto.a are
//! the same bytes as the workspace's own, registry-sourced build of the line. The workspace
//! itself is left as it was.

use anyhow::{bail, ensure, Context, Result};
use crypto_build::data::{OpensslLine, OPENSSL_LINES};
use crypto_build::source::{self, list::SourceLock, SourceCrate, TARBALLS_DIR};
use std::fs;
use std::path::{Path, PathBuf};
use xshell::{cmd, Shell};

const WORK: &str = "target/tarball-move";
/// The scratch workspaces' own target directory, kept between runs (their xtask compiled once).
const SCRATCH_TARGET: &str = "target/tarball-move-target";

pub fn run(sh: &Shell, cargo: &str) -> Result<()> {
    let root = crate::cargo::project_root();
    let line = OPENSSL_LINES.iter().find(|l| !l.is_default()).context("no second line")?;
    let before = state(sh, &root)?;
    let work = root.join(WORK);
    let _ = fs::remove_dir_all(&work);
    fs::create_dir_all(&work)?;
    let tarball = pack_line(&root, line, &work)?;
    let ws = scratch_workspace(sh, &root, line, &work.join("workspace"))?;
    move_to(sh, cargo, &ws, line, &tarball)?;
    let reference = libcrypto(sh, cargo, &root, line, &[])?;
    let clone = fresh_clone(sh, cargo, (&ws, &work.join("clone")), line, &tarball)?;
    let packaged = packaged(sh, cargo, &ws, line, &reference)?;
    for (what, built) in [("a fresh clone", &clone), ("the packaged crates", &packaged)] {
        ensure!(
            fs::read(&built.libcrypto)? == fs::read(&reference.libcrypto)?,
            "{what} of the moved workspace built {}, not the bytes of {}",
            built.libcrypto.display(),
            reference.libcrypto.display()
        );
    }
    ensure!(state(sh, &root)? == before, "the tarball move changed the workspace");
    println!(
        "tarball-move: OpenSSL {}'s tree as {} (SHA-256 {}) moved a scratch workspace to it; \
         its fresh clone and its packaged crates (no perl) built libcrypto.a byte for byte as the \
         registry-sourced line ({} bytes); the workspace unchanged",
        line.version,
        tarball.name,
        tarball.sha256,
        fs::metadata(&reference.libcrypto)?.len()
    );
    Ok(())
}

/// The release tarball packed from the line's source crate.
struct Tarball {
    path: PathBuf,
    name: String,
    sha256: String,
}

fn pack_line(root: &Path, line: &OpensslLine, work: &Path) -> Result<Tarball> {
    let tree = SourceCrate::in_workspace(root, line).checked(line)?.dir;
    let name = source::tarball_name(line.version);
    let path = work.join(&name);
    super::lock::pack(&tree, &source::tree_name(line.version), None, &path)?;
    let sha256 = crypto_build::sha256::hex(&fs::read(&path)?);
    Ok(Tarball { path, name, sha256 })
}

/// The workspace's tracked files, and the line's sets (its move compares them with the
/// tarball's), at `ws`; its target directory the kept one.
fn scratch_workspace(sh: &Shell, root: &Path, line: &OpensslLine, ws: &Path) -> Result<PathBuf> {
    super::patch::copy_tracked(sh, root, ws)?;
    let targets: Vec<_> =
        crypto_build::data::TARGETS.iter().filter(|t| line.has_target(t.name)).collect();
    let sets: Vec<_> = crypto_build::data::SETS.iter().collect();
    let configs = crypto_build::sets::Config::expand(&targets, &sets);
    let source = crypto_build::source::Source::of_line(line)?;
    let jobs = crypto_build::jobs::count();
    crypto_gen::generate::ensure_all(&line.root(root), &source, &configs, jobs, None, None)?;
    for config in &configs {
        let from = config.dir(&line.root(root));
        crypto_build::files::copy_tree(&from, &config.dir(&line.root(ws)))?;
    }
    link_target(root, ws)?;
    Ok(ws.to_path_buf())
}

/// `dir/target`, a link to the kept scratch target directory.
fn link_target(root: &Path, dir: &Path) -> Result<()> {
    let target = root.join(SCRATCH_TARGET);
    fs::create_dir_all(&target)?;
    std::os::unix::fs::symlink(&target, dir.join("target")).context("linking target/")
}

/// `cargo xtask update-openssl --source` in `ws`, then its line's row and source crate name
/// the tarball, and hold the tree the workspace's crate holds.
fn move_to(sh: &Shell, cargo: &str, ws: &Path, line: &OpensslLine, t: &Tarball) -> Result<()> {
    let _dir = sh.push_dir(ws);
    let (path, sha, name) = (&t.path, &t.sha256, line.name());
    cmd!(sh, "{cargo} xtask update-openssl --source {path} --sha256 {sha} --openssl {name}")
        .run()
        .context("the move to the tarball")?;
    let lines = fs::read_to_string(ws.join("crypto-build/src/data/lines.rs"))?;
    let row = format!("source: LineSource::Tarball {{ sha256: \"{sha}\" }}");
    ensure!(lines.contains(&row), "the moved lines.rs has no `{row}`");
    let moved = SourceLock::read(&ws.join(line.source_crate_dir()))?;
    let ours = SourceLock::read(&crate::cargo::project_root().join(line.source_crate_dir()))?;
    ensure!(
        (&moved.archive, &moved.sha256, &moved.files) == (&t.name, &t.sha256, &ours.files),
        "the moved crate's lock is {moved:?}"
    );
    ensure!(ws.join(TARBALLS_DIR).join(&t.name).is_file(), "the move kept no tarball");
    Ok(())
}

/// A crypto-sys build's libcrypto.a and asm file count.
struct Built {
    libcrypto: PathBuf,
    asm_files: usize,
}

/// `cargo build --release -p crypto-sys` on `line` in `dir`, in the workspace's target
/// directory (its object cache), with `env`.
fn libcrypto(
    sh: &Shell,
    cargo: &str,
    dir: &Path,
    line: &OpensslLine,
    env: &[(&str, &str)],
) -> Result<Built> {
    let args = crypto_sys_on(line)?;
    let _dir = sh.push_dir(dir);
    build(sh, cargo, &args, env)
        .with_context(|| format!("building crypto-sys in {}", dir.display()))
}

/// `-p crypto-sys --features` `line`'s feature.
fn crypto_sys_on(line: &OpensslLine) -> Result<[String; 4]> {
    let feature = line.feature().context("another line")?;
    Ok(["-p", "crypto-sys", "--features", &feature].map(String::from))
}

/// `cargo build --release ARGS` in the workspace's target directory (its object cache), with
/// `env`, not yet run.
fn release_build<'a>(
    sh: &'a Shell,
    cargo: &str,
    args: &[String],
    env: &[(&str, &str)],
) -> xshell::Cmd<'a> {
    let target_dir = crate::cargo::project_root().join("target");
    let build = cmd!(sh, "{cargo} build --release {args...} --target-dir {target_dir}");
    env.iter().fold(build, |build, (k, v)| build.env(k, v))
}

/// `cargo build --release ARGS`, as `release_build`: what its crypto-sys build script made.
fn build(sh: &Shell, cargo: &str, args: &[String], env: &[(&str, &str)]) -> Result<Built> {
    let json = "--message-format=json-render-diagnostics";
    let build = release_build(sh, cargo, args, env).arg(json);
    let out = build.read()?.lines().find_map(crate::cargo::crypto_sys_out_dir);
    let out = out.context("cargo reported no crypto-sys build script")?;
    let asm_files = crypto_build::facts::BuildFacts::read(&out)?.asm_files.len();
    Ok(Built { libcrypto: out.join("lib/libcrypto.a"), asm_files })
}

/// A clone of the moved workspace, committed as its maintainer would: its build fails in one
/// line naming the tarball until the tarball is at hand, then `cargo xtask sources` makes the
/// crate from it and the line builds with no perl (the host's sets copied in, as a clone that
/// generated them once).
fn fresh_clone(
    sh: &Shell,
    cargo: &str,
    (ws, clone): (&Path, &Path),
    line: &OpensslLine,
    t: &Tarball,
) -> Result<Built> {
    {
        let _dir = sh.push_dir(ws);
        cmd!(sh, "git init -q").run()?;
        cmd!(sh, "git add -A").run()?;
        cmd!(sh, "git -c user.name=xtask -c user.email=xtask@localhost commit -q -m moved")
            .run()?;
    }
    cmd!(sh, "git clone -q {ws} {clone}").run()?;
    link_target(&crate::cargo::project_root(), clone)?;
    let no_perl = super::package::path_without_perl(&clone.join("bin"))?;
    let env = [("PATH", no_perl.as_str())];
    let stderr = without_tree(sh, cargo, clone, line, &env)?;
    let want = format!("{} (SHA-256 {}), kept in {TARBALLS_DIR}/", t.name, t.sha256);
    if !stderr.lines().any(|l| l.contains(&want) && l.contains("cargo xtask sources")) {
        bail!("a clone without the tarball must fail in one line naming `{want}`:\n{stderr}");
    }
    let kept = clone.join(TARBALLS_DIR);
    fs::create_dir_all(&kept)?;
    fs::copy(&t.path, kept.join(&t.name))?;
    let name = line.name();
    let _dir = sh.push_dir(clone);
    cmd!(sh, "{cargo} xtask sources --openssl {name}").run()?;
    copy_host_sets(ws, clone, line)?;
    libcrypto(sh, cargo, clone, line, &env)
}

/// The build of crypto-sys on `line` in `dir`, which must fail: its standard error.
fn without_tree(
    sh: &Shell,
    cargo: &str,
    dir: &Path,
    line: &OpensslLine,
    env: &[(&str, &str)],
) -> Result<String> {
    let args = crypto_sys_on(line)?;
    let _dir = sh.push_dir(dir);
    let out = release_build(sh, cargo, &args, env).ignore_status().output()?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    ensure!(!out.status.success(), "crypto-sys built in {} with no tree", dir.display());
    Ok(stderr)
}

/// The host's configurations of the line's sets from `from` to `to`.
fn copy_host_sets(from: &Path, to: &Path, line: &OpensslLine) -> Result<()> {
    let host = crypto_build::data::target_for(crate::matrix::HOST)?.name;
    for set in crypto_build::data::SETS {
        let dir = line.root(from).join(set.name);
        for entry in fs::read_dir(&dir)?.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == host || name.starts_with(&format!("{host}+")) {
                let dest = line.root(to).join(set.name).join(&name);
                crypto_build::files::copy_tree(&entry.path(), &dest)?;
            }
        }
    }
    Ok(())
}

/// The moved workspace's `cargo xtask package --openssl LINE`, unpacked, and the package
/// consumer on the line built from it with no perl.
fn packaged(
    sh: &Shell,
    cargo: &str,
    ws: &Path,
    line: &OpensslLine,
    reference: &Built,
) -> Result<Built> {
    let name = line.name();
    {
        let _dir = sh.push_dir(ws);
        cmd!(sh, "{cargo} xtask package --openssl {name}").run()?;
    }
    let unpacked = ws.join("unpacked");
    crate::cargo::unpack_crates(sh, ws, &unpacked)?;
    let consumer = super::package::consumer(&crate::cargo::project_root(), &unpacked)?;
    let no_perl = super::package::path_without_perl(&unpacked.join("bin"))?;
    let expect = reference.asm_files.to_string();
    let env = [("PATH", no_perl.as_str()), ("CRYPTO_SYS_EXPECT_ASM_FILES", expect.as_str())];
    // The consumer is its own package: crypto-sys's feature named through it.
    let manifest = consumer.join("Cargo.toml");
    let mut text = fs::read_to_string(&manifest)?;
    let feature = line.feature().context("another line")?;
    text = text.replace(
        "crypto-sys = { path = \"../crypto-sys-0.1.0\" }",
        &format!("crypto-sys = {{ path = \"../crypto-sys-0.1.0\", features = [\"{feature}\"] }}"),
    );
    fs::write(&manifest, text)?;
    consumer_libcrypto(sh, cargo, &consumer, &env)
}

/// The package consumer built and run (its own checks): its crypto-sys build.
fn consumer_libcrypto(sh: &Shell, cargo: &str, dir: &Path, env: &[(&str, &str)]) -> Result<Built> {
    let manifest = dir.join("Cargo.toml").display().to_string();
    let built = build(sh, cargo, &["--manifest-path".into(), manifest], env)
        .context("building the package consumer")?;
    let exe = crate::cargo::project_root().join("target/release/package-consumer");
    let mut run = cmd!(sh, "{exe}");
    for (k, v) in env {
        run = run.env(k, v);
    }
    println!("tarball-move (packaged): {}", run.read()?.trim());
    Ok(built)
}

/// What the step must leave as it was: git's view of the workspace, and each line's source
/// crate's list and the tarballs kept.
fn state(sh: &Shell, root: &Path) -> Result<String> {
    let mut text = cmd!(sh, "git -C {root} status --porcelain").read()?;
    for line in OPENSSL_LINES {
        let list = SourceCrate::in_workspace(root, line).list_path();
        text.push_str(&fs::read_to_string(&list).unwrap_or_default());
    }
    let kept = fs::read_dir(root.join(TARBALLS_DIR)).into_iter().flatten().flatten();
    text.extend(kept.map(|e| format!("{}\n", e.file_name().to_string_lossy())));
    Ok(text)
}
