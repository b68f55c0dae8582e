//! The C driver against a prefix, as `cargo xtask test`'s steps check it: every check passes,
//! a tampered vector fails, and each code path the CPU or emulator can run is proved taken.

use crate::driver::{
    self, build, compile_only, parse_report, AsmKind, Report, RunOutput, Runner, Toolchain,
};
use crate::matrix::Row;
use anyhow::{ensure, Context, Result};
use crypto_build::data::{
    Aarch64CodePath, CodePath, DriverFamilies, Observe, AARCH64_CODE_PATHS, X86_64_CODE_PATHS,
};
use crypto_build::facts::BuildFacts;
use std::fs;
use std::path::Path;
use std::time::Instant;
use xshell::Shell;

/// Whether the prefix's build took `file` (any syntax's extension) from `asm`.
fn took_from_asm(facts: &BuildFacts, file: &str) -> bool {
    facts.set_of(file) == Some("asm")
}

/// `cargo xtask test`'s driver step: `check_prefix` with the host's cc, then the driver's
/// sources compiled for Windows (there is no Windows prefix to link against yet).
pub fn native_step(sh: &Shell, prefix: &Path) -> Result<()> {
    check_prefix(sh, &crate::matrix::workspace_row().driver()?, prefix)?;
    let mingw = Row::find("x86_64-pc-windows-gnu", "x86_64-w64-mingw32-gcc", None)?.driver()?;
    compile_only(sh, &mingw, &prefix.join("include"), true)
        .context("the driver's sources for Windows (compile only)")?;
    println!("driver: its sources compile for Windows");
    Ok(())
}

/// Builds the driver with `tc` against `prefix` and runs it with `tc`'s runner: every check
/// must pass, a tampered copy of its vectors must fail, and its path report must match the
/// plan the prefix records and, for programs on this CPU, this CPU, with AVX512F both as is
/// and masked through OPENSSL_ia32cap; an aarch64 prefix with asm runs on every row of
/// `data::AARCH64_CODE_PATHS`. A Windows prefix: with mingw gcc's row's toolchain. Every
/// run checks the known answers and digests; the default path every Wycheproof family, the
/// others those their row names (`data::DriverFamilies`), each leaving out named in one line.
/// The runs go side by side, up to this machine's cores, and are checked in order after.
pub fn check_prefix(sh: &Shell, tc: &Toolchain, prefix: &Path) -> Result<()> {
    prefix_checks(sh, tc, prefix)
        .with_context(|| format!("the C test driver ({}) against {}", tc.name, prefix.display()))
}

/// One run of the driver among a prefix's checks.
struct PathRun {
    /// Its log files' name, `run-<path>`.
    label: String,
    env: Vec<(&'static str, &'static str)>,
    /// The Wycheproof families it checks (the known answers and digests always run).
    families: Vec<&'static str>,
    /// `vectors`, or the tampered copy.
    vectors: &'static str,
}

impl PathRun {
    fn new(label: String, env: Vec<(&'static str, &'static str)>, f: DriverFamilies) -> Self {
        PathRun { label, env, families: driver::requested(f), vectors: "vectors" }
    }
}

/// Names what a path's run leaves out of the driver's families, and why (never silently).
fn say_left_out(tc: &Toolchain, set: &str, path: &str, families: DriverFamilies) {
    if let DriverFamilies::Only(_, why) = families {
        let out = driver::left_out(&driver::requested(families)).join(", ");
        println!("driver ({}, set {set}): the {path} path leaves out {out}: {why}", tc.name);
    }
}

fn prefix_checks(sh: &Shell, tc: &Toolchain, prefix: &Path) -> Result<()> {
    let plan = crate::prefix::facts(prefix)?;
    let asm = if plan.effective_set == "no_asm" { AsmKind::None } else { tc.asm };
    let name = format!("{}-{}", tc.name, plan.effective_set);
    let exe = build(sh, tc, &name, prefix, asm != AsmKind::None)?;
    let timeout = tc.runner.driver_timeout();
    let set = plan.effective_set.as_str();
    let x86_paths =
        cfg!(target_arch = "x86_64") && asm == AsmKind::X86_64 && tc.runner.on_this_cpu();
    // Every run is planned first, then run side by side, then checked one by one in order.
    let mut runs = Vec::new();
    if asm == AsmKind::Aarch64 {
        for row in AARCH64_CODE_PATHS {
            if row.armcap.is_none() && tc.runner != Runner::QemuAarch64 {
                println!(
                    "skipped: driver on the {} path: the CPU is only chosen under qemu",
                    row.name
                );
                continue;
            }
            let mut env = Vec::new();
            env.extend(row.armcap.map(|v| ("OPENSSL_armcap", v)));
            env.extend(row.qemu_cpu.map(|c| ("QEMU_CPU", c)));
            say_left_out(tc, set, row.name, row.families);
            runs.push((Some(row), PathRun::new(format!("run-{}", row.name), env, row.families)));
        }
    } else {
        runs.push((None, PathRun::new("run".into(), Vec::new(), DriverFamilies::All)));
    }
    let x86_rows = if x86_paths { x86_path_runs(tc, set) } else { Vec::new() };
    let tamper = tamper_vectors(&exe)?;
    println!(
        "driver ({}, set {set}): the tampered-vector control checks {TAMPERED_FAMILY} alone, \
         the family it tampers",
        tc.name
    );
    let tampered = PathRun {
        label: "run-tampered".into(),
        env: Vec::new(),
        // Only the family it tampers (the known answers run anyway).
        families: vec![TAMPERED_FAMILY],
        vectors: "tampered",
    };
    let all: Vec<&PathRun> = (runs.iter().map(|(_, r)| r))
        .chain(x86_rows.iter().filter_map(|(_, run)| run.as_ref()))
        .chain(std::iter::once(&tampered))
        .collect();
    let started = Instant::now();
    let mut outputs = driver::side_by_side(&all, |r| {
        let started = Instant::now();
        let out = driver::run_raw(tc, &exe, (r.vectors, &r.label), &r.env, &r.families, timeout);
        (out, started.elapsed().as_secs_f64())
    })
    .into_iter();
    println!(
        "driver ({}, set {set}): {} runs side by side in {:.1} s",
        tc.name,
        all.len(),
        started.elapsed().as_secs_f64()
    );
    let mut next = |run: &PathRun| {
        let (out, secs) = outputs.next().expect("one output per run");
        let report = out.and_then(|out| driver::check_output(&exe, &out, &run.families));
        report.map(|r| (r, secs))
    };
    let mut unmasked = None;
    for (row, run) in &runs {
        match row {
            Some(row) => check_aarch64_path(tc, row, next(run), &plan)?,
            None => {
                let (report, secs) = next(run)?;
                print_counts(&report);
                check_report(&report, asm, &plan)?;
                println!("driver ({}, set {set}): one run in {secs:.1} s", tc.name);
                #[cfg(target_arch = "x86_64")]
                if x86_paths {
                    cpu::check_unmasked(&report.path, &|f| took_from_asm(&plan, f))?;
                }
                unmasked = Some(report);
            }
        }
    }
    for (row, run) in &x86_rows {
        let result = match run {
            Some(run) => next(run),
            // The unmasked run is this path's run: the same program, environment and families.
            None => Ok((unmasked.clone().context("the unmasked run")?, 0.0)),
        };
        check_x86_path(tc, row, result, &plan)?;
    }
    let (out, _) = outputs.next().expect("the tampered run's output");
    tampered_vectors_fail(&out?, &tamper)?;
    println!("driver ({}, set {set}): every check passed", tc.name);
    Ok(())
}

/// What every run must report whatever its code path: this OpenSSL, the asm symbols it was
/// built with, and nistp code for P-224/384/521 exactly when the prefix's C variant has it.
fn check_report(report: &Report, asm: AsmKind, plan: &BuildFacts) -> Result<()> {
    ensure!(
        report.openssl == plan.openssl_version,
        "the driver linked OpenSSL {}, the prefix holds {}",
        report.openssl,
        plan.openssl_version
    );
    ensure!(report.path.asm == asm, "expected {asm:?} asm symbols: {:?}", report.path);
    let nistp = plan.c_variant_name() == crypto_build::data::C_VARIANTS[0].name;
    for curve in ["P-224", "P-384", "P-521"] {
        let got = report.path.nistp.get(curve).copied();
        let c = plan.c_variant_name();
        ensure!(
            got == Some(nistp),
            "{curve}: nistp code {got:?}, but the prefix's C variant is {c}"
        );
    }
    Ok(())
}

/// The driver on an aarch64 code path of `data::AARCH64_CODE_PATHS`: its OPENSSL_armcap_P
/// must have the row's bits, and equal the row's OPENSSL_armcap when it gives one. The rows
/// that depend on the CPU need qemu, which emulates the CPU they name.
fn check_aarch64_path(
    tc: &Toolchain,
    row: &Aarch64CodePath,
    result: Result<(Report, f64)>,
    plan: &BuildFacts,
) -> Result<()> {
    let shown = format!(
        "OPENSSL_armcap={}, qemu CPU {}",
        row.armcap.unwrap_or("(unset)"),
        row.qemu_cpu.unwrap_or("max")
    );
    let (r, secs) =
        result.with_context(|| format!("the driver on the {} path ({shown})", row.name))?;
    check_report(&r, AsmKind::Aarch64, plan)?;
    let cap = r.path.armcap_p.context("the driver reported no OPENSSL_armcap_P")?;
    let mut wrong = Vec::new();
    for (bits, want) in [(row.set, true), (row.clear, false)] {
        for b in bits.iter().filter(|b| (cap >> b.bit & 1 == 1) != want) {
            wrong.push(format!("{} should be {}", b.name, if want { "set" } else { "clear" }));
        }
    }
    if let Some(v) = row.armcap_value()? {
        if cap != v {
            wrong.push(format!("OPENSSL_armcap_P should be {v:#x} exactly"));
        }
    }
    ensure!(
        wrong.is_empty(),
        "{shown} did not give the {} path: {}; OpenSSL saw {cap:#010x}",
        row.name,
        wrong.join("; ")
    );
    if row.name == AARCH64_CODE_PATHS[0].name {
        print_counts(&r);
    }
    println!(
        "driver ({}, set {}): {} path ({shown}, OPENSSL_armcap_P {cap:#010x}: {}) proved \
         and passed in {secs:.0} s",
        tc.name, plan.effective_set, row.name, row.takes
    );
    Ok(())
}

/// The runs for every x86_64 code path of `data::X86_64_CODE_PATHS` the CPU can run (a path
/// it cannot is named in one loud line); `None` for the unmasked path, whose run is the
/// prefix's first.
fn x86_path_runs(tc: &Toolchain, set: &str) -> Vec<(&'static CodePath, Option<PathRun>)> {
    let mut runs = Vec::new();
    for row in X86_64_CODE_PATHS {
        if let Some(f) = row.missing_cpu_feature() {
            println!("skipped: driver on the {} path: this CPU lacks {f}", row.name);
            continue;
        }
        say_left_out(tc, set, row.name, row.families);
        let run = row.ia32cap.map(|m| {
            let label = format!("run-{}", row.name.replace('/', "-"));
            PathRun::new(label, vec![("OPENSSL_ia32cap", m)], row.families)
        });
        runs.push((row, run));
    }
    runs
}

/// A run on an x86_64 code path must show what its row says OpenSSL sees, eligibility
/// functions judged only where their file came from `asm`.
fn check_x86_path(
    tc: &Toolchain,
    row: &CodePath,
    result: Result<(Report, f64)>,
    plan: &BuildFacts,
) -> Result<()> {
    let shown = row.ia32cap.unwrap_or("(unset)");
    let (r, secs) = result.with_context(|| {
        format!("the driver on the {} path (OPENSSL_ia32cap={shown})", row.name)
    })?;
    let cap = r.path.ia32cap_p.context("the driver reported no OPENSSL_ia32cap_P")?;
    let mut wrong = Vec::new();
    for o in row.observations() {
        match o {
            Observe::Bit(b, want, why) => {
                if (cap[b.word] >> b.bit & 1 == 1) != want {
                    wrong.push(format!(
                        "{} should be {} ({why})",
                        b.name,
                        if want { "set" } else { "clear" }
                    ));
                }
            }
            Observe::Eligible(e, want) => {
                let want = want && took_from_asm(plan, e.file);
                let got = r.path.eligible(e.symbol);
                if got != Some(want) {
                    wrong.push(format!("{} answered {got:?}, expected {want}", e.symbol));
                }
            }
            Observe::Group(_) => {}
        }
    }
    ensure!(
        wrong.is_empty(),
        "OPENSSL_ia32cap={shown} did not select the {} path: {}; OpenSSL saw {cap:08x?}",
        row.name,
        wrong.join("; ")
    );
    let took =
        if row.ia32cap.is_none() { "the unmasked run".into() } else { format!("{secs:.1} s") };
    println!(
        "driver ({}, set {}): {} path proved and passed ({took})",
        tc.name, plan.effective_set, row.name
    );
    Ok(())
}

/// The family the negative control tampers with.
const TAMPERED_FAMILY: &str = "ecdsa_p256";

/// A negative control: a copy of the driver's vectors (`tampered/`) with one valid ECDSA
/// signature changed; returns the one failure line a run on it must print.
fn tamper_vectors(exe: &Path) -> Result<String> {
    let dir = exe.parent().context("the driver's directory")?;
    let (vectors, tampered) = (dir.join("vectors"), dir.join("tampered"));
    crypto_build::generate::copy_tree(&vectors, &tampered)?;
    let path = tampered.join(format!("{TAMPERED_FAMILY}.txt"));
    let text = fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let (at, line) = (text.lines().enumerate())
        .find(|(_, l)| l.starts_with("test ") && l.split(' ').nth(2) == Some("valid"))
        .context("no valid vector to tamper with")?;
    let tc_id = line.split(' ').nth(1).context("a tcId")?;
    // The signature is the line's last field: flip the low bit of its last hex digit.
    let last = line.chars().last().and_then(|c| c.to_digit(16)).context("a hex digit")?;
    let changed = format!("{}{:x}", &line[..line.len() - 1], last ^ 1);
    let want = format!(
        "FAIL {TAMPERED_FAMILY}: EcdsaSecp256r1Sha256 tcId {tc_id}: expected valid, got rejected"
    );
    let mut lines: Vec<&str> = text.lines().collect();
    lines[at] = &changed;
    fs::write(&path, lines.join("\n") + "\n")?;
    Ok(want)
}

/// The driver on the tampered vectors must fail, naming that file and tcId, and nothing else.
fn tampered_vectors_fail(out: &RunOutput, want: &str) -> Result<()> {
    let report = parse_report(&out.stdout)?;
    ensure!(
        !report.passed && out.status.code() == Some(1) && report.failures == [want],
        "a tampered vector must fail the driver with `{want}` alone; it exited with {} and \
         reported {:?}",
        out.status,
        report.failures
    );
    driver::check_counts(&report, &[TAMPERED_FAMILY])
}

fn print_counts(report: &Report) {
    for (family, fields) in &report.counts {
        let fields: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let ms = report.ms.get(family).map(|ms| format!(" ({ms} ms)")).unwrap_or_default();
        println!("driver {family}: {}{ms}", fields.join(" "));
    }
}

/// The x86_64 asm's eligibility functions against this CPU, as Rust's feature detection sees it.
#[cfg(target_arch = "x86_64")]
mod cpu {
    use crate::driver::PathReport;
    use anyhow::{ensure, Context, Result};
    use crypto_build::data::{cpu_has, ELIGIBILITIES};

    /// Without a mask: each bit an eligibility function reads matches this CPU, and each
    /// function answers what its bits give (0 where its file came from a slower set, whose
    /// copy is a stub).
    pub fn check_unmasked(p: &PathReport, from_asm: &dyn Fn(&str) -> bool) -> Result<()> {
        let cap = p.ia32cap_p.context("the driver reported no OPENSSL_ia32cap_P")?;
        let set = |b: &crypto_build::data::CapBit| cap[b.word] & (1 << b.bit) != 0;
        for e in ELIGIBILITIES {
            for b in e.needs {
                let (seen, cpu) = (set(b), cpu_has(*b));
                ensure!(seen == cpu, "{}: OPENSSL_ia32cap_P says {seen}, this CPU {cpu}", b.name);
            }
            let got = p.eligible(e.symbol);
            let want = e.needs.iter().all(set) && from_asm(e.file);
            ensure!(got == Some(want), "{}: the driver reports {got:?}, expected {want}", e.symbol);
        }
        let live = |b: Option<bool>| if b == Some(true) { "live" } else { "not live" };
        let shown: Vec<String> = ELIGIBILITIES
            .iter()
            .map(|e| format!("{} {}", e.symbol, live(p.eligible(e.symbol))))
            .collect();
        println!("driver paths: {}", shown.join(", "));
        Ok(())
    }
}
