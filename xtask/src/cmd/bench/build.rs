//! What a user's clean release build of the `openssl` crate costs on this machine, on
//! openssl-sys's `vendored` and through the packaged patch (the `.crate` files `cargo xtask
//! package` makes, as a user of the published crates gets them), one after the other in fresh
//! target directories: the time, every process's CPU, the CPU spent before the first C
//! compiler ran, the patch's C-compile floor (its units' core-seconds over the cores), and the
//! crates each build compiled, packed and unpacked. Linux only: the CPU is read from /proc.

use anyhow::{bail, ensure, Context, Result};
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use xshell::Shell;

/// The labels of the two builds, as the cost table and the JSON name them.
pub const PATCHED: &str = "openssl crate clean build (openssl-src patch, packaged)";
pub const VENDORED: &str = "openssl crate clean build (vendored)";

/// The goal for the patch's clean build, against its C-compile floor (issue 52).
const FLOOR_GOAL: f64 = 1.25;

/// One clean build, measured.
pub struct Measured {
    pub label: &'static str,
    pub seconds: f64,
    /// The CPU of every process of the build.
    core_seconds: f64,
    /// The build's CPU when a C compiler process was first seen (sampled every 100 ms).
    before_c: Option<f64>,
    /// What compiling OpenSSL's units took, from crypto-build's cost file (the patch's).
    units_core_seconds: Option<f64>,
    /// The crates compiled, with their `.crate` and unpacked bytes.
    crates: usize,
    packed: u64,
    unpacked: u64,
    /// The three largest unpacked: (name-version, packed, unpacked).
    largest: Vec<(String, u64, u64)>,
}

/// Both builds of the patch step's consumer, vendored's first; `dir` is emptied first.
pub fn measure_both(sh: &Shell, dir: &Path) -> Result<Vec<Measured>> {
    ensure!(
        Path::new("/proc/self/stat").exists(),
        "the build cost is read from /proc, which this system lacks (Linux only)"
    );
    let root = crate::cargo::project_root();
    let _ = fs::remove_dir_all(dir);
    let cargo = crate::cargo::cargo();
    let line = crypto_build::data::DEFAULT_LINE.name();
    xshell::cmd!(sh, "{cargo} xtask package --openssl {line}").run()?;
    let unpacked = dir.join("crates");
    crate::cargo::unpack_crates(sh, &root, &unpacked)?;
    let fixture = root.join("xtask/tests/patch-consumer");
    let patch = unpacked.join(format!("openssl-src-{}", crate::cargo::PATCH_VERSION));
    let patches: Vec<String> = std::iter::once(format!("openssl-src = {{ path = {:?} }}", patch))
        .chain(crate::cargo::unpacked_patches(&unpacked))
        .collect();
    let mut out = Vec::new();
    for (label, patches) in [(VENDORED, &[][..]), (PATCHED, &patches[..])] {
        let project = dir.join(if patches.is_empty() { "vendored" } else { "patched" });
        crypto_build::files::copy_tree(&fixture, &project)?;
        let manifest = project.join("Cargo.toml");
        if !patches.is_empty() {
            let mut text = fs::read_to_string(&manifest)?;
            text.push_str(&format!("\n[patch.crates-io]\n{}\n", patches.join("\n")));
            fs::write(&manifest, text)?;
        }
        out.push(measure(label, &manifest, &project.join("target"), &root)?);
    }
    Ok(out)
}

/// A clean release build of `manifest` into `target`, measured.
fn measure(label: &'static str, manifest: &Path, target: &Path, root: &Path) -> Result<Measured> {
    let cpu_before = own_children_cpu()?;
    let started = Instant::now();
    let mut child = Command::new(crate::cargo::cargo())
        .args(["build", "--release", "--message-format", "json-render-diagnostics"])
        .arg("--manifest-path")
        .arg(manifest)
        .arg("--target-dir")
        .arg(target)
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting cargo for {label}"))?;
    let mut stdout = child.stdout.take().context("cargo's standard output")?;
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).map(|_| text)
    });
    let mut before_c = None;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if before_c.is_none() {
            before_c = tree_cpu_once_compiling(child.id());
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let seconds = started.elapsed().as_secs_f64();
    let json = reader.join().map_err(|_| anyhow::anyhow!("reading cargo's output"))??;
    ensure!(status.success(), "{label}: cargo build failed ({status})");
    let core_seconds = own_children_cpu()? - cpu_before;
    let dirs = built_packages(&json, manifest)?;
    let mut sizes = Vec::new();
    for dir in &dirs {
        let packed = crate_file(dir, root)
            .with_context(|| format!("{label}: no .crate file for {}", dir.display()))?;
        let name = dir.file_name().map_or(String::new(), |n| n.to_string_lossy().into_owned());
        sizes.push((name, packed, dir_bytes(dir)?));
    }
    let (packed, unpacked) = sizes.iter().fold((0, 0), |(p, u), s| (p + s.1, u + s.2));
    sizes.sort_by_key(|s| std::cmp::Reverse(s.2));
    sizes.truncate(3);
    let units_core_seconds =
        find_file(&target.join("release/build"), crypto_build::compile::COST_FILE)
            .map(|f| read_cost(&f))
            .transpose()?;
    let m = Measured {
        label,
        seconds,
        core_seconds,
        before_c,
        units_core_seconds,
        crates: dirs.len(),
        packed,
        unpacked,
        largest: sizes,
    };
    eprintln!("build cost: {label}: {:.1} s, {:.1} core-s", m.seconds, m.core_seconds);
    Ok(m)
}

/// The CPU of `root` and its descendants, once one of them is a C compiler; else None.
fn tree_cpu_once_compiling(root: u32) -> Option<f64> {
    let procs = crate::proc_stat::all();
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for (&pid, p) in &procs {
        children.entry(p.ppid).or_default().push(pid);
    }
    let (mut pending, mut cpu, mut compiling) = (vec![root], 0.0, false);
    while let Some(pid) = pending.pop() {
        if let Some(p) = procs.get(&pid) {
            cpu += p.own + p.children;
            compiling |= is_c_compiler(&p.comm);
        }
        pending.extend(children.get(&pid).into_iter().flatten());
    }
    compiling.then_some(cpu)
}

/// gcc's compiler proper, or clang (which compiles in its own process).
fn is_c_compiler(comm: &str) -> bool {
    matches!(comm, "cc1" | "cc1plus") || comm.starts_with("clang")
}

/// The CPU of every child this process has waited for.
fn own_children_cpu() -> Result<f64> {
    crate::proc_stat::children_cpu_seconds().context("reading /proc/self/stat")
}

/// The directories of the packages cargo compiled (its `compiler-artifact` messages), but the
/// project's own.
fn built_packages(json: &str, project: &Path) -> Result<BTreeSet<PathBuf>> {
    let mut dirs = BTreeSet::new();
    for line in json.lines().filter(|l| l.contains("\"compiler-artifact\"")) {
        let v: serde_json::Value = serde_json::from_str(line)?;
        let Some(manifest) = v["manifest_path"].as_str().map(Path::new) else { continue };
        if manifest != project {
            dirs.insert(manifest.parent().context("a manifest's directory")?.to_path_buf());
        }
    }
    if dirs.is_empty() {
        bail!("cargo reported no compiled package");
    }
    Ok(dirs)
}

/// The `.crate` bytes of an unpacked package: the registry's cached file beside its sources
/// (`registry/src/INDEX/NAME-VERSION` and `registry/cache/INDEX/NAME-VERSION.crate`), or one
/// of ours that `cargo xtask package` made.
fn crate_file(dir: &Path, root: &Path) -> Option<u64> {
    let name = format!("{}.crate", dir.file_name()?.to_str()?);
    let index = dir.parent()?;
    let cached = index.parent()?.parent()?.join("cache").join(index.file_name()?).join(&name);
    [cached, root.join("target/package").join(&name)]
        .iter()
        .find_map(|f| fs::metadata(f).ok().map(|m| m.len()))
}

fn dir_bytes(dir: &Path) -> Result<u64> {
    let mut total = 0;
    for e in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let e = e?;
        let meta = e.metadata()?;
        total += if meta.is_dir() { dir_bytes(&e.path())? } else { meta.len() };
    }
    Ok(total)
}

/// The first file named `name` under `dir`.
fn find_file(dir: &Path, name: &str) -> Option<PathBuf> {
    for e in fs::read_dir(dir).ok()?.flatten() {
        let path = e.path();
        if e.file_name() == name {
            return Some(path);
        }
        if path.is_dir() {
            if let Some(found) = find_file(&path, name) {
                return Some(found);
            }
        }
    }
    None
}

fn read_cost(file: &Path) -> Result<f64> {
    let text = fs::read_to_string(file)?;
    let value = text.strip_prefix("units_core_seconds ").map(str::trim);
    value.and_then(|v| v.parse().ok()).with_context(|| format!("{}: `{text}`", file.display()))
}

/// The figures, side by side, and the patch against its floor and against vendored.
pub fn table(measured: &[Measured], cores: usize) -> String {
    let mb = |b: u64| b as f64 / 1e6;
    let mut out = format!(
        "clean release builds of the `openssl` crate, one after the other on {cores} cores:\n"
    );
    for m in measured {
        let before = m.before_c.map_or("n/a".into(), |s| format!("{s:.1}"));
        let _ = writeln!(
            out,
            "  {:<56} {:>6.1} s  {:>6.1} core-s, {before} before the first C compiler; {} crates, \
             {:.1} MB packed, {:.1} MB unpacked",
            m.label,
            m.seconds,
            m.core_seconds,
            m.crates,
            mb(m.packed),
            mb(m.unpacked)
        );
        let largest: Vec<String> = m
            .largest
            .iter()
            .map(|(name, p, u)| format!("{name} ({:.1} MB, {:.1} MB)", mb(*p), mb(*u)))
            .collect();
        let _ = writeln!(out, "    the largest, packed and unpacked: {}", largest.join(", "));
    }
    let find = |label: &str| measured.iter().find(|m| m.label == label);
    if let Some(p) = find(PATCHED) {
        match p.units_core_seconds {
            Some(units) => {
                let floor = units / cores as f64;
                let _ = writeln!(
                    out,
                    "the patch's C-compile floor: {floor:.1} s (its units' {units:.1} core-s over \
                     {cores} cores); its clean build is {:.2}x the floor (goal <= {FLOOR_GOAL}x)",
                    p.seconds / floor
                );
            }
            None => out.push_str("the patch's build left no cost file: no floor\n"),
        }
        if let Some(v) = find(VENDORED) {
            let _ = writeln!(
                out,
                "the patch's clean build is {:.2}x vendored's (goal <= 0.8x)",
                p.seconds / v.seconds
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compilers_are_told_from_their_drivers() {
        assert!(is_c_compiler("cc1") && is_c_compiler("clang-19") && is_c_compiler("clang"));
        assert!(!is_c_compiler("cc") && !is_c_compiler("gcc") && !is_c_compiler("rustc"));
    }
}
