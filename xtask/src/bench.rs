//! `cargo xtask bench`: every set (and optionally openssl-src's own build) measured in one run,
//! interleaved round by round, reported as a table of figures and ratios, JSON and an SVG chart.

use crate::flags::Bench;
use anyhow::{bail, Context, Result};
use crypto_build::config::{SetChoice, ASM_SET_VAR};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;
use xshell::{cmd, Shell};

const OPENSSL_SRC: &str = "openssl-src";

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

/// (ours, theirs): a crypto-sys build and the openssl-src build made the same way.
type Pair = (String, String);

/// figure -> (unit, label -> best value over the rounds)
type Results = BTreeMap<String, (String, BTreeMap<String, f64>)>;

impl Bench {
    pub fn run(self, sh: &Shell) -> Result<()> {
        if self.windows {
            return crate::bench_windows::run(
                sh,
                self.rounds.unwrap_or(5),
                self.seconds.unwrap_or(1.0),
            );
        }
        let sets: Vec<String> = match &self.sets {
            Some(s) => s.split(',').map(String::from).collect(),
            None => vec!["asm".into(), "asm_avx2".into(), "no_asm".into()],
        };
        for s in &sets {
            SetChoice::parse(s)?;
        }
        // Checked before any build, so that a typo costs nothing.
        let against = match self.against.as_deref() {
            None => false,
            Some(OPENSSL_SRC) => true,
            Some(other) => bail!("unknown --against `{other}`; accepted: {OPENSSL_SRC}"),
        };
        let cc = self.cc.as_deref().map(Compiler::find).transpose()?;
        let cost = if against { Some(build_cost(sh)?) } else { None };
        let mut contenders = Vec::new();
        for set in &sets {
            contenders.push(build_set(sh, set, Profile::Release, None)?);
        }
        if sets.iter().any(|s| s == "asm") {
            // OpenSSL's C is built at -O3 in every profile: a debug build must be as fast.
            contenders.push(build_set(sh, "asm", Profile::Debug, None)?);
        }
        if let Some(cc) = &cc {
            contenders.push(build_set(sh, "asm", Profile::Release, Some(cc))?);
        }
        if against {
            contenders.push(build_openssl_src(sh, None)?);
            if let Some(cc) = &cc {
                contenders.push(build_openssl_src(sh, Some(cc))?);
            }
        }
        let results =
            measure(sh, &contenders, self.rounds.unwrap_or(3), self.seconds.unwrap_or(0.3))?;
        let labels: Vec<&str> = contenders.iter().map(|c| c.label.as_str()).collect();
        let pairs = pairs(&labels);
        print!("{}", table(&results, &labels));
        print!("{}", pair_table(&results, &pairs));
        let cost = cost.unwrap_or_default();
        print!("{}", cost_table(&cost));
        if let Some(path) = &self.json {
            fs::write(path, json(&results, &cost, &pairs))
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
/// asm_avx2, a no-op rebuild, and openssl-sys's vendored build (openssl-src) for comparison.
fn build_cost(sh: &Shell) -> Result<Cost> {
    let cargo = cargo();
    let root = crate::project_root().join("target/bench-cost");
    let _ = fs::remove_dir_all(&root);
    let (ours, theirs) = (root.join("crypto-sys"), root.join("openssl-src"));
    let ours = || cmd!(sh, "{cargo} build -q --release -p crypto-bench --target-dir {ours}");
    let theirs = vendored_build(sh, &theirs.display().to_string()).arg("-q");
    Ok(vec![
        ("crypto-sys clean build (asm)", timed(sh, "asm", ours())?),
        ("crypto-sys set switch (asm -> asm_avx2)", timed(sh, "asm_avx2", ours())?),
        ("crypto-sys no-op rebuild", timed(sh, "asm_avx2", ours())?),
        ("openssl-src clean build (vendored)", timed(sh, "asm", theirs)?),
    ])
}

/// Seconds one build command takes with CRYPTO_SYS_ASM_SET=`set`.
fn timed(sh: &Shell, set: &str, build: xshell::Cmd<'_>) -> Result<f64> {
    let _set = sh.push_env(ASM_SET_VAR, set);
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
    out
}

fn cargo() -> String {
    crate::cargo()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Profile {
    Release,
    Debug,
}

/// Builds the harness against crypto-sys with one set and keeps a copy. With a compiler, the
/// build gets its own target directory so that it does not invalidate the default ones.
fn build_set(sh: &Shell, set: &str, profile: Profile, cc: Option<&Compiler>) -> Result<Contender> {
    let cargo = cargo();
    let _set = sh.push_env(ASM_SET_VAR, set);
    let _cc = cc.map(|c| sh.push_env("CC", &c.path));
    let (dir, label) = match cc {
        None => ("target/bench".to_string(), set.to_string()),
        Some(c) => (format!("target/bench-cc-{}", c.name), format!("{set}-{}", c.name)),
    };
    let (release, built, label) = match profile {
        Profile::Release => (Some("--release"), "release", label),
        Profile::Debug => (None, "debug", format!("{label}-debug")),
    };
    let build = cmd!(sh, "{cargo} build {release...} -p crypto-bench --target-dir {dir}");
    build_and_keep(build, &format!("{dir}/{built}"), &label)
}

/// The same harness against OpenSSL built by its own Configure and make (openssl-src),
/// optionally with another compiler in its own target directory.
fn build_openssl_src(sh: &Shell, cc: Option<&Compiler>) -> Result<Contender> {
    let _cc = cc.map(|c| sh.push_env("CC", &c.path));
    let (dir, label) = match cc {
        None => ("target/bench-openssl-src".to_string(), OPENSSL_SRC.to_string()),
        Some(c) => {
            (format!("target/bench-openssl-src-cc-{}", c.name), format!("{OPENSSL_SRC}-{}", c.name))
        }
    };
    build_and_keep(vendored_build(sh, &dir), &format!("{dir}/release"), &label)
}

/// A release build of the harness against openssl-sys's vendored OpenSSL.
fn vendored_build<'a>(sh: &'a Shell, target_dir: &str) -> xshell::Cmd<'a> {
    let cargo = cargo();
    cmd!(
        sh,
        "{cargo} build --release -p crypto-bench --no-default-features --features vendored --target-dir {target_dir}"
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
    let dir = crate::project_root().join("target/bench/bin");
    fs::create_dir_all(&dir)?;
    let exe = dir.join(format!("crypto-bench-{label}"));
    fs::copy(crate::project_root().join(built), &exe)
        .with_context(|| format!("keeping {built} as {}", exe.display()))?;
    Ok(Contender { label: label.into(), exe })
}

/// Runs every contender once per round, interleaved, keeping each figure's best value.
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
                let f: Vec<&str> = line.split('\t').collect();
                let [figure, unit, value] = f[..] else { bail!("bad harness line `{line}`") };
                let value: f64 = value.parse().with_context(|| format!("bad value in `{line}`"))?;
                let entry =
                    results.entry(figure.into()).or_insert_with(|| (unit.into(), BTreeMap::new()));
                let best = entry.1.entry(c.label.clone()).or_insert(0.0);
                *best = best.max(value);
            }
        }
    }
    progress(total, total, "done");
    eprintln!();
    Ok(results)
}

fn progress(done: usize, total: usize, what: &str) {
    let width = 30;
    let filled = done * width / total.max(1);
    eprint!("\r[{}{}] {done}/{total} {what:<24}", "#".repeat(filled), " ".repeat(width - filled));
    let _ = std::io::stderr().flush();
}

/// Each figure's value per contender, with its ratio to `asm` (or the first contender).
fn table(results: &Results, labels: &[&str]) -> String {
    let base = if labels.contains(&"asm") { "asm" } else { labels[0] };
    let mut out = format!("{:<42} {:>5}", "figure", "unit");
    for l in labels {
        let _ = write!(out, " {l:>w$} {:>6}", "ratio", w = l.len().max(12));
    }
    out.push('\n');
    for (figure, (unit, values)) in results {
        let _ = write!(out, "{figure:<42} {unit:>5}");
        let b = values.get(base).copied().unwrap_or(f64::NAN);
        for l in labels {
            let v = values.get(*l).copied().unwrap_or(f64::NAN);
            let _ = write!(out, " {v:>w$.1} {:>6.2}", v / b, w = l.len().max(12));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "ratios are to `{base}`; higher is faster");
    out
}

/// Pairs each openssl-src build with the `asm` build made the same way (`openssl-src-X` with
/// `asm-X`), so that a ratio compares the builds, not the compilers.
fn pairs(labels: &[&str]) -> Vec<Pair> {
    labels
        .iter()
        .filter_map(|l| {
            let how = l.strip_prefix(OPENSSL_SRC)?;
            let ours = format!("asm{how}");
            labels.contains(&ours.as_str()).then(|| (ours, l.to_string()))
        })
        .collect()
}

/// ours / theirs for one figure; NaN when either is missing.
fn ratio(values: &BTreeMap<String, f64>, (ours, theirs): &Pair) -> f64 {
    let get = |l: &String| values.get(l).copied().unwrap_or(f64::NAN);
    get(ours) / get(theirs)
}

/// Geometric mean of the finite ratios: the fair average of ratios; NaN when there are none.
fn geomean(ratios: impl Iterator<Item = f64>) -> f64 {
    let logs: Vec<f64> = ratios.filter(|r| r.is_finite() && *r > 0.0).map(f64::ln).collect();
    (logs.iter().sum::<f64>() / logs.len() as f64).exp()
}

/// Each pair's ratio per figure and their geometric mean; empty without pairs.
fn pair_table(results: &Results, pairs: &[Pair]) -> String {
    if pairs.is_empty() {
        return String::new();
    }
    let heads: Vec<String> = pairs.iter().map(|(o, t)| format!("{o} / {t}")).collect();
    let mut out =
        format!("\nours vs openssl-src built the same way\n{:<42} {:>5}", "figure", "unit");
    for h in &heads {
        let _ = write!(out, "  {h:>8}");
    }
    out.push('\n');
    let mut row = |figure: &str, unit: &str, ratios: Vec<f64>| {
        let _ = write!(out, "{figure:<42} {unit:>5}");
        for (h, r) in heads.iter().zip(ratios) {
            let _ = write!(out, "  {r:>w$.2}", w = h.len().max(8));
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

/// A number for JSON, which has no NaN.
fn json_num(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.3}")
    } else {
        "null".into()
    }
}

fn json(results: &Results, cost: &Cost, pairs: &[Pair]) -> String {
    let figures: Vec<String> = results
        .iter()
        .map(|(figure, (unit, values))| {
            let v: Vec<String> = values.iter().map(|(l, x)| format!("\"{l}\":{x:.1}")).collect();
            format!(
                "{{\"figure\":\"{figure}\",\"unit\":\"{unit}\",\"values\":{{{}}}}}",
                v.join(",")
            )
        })
        .collect();
    let pairs: Vec<String> = pairs
        .iter()
        .map(|p| {
            let ratios: Vec<String> = results
                .iter()
                .map(|(figure, (_, values))| format!("\"{figure}\":{}", json_num(ratio(values, p))))
                .collect();
            let mean = geomean(results.values().map(|(_, v)| ratio(v, p)));
            format!(
                "{{\"ours\":\"{}\",\"theirs\":\"{}\",\"geomean\":{},\"ratios\":{{{}}}}}",
                p.0,
                p.1,
                json_num(mean),
                ratios.join(",")
            )
        })
        .collect();
    let cost: Vec<String> = cost.iter().map(|(l, s)| format!("\"{l}\":{s:.1}")).collect();
    format!(
        "{{\"figures\":[\n{}\n],\n\"pairs\":[\n{}\n],\n\"build_seconds\":{{{}}}}}\n",
        figures.join(",\n"),
        pairs.join(",\n"),
        cost.join(",")
    )
}

/// Horizontal bars: for each figure, one bar per contender, scaled to the figure's best.
fn svg(results: &Results, labels: &[&str]) -> String {
    // Enough for every contender: three sets, asm-debug, asm-<cc> and two openssl-src builds.
    const COLOURS: [&str; 8] =
        ["#1b7837", "#762a83", "#d6604d", "#4393c3", "#878787", "#e08214", "#5aae61", "#b2182b"];
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
        let best = values.values().cloned().fold(0.0, f64::max);
        let _ = writeln!(s, "<text x=\"10\" y=\"{:.0}\">{figure} ({unit})</text>", y + bar_h);
        for (i, l) in labels.iter().enumerate() {
            let v = values.get(*l).copied().unwrap_or(0.0);
            let w = if best > 0.0 { bar_w * v / best } else { 0.0 };
            let by = y + i as f64 * bar_h;
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
        assert_eq!(cells(&t, "X25519 derive"), ["op/s", "0.80", "NaN"], "{t}");
        // sqrt(1.25 * 0.80) = 1; the missing figure leaves 0.90 alone.
        assert_eq!(cells(&t, "geometric mean"), ["1.00", "0.90"], "{t}");
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

    #[test]
    fn json_and_svg_carry_every_value() {
        let cost = vec![
            ("crypto-sys clean build (asm)", 70.0),
            ("openssl-src clean build (vendored)", 88.0),
        ];
        let j = json(&sample(), &cost, &[]);
        assert!(j.contains("\"pairs\":[\n\n]"), "{j}");
        assert!(j.contains("\"asm\":200.0") && j.contains("\"asm_avx2\":50.0"), "{j}");
        assert!(j.contains("\"crypto-sys clean build (asm)\":70.0"), "{j}");
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
        let j = json(&r, &Cost::new(), &p);
        assert!(j.contains("{\"figure\":\"X25519 derive\",\"unit\":\"op/s\",\"values\":{\"asm\":100.0,\"asm-clang-19\":50.0,\"openssl-src\":125.0}}"), "{j}");
        assert!(j.contains("{\"ours\":\"asm\",\"theirs\":\"openssl-src\",\"geomean\":1.000,\"ratios\":{\"ECDH P-384 derive\":1.250,\"X25519 derive\":0.800}}"), "{j}");
        // JSON has no NaN: a missing figure is null.
        assert!(
            j.contains(
                "\"geomean\":0.900,\"ratios\":{\"ECDH P-384 derive\":0.900,\"X25519 derive\":null}"
            ),
            "{j}"
        );
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
}
