//! `cargo xtask bench --windows`: the C driver's speed figures for the Windows build under
//! wine (objects from GNU as, and from nasm) beside the native Linux build, interleaved in one
//! run and compared as ratios. The same CPU runs all three, so the ratios say what the
//! assembler and the Windows ABI cost.

use crate::driver::{self, Invocation, Toolchain};
use crate::matrix::{Row, MINGW_GCC};
use anyhow::{bail, Context, Result};
use crypto_build::data::triples::X86_64_WINDOWS_GNU;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use xshell::{cmd, Shell};

struct Contender {
    label: &'static str,
    tc: Toolchain,
    exe: PathBuf,
}

/// Builds the three prefixes and drivers, runs `rounds` interleaved rounds of `seconds` per
/// figure, and prints the medians and their ratios.
pub fn run(sh: &Shell, rounds: usize, seconds: f64) -> Result<()> {
    let cargo = crate::cargo::cargo();
    let root = crate::cargo::project_root();
    let native = root.join("target/bench-windows/native");
    let (gas, nasm) =
        (root.join("target/bench-windows/gas"), root.join("target/bench-windows/nasm"));
    cmd!(sh, "{cargo} xtask build --release --prefix {native}").run()?;
    cmd!(sh, "{cargo} xtask build --target {X86_64_WINDOWS_GNU} --prefix {gas}").run()?;
    cmd!(sh, "{cargo} xtask build --target {X86_64_WINDOWS_GNU} --assembler nasm --prefix {nasm}")
        .run()?;
    let host = crate::matrix::workspace_row().driver()?;
    let mingw = Row::find(X86_64_WINDOWS_GNU, MINGW_GCC, None)?.driver()?;
    let contenders = [
        contender(sh, "linux (native)", host, &native)?,
        contender(sh, "wine, GNU as", mingw.clone(), &gas)?,
        contender(sh, "wine, nasm", mingw, &nasm)?,
    ];
    let ms = (seconds * 1000.0).round() as u64;
    let mut samples: BTreeMap<(String, &str), Vec<f64>> = BTreeMap::new();
    for round in 0..rounds {
        for c in &contenders {
            eprintln!("bench --windows: round {}/{rounds}, {}", round + 1, c.label);
            for (name, value) in figures(c, ms)? {
                samples.entry((name, c.label)).or_default().push(value);
            }
        }
    }
    print!("{}", table(&samples, &contenders));
    Ok(())
}

fn contender(sh: &Shell, label: &'static str, tc: Toolchain, prefix: &Path) -> Result<Contender> {
    let name = format!("bench-{}", prefix.file_name().unwrap_or_default().to_string_lossy());
    let exe = driver::build(sh, &tc, &name, prefix, true)?;
    Ok(Contender { label, tc, exe })
}

/// One `driver bench` run: each `bench <name> <value>` line.
fn figures(c: &Contender, ms: u64) -> Result<Vec<(String, f64)>> {
    let dir = c.exe.parent().context("the driver's directory")?;
    let ms_arg = ms.to_string();
    let inv = Invocation {
        exe: &c.exe,
        args: &["bench", &ms_arg],
        cwd: dir,
        env: &[],
        log: &dir.join("bench"),
        timeout: Duration::from_millis(ms * 3 + 60_000),
    };
    let out = c.tc.runner.run(&inv)?;
    if !out.status.success() {
        bail!("driver bench ({}) failed: {}\n{}", c.label, out.status, out.stderr);
    }
    out.stdout
        .lines()
        .filter_map(|l| l.strip_prefix("bench "))
        .map(|l| {
            let (name, value) = l.split_once(' ').context("a bench line")?;
            Ok((name.to_string(), value.parse().context("a bench figure")?))
        })
        .collect()
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn table(samples: &BTreeMap<(String, &str), Vec<f64>>, contenders: &[Contender]) -> String {
    let mut names: Vec<&String> = samples.keys().map(|(n, _)| n).collect();
    names.dedup();
    let mut out = String::from(
        "| figure (median) | linux (native) | wine, GNU as | wine, nasm | GNU as / native | nasm / GNU as |\n| --- | --- | --- | --- | --- | --- |\n",
    );
    for name in names {
        let m: Vec<f64> =
            contenders.iter().map(|c| median(&samples[&(name.clone(), c.label)])).collect();
        let unit = if name.contains("sign") { "op/s" } else { "MB/s" };
        out += &format!(
            "| {name} | {:.0} {unit} | {:.0} {unit} | {:.0} {unit} | {:.3} | {:.3} |\n",
            m[0],
            m[1],
            m[2],
            m[1] / m[0],
            m[2] / m[1]
        );
    }
    out
}
