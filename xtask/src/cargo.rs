//! The cargo side of xtask: where the workspace is, which cargo runs, the host's triple, and
//! `cargo xtask build` for another target run as a user runs it.

use anyhow::{bail, Context, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use xshell::{cmd, Shell};

/// The workspace root, where the set directories and generate.lock live.
pub fn project_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The cargo that runs xtask (`CARGO`), for the cargo commands xtask runs in turn.
pub fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// The host's triple, as rustc reports it.
pub fn host_triple(sh: &Shell) -> Result<String> {
    let info = cmd!(sh, "rustc -vV").read()?;
    info.lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(String::from)
        .context("rustc -vV printed no host triple")
}

/// Set to a copy of the xtask binary a test run started with, which its steps run: cargo may
/// rebuild the original under them (`cargo test` does, with other features).
const XTASK_BIN_VAR: &str = "XTASK_BIN";

/// Copies this binary into `target/xtask-test/` and has this process and its children run
/// the copy; done once, by the outermost `cargo xtask test`, whose guard removes it.
pub fn freeze_xtask_binary() -> Result<Option<FrozenBinary>> {
    if std::env::var_os(XTASK_BIN_VAR).is_some() {
        return Ok(None);
    }
    let exe = std::env::current_exe().context("finding xtask's own binary")?;
    let dir = xtask_test_dir()?;
    let name = format!("xtask-{}{}", std::process::id(), std::env::consts::EXE_SUFFIX);
    let copy = dir.join(name);
    std::fs::copy(&exe, &copy).with_context(|| format!("copying {}", exe.display()))?;
    std::env::set_var(XTASK_BIN_VAR, &copy);
    Ok(Some(FrozenBinary(copy)))
}

/// `target/xtask-test/`, made if missing: a test run's own files (its binary, step results).
pub fn xtask_test_dir() -> Result<PathBuf> {
    let dir = project_root().join("target/xtask-test");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}

pub struct FrozenBinary(PathBuf);

impl Drop for FrozenBinary {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The xtask binary to run for a step or a build: the test run's copy, else this one.
pub fn xtask_binary() -> Result<PathBuf> {
    match std::env::var_os(XTASK_BIN_VAR) {
        Some(p) => Ok(PathBuf::from(p)),
        None => std::env::current_exe().context("finding xtask's own binary"),
    }
}

/// `cargo xtask build --target <triple> <args> --prefix <prefix>` with `cc` as the target's C
/// compiler (`CC_<triple>`), in a process of its own: its standard output and error, or an
/// error carrying them. Its summary is printed. It runs the binary `cargo xtask` runs, this
/// one, so that it never waits on cargo's lock while a step beside it builds through cargo.
pub fn for_target(
    sh: &Shell,
    triple: &str,
    cc: &str,
    args: &[&str],
    prefix: &Path,
) -> Result<String> {
    let _cc = sh.push_env(format!("CC_{}", triple.replace('-', "_")), cc);
    build_prefix(sh, triple, args, prefix, &[])
}

/// The same with no C compiler named, as a fresh clone builds (the one the build finds), none
/// of the variables cc reads it from inherited.
pub fn for_target_as_cloned(
    sh: &Shell,
    triple: &str,
    args: &[&str],
    prefix: &Path,
) -> Result<String> {
    use crypto_build::config::{per_target_var, CC_VAR, TARGET_CC_VAR};
    let named = [format!("{CC_VAR}_{triple}"), per_target_var(CC_VAR, triple)];
    let unset =
        named.into_iter().chain([TARGET_CC_VAR, CC_VAR].map(String::from)).collect::<Vec<_>>();
    build_prefix(sh, triple, args, prefix, &unset)
}

fn build_prefix(
    sh: &Shell,
    triple: &str,
    args: &[&str],
    prefix: &Path,
    unset: &[String],
) -> Result<String> {
    let xtask = xtask_binary()?;
    let mut build = cmd!(sh, "{xtask} build --target {triple} {args...} --prefix {prefix}");
    for var in unset {
        build = build.env_remove(var);
    }
    let out = build.ignore_status().output()?;
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if !out.status.success() {
        bail!("build failed:\n{text}");
    }
    print!("{}", String::from_utf8_lossy(&out.stdout));
    Ok(text)
}

/// The build's own warnings in its output: the pipeline's (`warning: crypto-sys: …`) and the C
/// compiler's, which cc passes on as `cargo:warning=`. rustc's about xtask itself are not its.
pub fn warnings(output: &str) -> Vec<&str> {
    output
        .lines()
        .filter(|l| l.starts_with("warning: crypto-sys") || l.contains("cargo:warning"))
        .collect()
}

/// What xtask reads of one of cargo's JSON messages (`--message-format=json`).
#[derive(Deserialize)]
struct Message {
    reason: String,
    package_id: Option<String>,
    /// A build script's, in a `build-script-executed` message.
    out_dir: Option<PathBuf>,
}

/// crypto-sys's OUT_DIR, from cargo's JSON message that its build script ran.
pub fn crypto_sys_out_dir(line: &str) -> Option<PathBuf> {
    build_script_out_dir(line, "crypto-sys")
}

/// The OUT_DIR of package `name`'s build script, from cargo's JSON message that it ran.
pub fn build_script_out_dir(line: &str, name: &str) -> Option<PathBuf> {
    let m: Message = serde_json::from_str(line).ok()?;
    let package = m.package_id?;
    // A workspace member's id ends `/crypto-sys#0.1.0`, an unpacked crate's
    // `/crypto-sys-0.1.0#crypto-sys@0.1.0`, a registry crate's `…index#openssl-sys@0.9.118`.
    let ours = package.contains(&format!("/{name}#")) || package.contains(&format!("#{name}@"));
    if m.reason != "build-script-executed" || !ours {
        return None;
    }
    m.out_dir
}

/// The `.crate` files of this version.
pub fn crates(root: &Path) -> Vec<PathBuf> {
    let version = env!("CARGO_PKG_VERSION");
    let ours = ["crypto-build", "crypto-sys"].map(|n| format!("{n}-{version}"));
    let patch = format!("openssl-src-{PATCH_VERSION}");
    ours.into_iter()
        .chain(std::iter::once(patch))
        .chain(line_crates().into_iter().map(|(name, v)| format!("{name}-{v}")))
        .map(|n| root.join(format!("target/package/{n}.crate")))
        .collect()
}

/// The crates of `cargo xtask package` run in `root`, unpacked in `work`, emptied first.
/// Their files get the time they are unpacked (`tar -m`): cargo writes every file of a
/// `.crate` with one fixed time in 2006, so a build in a target directory that outlives them
/// (the workspace's) would take them for older than what it compiled from an earlier package
/// at the same path, and keep that (seen here: a packaged crypto-sys built with the crypto-build
/// of the run before).
pub fn unpack_crates(sh: &Shell, root: &Path, work: &Path) -> Result<()> {
    let _ = std::fs::remove_dir_all(work);
    std::fs::create_dir_all(work)?;
    for krate in crates(root) {
        cmd!(sh, "tar -xzmf {krate} -C {work}").run()?;
    }
    Ok(())
}

/// Each line's source crate, and each other line's sets crate: (name, version).
fn line_crates() -> Vec<(String, String)> {
    let mut crates = vec![];
    for l in crypto_build::data::OPENSSL_LINES {
        crates.push((l.source_crate(), l.version.to_string()));
        if !l.is_default() {
            crates.push((l.sets_crate(), crate::sets_crate::VERSION.to_string()));
        }
    }
    crates
}

/// `[patch.crates-io]` lines that take each crate `cargo xtask package` publishes but crypto-sys
/// from its unpacked `.crate` under `dir` (unpublished, a consumer outside the workspace finds
/// them so).
pub fn unpacked_patches(dir: &Path) -> Vec<String> {
    let version = env!("CARGO_PKG_VERSION");
    std::iter::once(("crypto-build".to_string(), version.to_string()))
        .chain(line_crates())
        .map(|(name, v)| {
            let path = dir.join(format!("{name}-{v}")).display().to_string();
            format!("{name} = {{ path = {path:?} }}")
        })
        .collect()
}

/// The `openssl-src` patch crate's version (its Cargo.toml's; a test keeps the two equal).
pub const PATCH_VERSION: &str = "300.99.0";

/// What xtask reads of `cargo metadata --format-version 1`: the packages.
#[derive(Debug, Deserialize)]
pub struct Metadata {
    pub packages: Vec<Package>,
}

#[derive(Debug, Deserialize)]
pub struct Package {
    pub name: String,
    pub version: String,
    pub manifest_path: PathBuf,
    /// Each feature and what it turns on (`default` among them).
    #[serde(default)]
    pub features: std::collections::BTreeMap<String, Vec<String>>,
    /// Its `links` key, which names the `DEP_<LINKS>_*` variables dependents get.
    pub links: Option<String>,
    /// Its MSRV (`rust-version`).
    pub rust_version: Option<String>,
    pub license: Option<String>,
}

impl Metadata {
    pub fn parse(json: &str) -> Result<Metadata> {
        serde_json::from_str(json).context("reading cargo metadata")
    }

    /// The first package named `name`.
    pub fn package(&self, name: &str) -> Result<&Package> {
        self.packages
            .iter()
            .find(|p| p.name == name)
            .with_context(|| format!("cargo metadata does not list {name}"))
    }
}

impl Package {
    /// The directory of its Cargo.toml: its source.
    pub fn dir(&self) -> Result<&Path> {
        self.manifest_path.parent().context("a manifest_path without a directory")
    }
}

/// A package's version and directory from `cargo metadata`'s JSON.
pub fn package(metadata: &str, name: &str) -> Result<(String, std::path::PathBuf)> {
    let metadata = Metadata::parse(metadata)?;
    let p = metadata.package(name)?;
    Ok((p.version.clone(), p.dir()?.to_path_buf()))
}

/// crypto-sys's symbol prefix for `target`, from its manifest (`links` and version), as its
/// build script takes it from cargo.
pub fn crypto_sys_prefix(
    sh: &Shell,
    target: &crypto_build::data::Target,
) -> Result<crypto_build::symbols::Prefix> {
    let cargo = cargo();
    let json = cmd!(sh, "{cargo} metadata --no-deps --format-version 1").read()?;
    let metadata = Metadata::parse(&json)?;
    let krate = metadata.package("crypto-sys")?;
    let links = krate.links.as_deref().context("crypto-sys has no `links` key")?;
    crypto_build::config::crypto_sys_prefix(target, &krate.name, &krate.version, links)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// crypto-build's graph, every feature on, normal and build edges: each line's source
    /// reaches it through its source crate, no openssl-src 300.x is in it (the patch crate is
    /// the graph's only one), and no dependency of it is an openssl-src: the supplier of the
    /// default line's tree is crypto-gen's.
    #[test]
    fn crypto_builds_graph_holds_no_openssl_src_300() {
        let sh = Shell::new().unwrap();
        let root = project_root();
        let manifest = root.join("Cargo.toml");
        let format = "{p}";
        let tree = cmd!(
            sh,
            "cargo tree --locked --offline --manifest-path {manifest} -p crypto-build -e normal,build --all-features --prefix none --format {format}"
        )
        .read()
        .unwrap();
        assert!(!tree.lines().any(|l| l.starts_with("openssl-src v300.")), "{tree}");
        for line in crypto_build::data::OPENSSL_LINES {
            let krate = format!("{} v{} (", line.source_crate(), line.version);
            assert!(tree.lines().any(|l| l.starts_with(&krate)), "no {krate} in:\n{tree}");
        }
        let metadata = cmd!(
            sh,
            "cargo metadata --format-version 1 --locked --offline --manifest-path {manifest}"
        )
        .read()
        .unwrap();
        let names = dependency_names(&metadata, "crypto-build");
        assert!(!names.iter().any(|n| n.starts_with("openssl_src")), "crypto-build: {names:?}");
        // The default line's supplier is the maintainer's crate's.
        let names = dependency_names(&metadata, "crypto-gen");
        let series = crate::sources::fetch::series(crypto_build::data::TREE_SUPPLIER).unwrap();
        let supplier = format!("openssl_src_{}", series.replace('.', "_"));
        assert!(names.contains(&supplier), "crypto-gen lacks {supplier}: {names:?}");
    }

    /// The names `dependent`'s code calls its resolved dependencies by (`openssl_src_4_0`).
    fn dependency_names(metadata: &str, dependent: &str) -> Vec<String> {
        #[derive(Deserialize)]
        struct Graph {
            packages: Vec<Node>,
            resolve: Resolve,
        }
        #[derive(Deserialize)]
        struct Resolve {
            nodes: Vec<Resolved>,
        }
        #[derive(Deserialize)]
        struct Node {
            id: String,
            name: String,
        }
        #[derive(Deserialize)]
        struct Resolved {
            id: String,
            deps: Vec<Dep>,
        }
        #[derive(Deserialize)]
        struct Dep {
            name: String,
        }
        let g: Graph = serde_json::from_str(metadata).unwrap();
        let id = &g.packages.iter().find(|p| p.name == dependent).unwrap().id;
        let node = g.resolve.nodes.iter().find(|n| &n.id == id).unwrap();
        node.deps.iter().map(|d| d.name.clone()).collect()
    }

    /// The packaged `.crate` file's name follows the patch crate's version.
    #[test]
    fn patch_version_is_the_patch_crates() {
        let manifest = project_root().join("openssl-src/Cargo.toml");
        let text = std::fs::read_to_string(manifest).unwrap();
        assert!(text.contains(&format!("\nversion = \"{PATCH_VERSION}\"\n")), "{PATCH_VERSION}");
    }

    #[test]
    fn only_the_builds_own_warnings_count() {
        let out = "crypto-sys: probe: the C compiler and assembler\n\
                   warning: unused variable: `name`\n\
                   cargo:warning=crypto/x.c:1:2: warning: unused\n\
                   warning: crypto-sys: 2 files downgraded\n";
        assert_eq!(
            warnings(out),
            [
                "cargo:warning=crypto/x.c:1:2: warning: unused",
                "warning: crypto-sys: 2 files downgraded"
            ]
        );
    }

    #[test]
    fn reads_out_dir_from_cargo_json() {
        let line = r#"{"reason":"build-script-executed","package_id":"path+file:///w/crypto-sys#0.1.0","out_dir":"/w/target/debug/build/crypto-sys-1/out"}"#;
        let out = PathBuf::from("/w/target/debug/build/crypto-sys-1/out");
        assert_eq!(crypto_sys_out_dir(line), Some(out.clone()));
        let packaged = line.replace("crypto-sys#0.1.0", "crypto-sys-0.1.0#crypto-sys@0.1.0");
        assert_eq!(crypto_sys_out_dir(&packaged), Some(out));
        let other = line.replace("crypto-sys#", "openssl-sys#");
        assert_eq!(crypto_sys_out_dir(&other), None);
        assert_eq!(crypto_sys_out_dir("not json"), None);
    }

    #[test]
    fn reads_a_package_from_metadata() {
        let json = r#"{"packages":[{"id":"cc@1.2.0","name":"cc","version":"1.2.0","manifest_path":"/r/cc/Cargo.toml"},
            {"id":"openssl-src@400.0.2+4.0.3","name":"openssl-src","version":"400.0.2+4.0.3","manifest_path":"/r/openssl-src-400.0.2+4.0.3/Cargo.toml"}],
            "resolve":null}"#;
        let (version, dir) = package(json, "openssl-src").unwrap();
        assert_eq!(version, "400.0.2+4.0.3");
        assert_eq!(dir, Path::new("/r/openssl-src-400.0.2+4.0.3"));
        assert!(package(json, "ring").is_err());
    }
}
