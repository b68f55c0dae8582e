//! `cargo xtask bench`: every set (and optionally openssl-src's own build) measured in one run,
//! interleaved round by round, reported as a table of figures and ratios, JSON and an SVG chart.

use crate::flags::Bench;
use anyhow::{bail, Context, Result};
use crypto_build::config::{SetChoice, ASM_SET_VAR};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;
use xshell::{cmd, Shell};

const OPENSSL_SRC: &str = "openssl-src";

/// One measured build: its label and binary.
struct Contender {
    label: String,
    exe: PathBuf,
}

/// figure -> (unit, label -> best value over the rounds)
type Results = BTreeMap<String, (String, BTreeMap<String, f64>)>;

impl Bench {
    pub fn run(self, sh: &Shell) -> Result<()> {
        let sets: Vec<String> = match &self.sets {
            Some(s) => s.split(',').map(String::from).collect(),
            None => vec!["asm".into(), "asm_avx2".into(), "no_asm".into()],
        };
        for s in &sets {
            SetChoice::parse(s)?;
        }
        let cost = match self.against.as_deref() {
            Some(OPENSSL_SRC) => Some(build_cost(sh)?),
            _ => None,
        };
        let mut contenders = Vec::new();
        for set in &sets {
            contenders.push(build_set(sh, set, Profile::Release)?);
        }
        if sets.iter().any(|s| s == "asm") {
            // OpenSSL's C is built at -O3 in every profile: a debug build must be as fast.
            contenders.push(build_set(sh, "asm", Profile::Debug)?);
        }
        match self.against.as_deref() {
            None => {}
            Some(OPENSSL_SRC) => contenders.push(build_openssl_src(sh)?),
            Some(other) => bail!("unknown --against `{other}`; accepted: {OPENSSL_SRC}"),
        }
        let results =
            measure(sh, &contenders, self.rounds.unwrap_or(3), self.seconds.unwrap_or(0.3))?;
        let labels: Vec<&str> = contenders.iter().map(|c| c.label.as_str()).collect();
        print!("{}", table(&results, &labels));
        let cost = cost.unwrap_or_default();
        print!("{}", cost_table(&cost));
        if let Some(path) = &self.json {
            fs::write(path, json(&results, &cost))
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
    let theirs = cmd!(
        sh,
        "{cargo} build -q --release -p crypto-bench --no-default-features --features vendored --target-dir {theirs}"
    );
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
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// Builds the harness against crypto-sys with one set, in release, and keeps a copy.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Profile {
    Release,
    Debug,
}

fn build_set(sh: &Shell, set: &str, profile: Profile) -> Result<Contender> {
    let cargo = cargo();
    let _set = sh.push_env(ASM_SET_VAR, set);
    let started = Instant::now();
    let release = (profile == Profile::Release).then_some("--release");
    cmd!(sh, "{cargo} build {release...} -p crypto-bench --target-dir target/bench")
        .quiet()
        .run()?;
    eprintln!("built the harness with {set} in {:.1?}", started.elapsed());
    match profile {
        Profile::Release => keep(sh, "target/bench/release/crypto-bench", set),
        Profile::Debug => keep(sh, "target/bench/debug/crypto-bench", &format!("{set}-debug")),
    }
}

/// The same harness against OpenSSL built by its own Configure and make (openssl-src).
fn build_openssl_src(sh: &Shell) -> Result<Contender> {
    let cargo = cargo();
    let started = Instant::now();
    cmd!(
        sh,
        "{cargo} build --release -p crypto-bench --no-default-features --features vendored --target-dir target/bench-openssl-src"
    )
    .quiet()
    .run()?;
    eprintln!("built the harness with openssl-src in {:.1?}", started.elapsed());
    keep(sh, "target/bench-openssl-src/release/crypto-bench", OPENSSL_SRC)
}

fn keep(sh: &Shell, built: &str, label: &str) -> Result<Contender> {
    let dir = crate::project_root().join("target/bench/bin");
    fs::create_dir_all(&dir)?;
    let exe = dir.join(format!("crypto-bench-{label}"));
    sh.copy_file(built, &exe)?;
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
    eprint!("\r[{}{}] {done}/{total} {what:<16}", "#".repeat(filled), " ".repeat(width - filled));
    let _ = std::io::stderr().flush();
}

/// Each figure's value per contender, with its ratio to `asm` (or the first contender).
fn table(results: &Results, labels: &[&str]) -> String {
    let base = if labels.contains(&"asm") { "asm" } else { labels[0] };
    let mut out = format!("{:<42} {:>5}", "figure", "unit");
    for l in labels {
        let _ = write!(out, " {l:>12} {:>6}", "ratio");
    }
    out.push('\n');
    for (figure, (unit, values)) in results {
        let _ = write!(out, "{figure:<42} {unit:>5}");
        let b = values.get(base).copied().unwrap_or(f64::NAN);
        for l in labels {
            let v = values.get(*l).copied().unwrap_or(f64::NAN);
            let _ = write!(out, " {v:>12.1} {:>6.2}", v / b);
        }
        out.push('\n');
    }
    let _ = writeln!(out, "ratios are to `{base}`; higher is faster");
    out
}

fn json(results: &Results, cost: &Cost) -> String {
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
    let cost: Vec<String> = cost.iter().map(|(l, s)| format!("\"{l}\":{s:.1}")).collect();
    format!(
        "{{\"figures\":[\n{}\n],\n\"build_seconds\":{{{}}}}}\n",
        figures.join(",\n"),
        cost.join(",")
    )
}

/// Horizontal bars: for each figure, one bar per contender, scaled to the figure's best.
fn svg(results: &Results, labels: &[&str]) -> String {
    const COLOURS: [&str; 5] = ["#1b7837", "#762a83", "#d6604d", "#4393c3", "#878787"];
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

    #[test]
    fn json_and_svg_carry_every_value() {
        let cost = vec![
            ("crypto-sys clean build (asm)", 70.0),
            ("openssl-src clean build (vendored)", 88.0),
        ];
        let j = json(&sample(), &cost);
        assert!(j.contains("\"asm\":200.0") && j.contains("\"asm_avx2\":50.0"), "{j}");
        assert!(j.contains("\"crypto-sys clean build (asm)\":70.0"), "{j}");
        assert!(cost_table(&cost).contains("70.0 s  (0.80x openssl-src)"), "{}", cost_table(&cost));
        let s = svg(&sample(), &["asm", "asm_avx2"]);
        assert!(
            s.starts_with("<svg") && s.contains("width=\"420.0\"") && s.contains("width=\"105.0\""),
            "{s}"
        );
    }
}
