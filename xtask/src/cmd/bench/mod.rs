//! `cargo xtask bench`: every set (and optionally openssl-src's own build, ring and aws-lc-rs)
//! measured in one run, interleaved round by round, reported as a table of figures and ratios,
//! JSON and an SVG chart.

mod build;
mod windows;

use crate::flags::Bench;
use anyhow::{bail, Context, Result};
use build::{PATCHED, VENDORED};
use crypto_build::config::ASM_SET_VAR;
use crypto_build::data::{self, OpensslLine, ASM, ASM_AVX2};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;
use xshell::{cmd, Shell};

const OPENSSL_SRC: &str = "openssl-src";

/// What `--against` accepts: other builds of the same figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Library {
    /// OpenSSL built by its own Configure and make: the line's openssl-src's Build, as
    /// openssl-sys's vendored build runs it.
    OpensslSrc,
    /// ring and aws-lc-rs, through their own Rust APIs (each a harness feature of its own).
    Ring,
    AwsLcRs,
}

impl Library {
    const ALL: [Library; 3] = [Library::OpensslSrc, Library::Ring, Library::AwsLcRs];

    fn name(self) -> &'static str {
        match self {
            Library::OpensslSrc => OPENSSL_SRC,
            Library::Ring => "ring",
            Library::AwsLcRs => "aws-lc-rs",
        }
    }
}

/// `--against`'s comma list, in the order given, each once.
fn parse_against(list: &str) -> Result<Vec<Library>> {
    let mut libs = Vec::new();
    for name in list.split(',').map(str::trim) {
        let Some(lib) = Library::ALL.into_iter().find(|l| l.name() == name) else {
            let accepted: Vec<&str> = Library::ALL.iter().map(|l| l.name()).collect();
            bail!("unknown --against `{name}`; accepted: {}", accepted.join(", "));
        };
        if !libs.contains(&lib) {
            libs.push(lib);
        }
    }
    Ok(libs)
}

/// One measured build: its label and binary.
struct Contender {
    label: String,
    exe: PathBuf,
}

/// A C compiler given with --cc: its name for labels and target directories, and its path.
struct Compiler {
    name: String,
    path: PathBuf,
}

impl Compiler {
    fn find(cc: &str) -> Result<Compiler> {
        let Ok(path) = which::which(cc) else { bail!("--cc {cc}: not found on PATH") };
        let name = Path::new(cc).file_name().map_or(cc.into(), |n| n.to_string_lossy().into());
        Ok(Compiler { name, path })
    }
}

/// The OpenSSL line measured: crypto-sys with the line's feature, and openssl-src's own build
/// of the same release, each in target directories of the line's own.
#[derive(Clone, Copy)]
struct Line(&'static OpensslLine);

impl Line {
    /// crypto-bench's features for crypto-sys on this line (the default: none).
    fn ours(self) -> Vec<String> {
        self.0.feature().map(|f| vec!["--features".into(), f]).unwrap_or_default()
    }

    /// `base`, or for another line than the default, `base-openssl-NAME`.
    fn dir(self, base: &str) -> String {
        format!("{base}{}", self.0.dir_suffix())
    }
}

/// (ours, theirs): a crypto-sys build and the openssl-src build made the same way.
type Pair = (String, String);

/// figure -> (unit, label -> best value over the rounds). NaN: that contender cannot do the
/// figure (its harness printed `n/a`, or nothing); shown as `n/a`, in JSON as null.
type Results = BTreeMap<String, (String, BTreeMap<String, f64>)>;

impl Bench {
    pub fn run(self, sh: &Shell) -> Result<()> {
        let line = Line(self.openssl.line);
        if self.windows {
            if !line.0.is_default() {
                bail!("--windows measures the default OpenSSL line only, not {}", line.0.version);
            }
            return windows::run(sh, self.rounds.unwrap_or(5), self.seconds.unwrap_or(1.0));
        }
        if self.build_cost {
            if !line.0.is_default() {
                bail!("--build-cost measures the default OpenSSL line only (the patch's)");
            }
            let dir = crate::cargo::project_root().join("target/bench-build");
            let measured = build::measure_both(sh, &dir)?;
            print!("{}", build::table(&measured, crypto_build::jobs::count()));
            return Ok(());
        }
        let sets: Vec<String> = if self.sets.is_empty() {
            data::set_names().into_iter().map(String::from).collect()
        } else {
            self.sets.iter().map(|s| s.name().to_string()).collect()
        };
        // Checked before any build, so that a typo costs nothing.
        let against = self.against.as_deref().map(parse_against).transpose()?.unwrap_or_default();
        let cc = self.cc.as_deref().map(Compiler::find).transpose()?;
        let (cost, libraries, figures) =
            if against.is_empty() { Default::default() } else { build_cost(sh, &against, line)? };
        let mut contenders = Vec::new();
        for set in &sets {
            contenders.push(build_set(sh, set, Profile::Release, None, line)?);
        }
        if sets.iter().any(|s| s == ASM) {
            // OpenSSL's C is built at -O3 in every profile: a debug build must be as fast.
            contenders.push(build_set(sh, ASM, Profile::Debug, None, line)?);
        }
        if let Some(cc) = &cc {
            contenders.push(build_set(sh, ASM, Profile::Release, Some(cc), line)?);
        }
        if against.contains(&Library::OpensslSrc) {
            contenders.push(build_openssl_src(sh, None, line)?);
            if let Some(cc) = &cc {
                contenders.push(build_openssl_src(sh, Some(cc), line)?);
            }
        }
        // Built (from clean, timed) by build_cost.
        contenders.extend(libraries);
        let results =
            measure(sh, &contenders, self.rounds.unwrap_or(3), self.seconds.unwrap_or(0.3))?;
        let labels: Vec<&str> = contenders.iter().map(|c| c.label.as_str()).collect();
        let (pairs, others) = (pairs(&labels), library_pairs(&labels));
        println!("OpenSSL {}", line.0.version);
        print!("{}", table(&results, &labels));
        print!("{}", pair_table(&results, &pairs));
        print!("{}", library_table(&results, &others));
        print!("{}", cost_table(&cost));
        print!("{figures}");
        if let Some(path) = &self.json {
            let all: Vec<Pair> = pairs.into_iter().chain(others).collect();
            fs::write(path, json(line.0.version, &results, &cost, &all)?)
                .with_context(|| format!("writing {}", path.display()))?;
        }
        if let Some(path) = &self.plot {
            fs::write(path, svg(&results, &labels))
                .with_context(|| format!("writing {}", path.display()))?;
        }
        Ok(())
    }
}

/// Seconds per build step, in the order measured.
type Cost = Vec<(&'static str, f64)>;

/// Builds from clean in throwaway target directories: crypto-sys with asm, a switch to
/// asm_avx2 and a no-op rebuild, then each library asked for: the line's openssl-src's own
/// build, and the harness on ring and on aws-lc-rs, whose binaries are kept as their
/// contenders (they are built nowhere else).
fn build_cost(
    sh: &Shell,
    against: &[Library],
    line: Line,
) -> Result<(Cost, Vec<Contender>, String)> {
    let cargo = cargo();
    let root = crate::cargo::project_root().join(line.dir("target/bench-cost"));
    let _ = fs::remove_dir_all(&root);
    let (ours, features) = (root.join("crypto-sys"), line.ours());
    let features = &features;
    let ours =
        || cmd!(sh, "{cargo} build -q --release -p crypto-bench {features...} --target-dir {ours}");
    let mut cost = vec![
        ("crypto-sys clean build (asm)", timed(sh, Some(ASM), ours())?),
        ("crypto-sys set switch (asm -> asm_avx2)", timed(sh, Some(ASM_AVX2), ours())?),
        ("crypto-sys no-op rebuild", timed(sh, Some(ASM_AVX2), ours())?),
    ];
    let (mut contenders, mut figures) = (Vec::new(), String::new());
    for &lib in against {
        let dir = root.join(lib.name()).display().to_string();
        match lib {
            Library::OpensslSrc => {
                let theirs = vendored_build(sh, &dir, line)?.arg("-q");
                cost.push(("openssl-src clean build (vendored)", timed(sh, None, theirs)?));
                // The patch builds the default line only.
                if line.0.is_default() {
                    let measured = build::measure_both(sh, &root.join("patch"))?;
                    cost.extend(measured.iter().map(|m| (m.label, m.seconds)));
                    figures = build::table(&measured, crypto_build::jobs::count());
                }
            }
            Library::Ring | Library::AwsLcRs => {
                let (name, label) = match lib {
                    Library::Ring => ("ring", "ring clean build (harness)"),
                    _ => ("aws-lc-rs", "aws-lc-rs clean build (harness)"),
                };
                let build = cmd!(
                    sh,
                    "{cargo} build -q --release -p crypto-bench --no-default-features --features {name} --target-dir {dir}"
                );
                cost.push((label, timed(sh, None, build)?));
                contenders.push(keep(&format!("{dir}/release/crypto-bench"), name)?);
            }
        }
    }
    Ok((cost, contenders, figures))
}

/// Seconds one build command takes, with CRYPTO_SYS_ASM_SET=`set` when given.
fn timed(sh: &Shell, set: Option<&str>, build: xshell::Cmd<'_>) -> Result<f64> {
    let _set = set.map(|set| sh.push_env(ASM_SET_VAR, set));
    let started = Instant::now();
    build.run()?;
    let secs = started.elapsed().as_secs_f64();
    eprintln!("build cost: {secs:.1} s");
    Ok(secs)
}

fn cost_table(cost: &Cost) -> String {
    let theirs = cost.iter().find(|(l, _)| l.starts_with("openssl-src")).map(|c| c.1);
    let mut out = String::new();
    for (label, secs) in cost {
        let ratio = theirs.map_or(String::new(), |t| format!("  ({:.2}x openssl-src)", secs / t));
        let _ = writeln!(out, "{label:<42} {secs:>8.1} s{ratio}");
    }
    let secs = |want: &str| cost.iter().find(|(l, _)| *l == want).map(|c| c.1);
    if let (Some(patched), Some(vendored)) = (secs(PATCHED), secs(VENDORED)) {
        let _ = writeln!(
            out,
            "openssl crate: the patch's clean build is {:.2}x vendored's (goal <= 0.8x)",
            patched / vendored
        );
    }
    out
}

fn cargo() -> String {
    crate::cargo::cargo()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Profile {
    Release,
    Debug,
}

/// Builds the harness against crypto-sys with one set and keeps a copy. With a compiler, the
/// build gets its own target directory so that it does not invalidate the default ones.
fn build_set(
    sh: &Shell,
    set: &str,
    profile: Profile,
    cc: Option<&Compiler>,
    line: Line,
) -> Result<Contender> {
    let cargo = cargo();
    let _set = sh.push_env(ASM_SET_VAR, set);
    let _cc = cc.map(|c| sh.push_env("CC", &c.path));
    let (dir, label) = match cc {
        None => (line.dir("target/bench"), set.to_string()),
        Some(c) => (line.dir(&format!("target/bench-cc-{}", c.name)), format!("{set}-{}", c.name)),
    };
    let (release, built, label) = match profile {
        Profile::Release => (Some("--release"), "release", label),
        Profile::Debug => (None, "debug", format!("{label}-debug")),
    };
    let features = line.ours();
    let build =
        cmd!(sh, "{cargo} build {release...} -p crypto-bench {features...} --target-dir {dir}");
    build_and_keep(build, &format!("{dir}/{built}"), &label)
}

/// The same harness against OpenSSL built by its own Configure and make (openssl-src),
/// optionally with another compiler in its own target directory.
fn build_openssl_src(sh: &Shell, cc: Option<&Compiler>, line: Line) -> Result<Contender> {
    let _cc = cc.map(|c| sh.push_env("CC", &c.path));
    let (dir, label) = match cc {
        None => (line.dir("target/bench-openssl-src"), OPENSSL_SRC.to_string()),
        Some(c) => (
            line.dir(&format!("target/bench-openssl-src-cc-{}", c.name)),
            format!("{OPENSSL_SRC}-{}", c.name),
        ),
    };
    build_and_keep(vendored_build(sh, &dir, line)?, &format!("{dir}/release"), &label)
}

/// A release build of the harness against openssl-src's own build of the line's release, as
/// openssl-sys's vendored build runs it: the default line's through crypto-bench's
/// `vendored-default` (the registry's openssl-src crypto-build holds for it); another line's in
/// a scratch project of its own ([`vendored_project`]), as its openssl-src is a 300.x, which
/// the workspace's graph holds only as the patch crate.
fn vendored_build<'a>(sh: &'a Shell, target_dir: &str, line: Line) -> Result<xshell::Cmd<'a>> {
    let cargo = cargo();
    if line.0.is_default() {
        return Ok(cmd!(
            sh,
            "{cargo} build --release -p crypto-bench --no-default-features --features vendored-default --target-dir {target_dir}"
        ));
    }
    let Some(krate) = line.0.crate_version() else {
        bail!(
            "OpenSSL {} comes from a release tarball, which no openssl-src builds: \
             `--against openssl-src` has nothing to build for it",
            line.0.version
        );
    };
    let dir = crate::cargo::project_root().join(line.dir("target/bench-vendored"));
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let manifest = dir.join("Cargo.toml");
    fs::write(&manifest, vendored_project(&crate::cargo::project_root(), krate))?;
    Ok(cmd!(sh, "{cargo} build --release --manifest-path {manifest} --target-dir {target_dir}"))
}

/// The manifest of a project that builds crypto-bench's sources against openssl-src `krate`'s
/// own build: the harness's `main.rs`, and `bench/vendored.rs` as its build script (which runs
/// that crate's Build); crypto-bench's other features declared, off.
fn vendored_project(root: &Path, krate: &str) -> String {
    let bench = root.join("bench");
    format!(
        "[package]\nname = \"crypto-bench\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\
         build = {:?}\n\n[[bin]]\nname = \"crypto-bench\"\npath = {:?}\n\n\
         [features]\nours = []\nring = []\naws-lc-rs = []\n\n\
         [build-dependencies]\nopenssl-src = {{ version = \"={krate}\", features = [\"legacy\"] }}\n\n[workspace]\n",
        bench.join("vendored.rs").display().to_string(),
        bench.join("src/main.rs").display().to_string(),
    )
}

/// Runs one harness build and keeps a copy of the binary under `label`.
fn build_and_keep(build: xshell::Cmd<'_>, out_dir: &str, label: &str) -> Result<Contender> {
    let started = Instant::now();
    build.quiet().run()?;
    eprintln!("built the harness with {label} in {:.1?}", started.elapsed());
    keep(&format!("{out_dir}/crypto-bench"), label)
}

fn keep(built: &str, label: &str) -> Result<Contender> {
    let dir = crate::cargo::project_root().join("target/bench/bin");
    fs::create_dir_all(&dir)?;
    let exe = dir.join(format!("crypto-bench-{label}"));
    fs::copy(crate::cargo::project_root().join(built), &exe)
        .with_context(|| format!("keeping {built} as {}", exe.display()))?;
    Ok(Contender { label: label.into(), exe })
}

/// Runs every contender once per round, interleaved, keeping each figure's best value; a figure
/// a contender cannot do is NaN (see `Results`).
fn measure(sh: &Shell, contenders: &[Contender], rounds: usize, seconds: f64) -> Result<Results> {
    let mut results = Results::new();
    let total = rounds * contenders.len();
    let secs = seconds.to_string();
    for round in 0..rounds {
        for (i, c) in contenders.iter().enumerate() {
            progress(round * contenders.len() + i, total, &c.label);
            let exe = &c.exe;
            let out = cmd!(sh, "{exe} {secs}").quiet().read()?;
            for line in out.lines() {
                let (figure, unit, value) = parse_line(line)?;
                let entry =
                    results.entry(figure.into()).or_insert_with(|| (unit.into(), BTreeMap::new()));
                let best = entry.1.entry(c.label.clone()).or_insert(f64::NAN);
                // f64::max keeps the number over a NaN.
                *best = best.max(value);
            }
        }
    }
    progress(total, total, "done");
    eprintln!();
    let labels: Vec<&str> = contenders.iter().map(|c| c.label.as_str()).collect();
    for figure in fill_missing(&mut results, &labels) {
        eprintln!("warning: no figure `{figure}` from every contender; shown as n/a");
    }
    Ok(results)
}

/// One harness line, `figure<TAB>unit<TAB>value`, where `n/a` is NaN.
fn parse_line(line: &str) -> Result<(&str, &str, f64)> {
    let f: Vec<&str> = line.split('\t').collect();
    let [figure, unit, value] = f[..] else { bail!("bad harness line `{line}`") };
    let value = match value {
        "n/a" => f64::NAN,
        v => v.parse().with_context(|| format!("bad value in `{line}`"))?,
    };
    Ok((figure, unit, value))
}

/// Makes every figure's cell of every label NaN where the harness printed nothing, so that a
/// gap is shown rather than dropped; returns the figures that had such gaps (a harness names
/// the figures its library lacks, so these are worth a warning).
fn fill_missing(results: &mut Results, labels: &[&str]) -> Vec<String> {
    let mut gaps = Vec::new();
    for (figure, (_, values)) in results.iter_mut() {
        let mut gap = false;
        for l in labels {
            values.entry(l.to_string()).or_insert_with(|| {
                gap = true;
                f64::NAN
            });
        }
        if gap {
            gaps.push(figure.clone());
        }
    }
    gaps
}

fn progress(done: usize, total: usize, what: &str) {
    let width = 30;
    let filled = done * width / total.max(1);
    eprint!("\r[{}{}] {done}/{total} {what:<24}", "#".repeat(filled), " ".repeat(width - filled));
    let _ = std::io::stderr().flush();
}

/// Each figure's value per contender, with its ratio to `asm` (or the first contender).
fn table(results: &Results, labels: &[&str]) -> String {
    let base = if labels.contains(&ASM) { ASM } else { labels[0] };
    let mut out = format!("{:<42} {:>5}", "figure", "unit");
    for l in labels {
        let _ = write!(out, " {l:>w$} {:>6}", "ratio", w = l.len().max(12));
    }
    out.push('\n');
    for (figure, (unit, values)) in results {
        let _ = write!(out, "{figure:<42} {unit:>5}");
        let b = value(values, base);
        for l in labels {
            let v = value(values, l);
            let _ = write!(out, " {:>w$} {:>6}", cell(v, 1), cell(v / b, 2), w = l.len().max(12));
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "ratios are to `{base}`; higher is faster; n/a: the contender lacks the figure"
    );
    out
}

/// A label's value for one figure; NaN when it has none.
fn value(values: &BTreeMap<String, f64>, label: &str) -> f64 {
    values.get(label).copied().unwrap_or(f64::NAN)
}

/// A table cell: the number with `decimals`, or `n/a` where there is none.
fn cell(x: f64, decimals: usize) -> String {
    if x.is_finite() {
        format!("{x:.decimals$}")
    } else {
        "n/a".into()
    }
}

/// Pairs each openssl-src build with the `asm` build made the same way (`openssl-src-X` with
/// `asm-X`), so that a ratio compares the builds, not the compilers.
fn pairs(labels: &[&str]) -> Vec<Pair> {
    labels
        .iter()
        .filter_map(|l| {
            let how = l.strip_prefix(OPENSSL_SRC)?;
            let ours = format!("{ASM}{how}");
            labels.contains(&ours.as_str()).then(|| (ours, l.to_string()))
        })
        .collect()
}

/// Pairs `asm` (or, without it, the first contender) with ring and with aws-lc-rs.
fn library_pairs(labels: &[&str]) -> Vec<Pair> {
    let Some(ours) = labels.iter().find(|l| **l == ASM).or(labels.first()) else {
        return Vec::new();
    };
    let others = [Library::Ring, Library::AwsLcRs].map(Library::name);
    let theirs = labels.iter().filter(|l| others.contains(l));
    theirs.map(|t| (ours.to_string(), t.to_string())).collect()
}

/// ours / theirs for one figure; NaN when either is missing.
fn ratio(values: &BTreeMap<String, f64>, (ours, theirs): &Pair) -> f64 {
    value(values, ours) / value(values, theirs)
}

/// Geometric mean of the finite ratios: the fair average of ratios; NaN when there are none.
fn geomean(ratios: impl Iterator<Item = f64>) -> f64 {
    let logs: Vec<f64> = ratios.filter(|r| r.is_finite() && *r > 0.0).map(f64::ln).collect();
    (logs.iter().sum::<f64>() / logs.len() as f64).exp()
}

/// Each openssl-src pair's ratio per figure and their geometric mean; empty without pairs.
fn pair_table(results: &Results, pairs: &[Pair]) -> String {
    ratio_table("ours vs openssl-src built the same way", results, pairs)
}

/// Ours against ring and aws-lc-rs; empty without them.
fn library_table(results: &Results, pairs: &[Pair]) -> String {
    let t = ratio_table("ours vs ring and aws-lc-rs, each through its own API", results, pairs);
    if t.is_empty() {
        return t;
    }
    t + "n/a: the library lacks the figure; geometric means are over the figures both have\n"
}

/// Each pair's ratio per figure and their geometric mean; empty without pairs.
fn ratio_table(title: &str, results: &Results, pairs: &[Pair]) -> String {
    if pairs.is_empty() {
        return String::new();
    }
    let heads: Vec<String> = pairs.iter().map(|(o, t)| format!("{o} / {t}")).collect();
    let mut out = format!("\n{title}\n{:<42} {:>5}", "figure", "unit");
    for h in &heads {
        let _ = write!(out, "  {h:>8}");
    }
    out.push('\n');
    let mut row = |figure: &str, unit: &str, ratios: Vec<f64>| {
        let _ = write!(out, "{figure:<42} {unit:>5}");
        for (h, r) in heads.iter().zip(ratios) {
            let _ = write!(out, "  {:>w$}", cell(r, 2), w = h.len().max(8));
        }
        out.push('\n');
    };
    for (figure, (unit, values)) in results {
        row(figure, unit, pairs.iter().map(|p| ratio(values, p)).collect());
    }
    let means = pairs.iter().map(|p| geomean(results.values().map(|(_, v)| ratio(v, p))));
    row("geometric mean", "", means.collect());
    let _ = writeln!(out, "ratios are ours / theirs; higher means ours is faster");
    out
}

/// `bench --json`: each figure's values, each pair's ratios and the builds' cost.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Report {
    openssl: String,
    figures: Vec<FigureValues>,
    pairs: Vec<PairRatios>,
    /// Seconds per build step, in the order measured.
    #[serde(with = "super::json::in_order")]
    build_seconds: Vec<(String, f64)>,
}

/// One figure's best value per contender; `null` where it has none.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct FigureValues {
    figure: String,
    unit: String,
    values: BTreeMap<String, Option<f64>>,
}

/// ours / theirs per figure, and their geometric mean.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct PairRatios {
    ours: String,
    theirs: String,
    geomean: Option<f64>,
    ratios: BTreeMap<String, Option<f64>>,
}

/// `x` to `decimals` places; `None` for NaN, which JSON lacks.
fn rounded(x: f64, decimals: i32) -> Option<f64> {
    let scale = 10f64.powi(decimals);
    x.is_finite().then(|| (x * scale).round() / scale)
}

/// The measurements as `bench --json` reports them: values to 0.1, ratios to 0.001.
fn report(openssl: &str, results: &Results, cost: &Cost, pairs: &[Pair]) -> Report {
    let figures = results.iter().map(|(figure, (unit, values))| FigureValues {
        figure: figure.clone(),
        unit: unit.clone(),
        values: values.iter().map(|(l, x)| (l.clone(), rounded(*x, 1))).collect(),
    });
    let pairs = pairs.iter().map(|p| PairRatios {
        ours: p.0.clone(),
        theirs: p.1.clone(),
        geomean: rounded(geomean(results.values().map(|(_, v)| ratio(v, p))), 3),
        ratios: results.iter().map(|(f, (_, v))| (f.clone(), rounded(ratio(v, p), 3))).collect(),
    });
    Report {
        openssl: openssl.into(),
        figures: figures.collect(),
        pairs: pairs.collect(),
        build_seconds: cost
            .iter()
            .map(|(l, s)| (l.to_string(), rounded(*s, 1).unwrap_or(*s)))
            .collect(),
    }
}

/// [`report`] as pretty JSON, through serde (labels and figures escaped).
fn json(openssl: &str, results: &Results, cost: &Cost, pairs: &[Pair]) -> Result<String> {
    let report = report(openssl, results, cost, pairs);
    Ok(serde_json::to_string_pretty(&report).context("writing the bench's JSON")? + "\n")
}

/// Horizontal bars: for each figure, one bar per contender, scaled to the figure's best.
fn svg(results: &Results, labels: &[&str]) -> String {
    // Enough for every contender: three sets, asm-debug, asm-<cc>, two openssl-src builds, ring
    // and aws-lc-rs.
    const COLOURS: [&str; 10] = [
        "#1b7837", "#762a83", "#d6604d", "#4393c3", "#878787", "#e08214", "#5aae61", "#b2182b",
        "#01665e", "#8c510a",
    ];
    let (label_w, bar_w, bar_h) = (300.0, 420.0, 12.0);
    let row_h = bar_h * labels.len() as f64 + 10.0;
    let height = 40.0 + row_h * results.len() as f64 + 20.0 * labels.len() as f64;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"11\">\n",
        label_w + bar_w + 90.0
    );
    s += "<text x=\"10\" y=\"20\" font-size=\"14\">cargo xtask bench: each figure relative to its best</text>\n";
    for (row, (figure, (unit, values))) in results.iter().enumerate() {
        let y = 40.0 + row as f64 * row_h;
        // f64::max passes over NaN, so a missing cell never scales the bars.
        let best = values.values().cloned().fold(0.0, f64::max);
        let _ = writeln!(s, "<text x=\"10\" y=\"{:.0}\">{figure} ({unit})</text>", y + bar_h);
        for (i, l) in labels.iter().enumerate() {
            let by = y + i as f64 * bar_h;
            let v = value(values, l);
            if !v.is_finite() {
                let _ = writeln!(
                    s,
                    "<text x=\"{:.1}\" y=\"{:.0}\" fill=\"{}\">n/a</text>",
                    label_w + 4.0,
                    by + bar_h - 3.0,
                    COLOURS[i % COLOURS.len()]
                );
                continue;
            }
            let w = if best > 0.0 { bar_w * v / best } else { 0.0 };
            let _ = writeln!(
                s,
                "<rect x=\"{label_w}\" y=\"{by:.0}\" width=\"{w:.1}\" height=\"{:.0}\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.0}\">{v:.0}</text>",
                bar_h - 2.0,
                COLOURS[i % COLOURS.len()],
                label_w + w + 4.0,
                by + bar_h - 3.0
            );
        }
    }
    let legend_y = 40.0 + row_h * results.len() as f64;
    for (i, l) in labels.iter().enumerate() {
        let y = legend_y + 20.0 * i as f64;
        let _ = writeln!(
            s,
            "<rect x=\"10\" y=\"{y:.0}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"28\" y=\"{:.0}\">{l}</text>",
            COLOURS[i % COLOURS.len()],
            y + 10.0
        );
    }
    s + "</svg>\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Results {
        let mut r = Results::new();
        let values: BTreeMap<String, f64> =
            [("asm".to_string(), 200.0), ("asm_avx2".to_string(), 50.0)].into();
        r.insert("AES-256-GCM seal 16 KiB aligned".into(), ("MB/s".into(), values));
        r
    }

    #[test]
    fn table_shows_ratios_to_asm() {
        let t = table(&sample(), &["asm", "asm_avx2"]);
        assert!(t.contains("200.0   1.00"), "{t}");
        assert!(t.contains("50.0   0.25"), "{t}");
    }

    /// Two figures for both pairs; `openssl-src-clang-19` lacks the second.
    fn paired() -> (Results, Vec<Pair>) {
        let mut r = Results::new();
        let figure = |v: [f64; 4]| {
            let labels = ["asm", OPENSSL_SRC, "asm-clang-19", "openssl-src-clang-19"];
            let values = labels.iter().zip(v).filter(|(_, x)| !x.is_nan());
            ("op/s".to_string(), values.map(|(l, x)| (l.to_string(), x)).collect())
        };
        r.insert("ECDH P-384 derive".into(), figure([200.0, 160.0, 90.0, 100.0]));
        r.insert("X25519 derive".into(), figure([100.0, 125.0, 50.0, f64::NAN]));
        let pairs =
            pairs(&["asm", "asm-debug", "asm-clang-19", OPENSSL_SRC, "openssl-src-clang-19"]);
        (r, pairs)
    }

    /// The whitespace-separated cells of the line starting with `start`.
    fn cells<'a>(table: &'a str, start: &str) -> Vec<&'a str> {
        let line =
            table.lines().find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("{table}"));
        line[start.len()..].split_whitespace().collect()
    }

    #[test]
    fn pairs_match_builds_made_the_same_way() {
        let (_, p) = paired();
        let p: Vec<(&str, &str)> = p.iter().map(|(o, t)| (o.as_str(), t.as_str())).collect();
        assert_eq!(p, [("asm", OPENSSL_SRC), ("asm-clang-19", "openssl-src-clang-19")]);
        // No openssl-src, or no asm built the same way: nothing to pair.
        assert!(pairs(&["asm", "asm-clang-19"]).is_empty());
        assert!(pairs(&["asm_avx2", OPENSSL_SRC, "openssl-src-clang-19"]).is_empty());
        assert_eq!(pair_table(&sample(), &[]), "");
    }

    #[test]
    fn pair_table_shows_ours_over_theirs() {
        let (r, p) = paired();
        let t = pair_table(&r, &p);
        assert!(t.contains("asm / openssl-src  asm-clang-19 / openssl-src-clang-19"), "{t}");
        assert_eq!(cells(&t, "ECDH P-384 derive"), ["op/s", "1.25", "0.90"], "{t}");
        assert_eq!(cells(&t, "X25519 derive"), ["op/s", "0.80", "n/a"], "{t}");
        // sqrt(1.25 * 0.80) = 1; the missing figure leaves 0.90 alone.
        assert_eq!(cells(&t, "geometric mean"), ["1.00", "0.90"], "{t}");
    }

    /// Each line's harness features are crypto-bench's, and only the default line shares the
    /// default target directories.
    #[test]
    fn each_line_names_features_the_harness_has() {
        let root = crate::cargo::project_root();
        let text = fs::read_to_string(root.join("bench/Cargo.toml")).unwrap();
        let has = |f: &str| text.lines().any(|l| l.starts_with(&format!("{f} = ")));
        assert!(has("vendored-default"), "bench/Cargo.toml lacks vendored-default");
        assert!(root.join("bench/vendored.rs").is_file());
        for l in crypto_build::data::OPENSSL_LINES {
            let line = Line(l);
            if let (false, Some(krate)) = (l.default, l.crate_version()) {
                let project = vendored_project(&root, krate);
                let dep =
                    format!("openssl-src = {{ version = \"={krate}\", features = [\"legacy\"] }}");
                assert!(project.contains(&dep), "{project}");
            }
            for f in line.ours().iter().filter(|f| !f.starts_with("--")) {
                assert!(has(f), "bench/Cargo.toml lacks {f}");
            }
            if l.default {
                assert_eq!(line.dir("target/bench"), "target/bench");
                assert!(line.ours().is_empty());
            } else {
                let dir = format!("target/bench-openssl-{}", l.name());
                assert_eq!(line.dir("target/bench"), dir);
                assert_eq!(line.ours(), ["--features".to_string(), l.feature().unwrap()]);
            }
        }
    }

    #[test]
    fn compiler_label_is_its_file_name() {
        let exe = std::env::current_exe().unwrap();
        let c = Compiler::find(exe.to_str().unwrap()).unwrap();
        assert_eq!(Some(c.name.as_str()), exe.file_name().and_then(|n| n.to_str()));
        assert_eq!(c.path, exe);
        let e = Compiler::find("no-such-cc-xtask").err().unwrap();
        assert_eq!(e.to_string(), "--cc no-such-cc-xtask: not found on PATH");
    }

    /// The JSON read back, as a reader of `bench --json` would.
    fn read(json: &str) -> Report {
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"))
    }

    /// JSON's cells: NaN, which JSON lacks, as `None`.
    fn json_cells(pairs: &[(&str, f64)]) -> BTreeMap<String, Option<f64>> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.is_finite().then_some(*v))).collect()
    }

    /// A figure, a label and a build step may hold a quote or a line break.
    #[test]
    fn json_escapes_what_it_writes() {
        let odd = "AES \"fast\"\nmode \\ 1";
        let mut r = Results::new();
        let values = [(odd.to_string(), 12.0), ("asm".to_string(), 6.0)].into();
        r.insert(odd.to_string(), (odd.to_string(), values));
        let pairs = [(odd.to_string(), "asm".to_string())];
        let cost = vec![("build \"a\"\n", 1.25)];
        let text = json("3.6.3", &r, &cost, &pairs).unwrap();
        let j = read(&text);
        assert_eq!(j, report("3.6.3", &r, &cost, &pairs));
        assert_eq!((j.figures[0].figure.as_str(), j.figures[0].unit.as_str()), (odd, odd));
        assert_eq!(j.figures[0].values[odd], Some(12.0));
        assert_eq!((j.pairs[0].ours.as_str(), j.pairs[0].ratios[odd]), (odd, Some(2.0)));
        assert_eq!(j.build_seconds, [("build \"a\"\n".to_string(), 1.3)]);
    }

    #[test]
    fn json_and_svg_carry_every_value() {
        let cost = vec![
            ("crypto-sys clean build (asm)", 70.0),
            ("openssl-src clean build (vendored)", 88.0),
        ];
        let j = read(&json("3.6.3", &sample(), &cost, &[]).unwrap());
        assert_eq!((j.openssl.as_str(), j.pairs.len()), ("3.6.3", 0));
        let values = &j.figures[0].values;
        assert_eq!((values["asm"], values["asm_avx2"]), (Some(200.0), Some(50.0)));
        let seconds =
            [("crypto-sys clean build (asm)", 70.0), ("openssl-src clean build (vendored)", 88.0)];
        assert_eq!(j.build_seconds, seconds.map(|(l, s)| (l.to_string(), s)));
        assert!(cost_table(&cost).contains("70.0 s  (0.80x openssl-src)"), "{}", cost_table(&cost));
        let s = svg(&sample(), &["asm", "asm_avx2"]);
        assert!(
            s.starts_with("<svg") && s.contains("width=\"420.0\"") && s.contains("width=\"105.0\""),
            "{s}"
        );
    }

    #[test]
    fn json_carries_the_pairs() {
        let (r, p) = paired();
        let j = read(&json("3.6.3", &r, &Cost::new(), &p).unwrap());
        let x25519 = j.figures.iter().find(|f| f.figure == "X25519 derive").unwrap();
        assert_eq!(x25519.unit, "op/s");
        assert_eq!(
            x25519.values,
            json_cells(&[("asm", 100.0), ("asm-clang-19", 50.0), (OPENSSL_SRC, 125.0)])
        );
        assert_eq!((j.pairs[0].ours.as_str(), j.pairs[0].theirs.as_str()), ("asm", OPENSSL_SRC));
        assert_eq!(j.pairs[0].geomean, Some(1.0));
        assert_eq!(
            j.pairs[0].ratios,
            json_cells(&[("ECDH P-384 derive", 1.25), ("X25519 derive", 0.8)])
        );
        // JSON has no NaN: a missing figure is null.
        assert_eq!(j.pairs[1].geomean, Some(0.9));
        assert_eq!(
            j.pairs[1].ratios,
            json_cells(&[("ECDH P-384 derive", 0.9), ("X25519 derive", f64::NAN)])
        );
        let text = json("3.6.3", &r, &Cost::new(), &p).unwrap();
        assert!(text.contains("\"X25519 derive\": null"), "{text}");
    }

    #[test]
    fn svg_gives_every_contender_its_own_colour() {
        let (r, _) = paired();
        let labels = [
            "asm",
            "asm_avx2",
            "no_asm",
            "asm-debug",
            "asm-clang-19",
            OPENSSL_SRC,
            "openssl-src-clang-19",
        ];
        let s = svg(&r, &labels);
        let legend: std::collections::BTreeSet<&str> = s
            .lines()
            .filter(|l| l.contains("x=\"10\"") && l.contains("<rect"))
            .filter_map(|l| l.split("fill=\"").nth(1)?.split('"').next())
            .collect();
        assert_eq!(legend.len(), labels.len(), "{s}");
        for l in labels {
            assert!(s.contains(&format!(">{l}</text>")), "{l} missing from {s}");
        }
    }

    /// asm, ring and aws-lc-rs: ring lacks P-521 (its harness says `n/a`), aws-lc-rs printed
    /// nothing for Poly1305.
    fn with_libraries() -> (Results, Vec<&'static str>) {
        let labels = vec!["asm", "ring", "aws-lc-rs"];
        let mut r = Results::new();
        let lines = [
            ("asm", "ECDSA P-521 sign\top/s\t4000.0"),
            ("ring", "ECDSA P-521 sign\top/s\tn/a"),
            ("aws-lc-rs", "ECDSA P-521 sign\top/s\t5000.0"),
            ("asm", "Poly1305 16 KiB\tMB/s\t12000.0"),
            ("ring", "Poly1305 16 KiB\tMB/s\tn/a"),
            ("asm", "X25519 derive\top/s\t30000.0"),
            ("ring", "X25519 derive\top/s\t15000.0"),
            ("aws-lc-rs", "X25519 derive\top/s\t40000.0"),
        ];
        for (label, line) in lines {
            let (figure, unit, v) = parse_line(line).unwrap();
            let entry = r.entry(figure.into()).or_insert_with(|| (unit.into(), BTreeMap::new()));
            entry.1.insert(label.into(), v);
        }
        assert_eq!(fill_missing(&mut r, &labels), ["Poly1305 16 KiB"]);
        (r, labels)
    }

    #[test]
    fn against_takes_a_list_of_known_libraries() {
        let all = parse_against("openssl-src,ring,aws-lc-rs").unwrap();
        assert_eq!(all, Library::ALL);
        assert_eq!(
            parse_against("aws-lc-rs, ring,aws-lc-rs").unwrap(),
            [Library::AwsLcRs, Library::Ring]
        );
        let e = parse_against("ring,boringssl").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown --against `boringssl`; accepted: openssl-src, ring, aws-lc-rs"
        );
        assert!(parse_against("ring,").is_err());
    }

    #[test]
    fn harness_lines_carry_numbers_or_n_a() {
        assert_eq!(
            parse_line("SHA-256 16 KiB\tMB/s\t1760.5").unwrap(),
            ("SHA-256 16 KiB", "MB/s", 1760.5)
        );
        assert!(parse_line("Poly1305 1 KiB\tMB/s\tn/a").unwrap().2.is_nan());
        assert!(parse_line("Poly1305 1 KiB\tMB/s").is_err());
        assert!(parse_line("Poly1305 1 KiB\tMB/s\tfast").is_err());
    }

    #[test]
    fn missing_cells_say_n_a_in_the_tables() {
        let (r, labels) = with_libraries();
        let t = table(&r, &labels);
        assert_eq!(
            cells(&t, "ECDSA P-521 sign"),
            ["op/s", "4000.0", "1.00", "n/a", "n/a", "5000.0", "1.25"],
            "{t}"
        );
        assert_eq!(
            cells(&t, "Poly1305 16 KiB"),
            ["MB/s", "12000.0", "1.00", "n/a", "n/a", "n/a", "n/a"],
            "{t}"
        );
        let pairs = library_pairs(&labels);
        assert_eq!(pairs, [("asm".into(), "ring".into()), ("asm".into(), "aws-lc-rs".into())]);
        let t = library_table(&r, &pairs);
        assert!(t.contains("asm / ring  asm / aws-lc-rs"), "{t}");
        assert_eq!(cells(&t, "ECDSA P-521 sign"), ["op/s", "n/a", "0.80"], "{t}");
        assert_eq!(cells(&t, "X25519 derive"), ["op/s", "2.00", "0.75"], "{t}");
        // Over the figures both have: ring's only ratio is 2; sqrt(0.8 * 0.75).
        assert_eq!(cells(&t, "geometric mean"), ["2.00", "0.77"], "{t}");
        assert!(t.contains("n/a: the library lacks the figure"), "{t}");
        // Neither library: no table.
        assert!(library_pairs(&["asm", OPENSSL_SRC]).is_empty());
        assert_eq!(library_table(&r, &[]), "");
    }

    #[test]
    fn missing_cells_are_null_in_json_and_n_a_in_the_chart() {
        let (r, labels) = with_libraries();
        let j = read(&json("3.6.3", &r, &Cost::new(), &library_pairs(&labels)).unwrap());
        let poly = j.figures.iter().find(|f| f.figure == "Poly1305 16 KiB").unwrap();
        let nan = f64::NAN;
        assert_eq!(poly.values, json_cells(&[("asm", 12000.0), ("aws-lc-rs", nan), ("ring", nan)]));
        let ring = &j.pairs[0];
        assert_eq!((ring.theirs.as_str(), ring.geomean), ("ring", Some(2.0)));
        let want = [("ECDSA P-521 sign", nan), ("Poly1305 16 KiB", nan), ("X25519 derive", 2.0)];
        assert_eq!(ring.ratios, json_cells(&want));
        let s = svg(&r, &labels);
        assert_eq!(s.matches(">n/a</text>").count(), 3, "{s}");
        // The bars are scaled to the best number, never to a missing one: aws-lc-rs's 5000
        // op/s is the full width, asm's 4000 four fifths.
        assert!(s.contains("width=\"420.0\"") && s.contains("width=\"336.0\""), "{s}");
        assert!(!s.contains("NaN"), "{s}");
    }

    #[test]
    fn svg_has_a_colour_for_every_library_too() {
        let (r, _) = paired();
        let labels = [
            "asm",
            "asm_avx2",
            "no_asm",
            "asm-debug",
            "asm-clang-19",
            OPENSSL_SRC,
            "openssl-src-clang-19",
            "ring",
            "aws-lc-rs",
        ];
        let s = svg(&r, &labels);
        let legend: std::collections::BTreeSet<&str> = s
            .lines()
            .filter(|l| l.contains("x=\"10\"") && l.contains("<rect"))
            .filter_map(|l| l.split("fill=\"").nth(1)?.split('"').next())
            .collect();
        assert_eq!(legend.len(), labels.len(), "{s}");
    }
}
