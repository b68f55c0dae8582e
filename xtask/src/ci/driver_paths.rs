//! The C driver against a prefix, as `cargo xtask test`'s steps check it: every check passes,
//! a tampered vector fails, and each code path the CPU or emulator can run is proved taken.

use crate::driver::{self, build, compile_only, parse_report, Report, RunOutput, Toolchain};
use crate::matrix::{Row, MINGW_GCC};
use crate::runner::Runner;
use anyhow::{ensure, Context, Result};
use crypto_build::data::triples::X86_64_WINDOWS_GNU;
use crypto_build::data::{is_set, Arch, CapVar, CodePath, DriverFamilies, Eligibility, SetRole};
use crypto_build::facts::BuildFacts;
use std::fs;
use std::path::Path;
use std::time::Instant;
use xshell::Shell;

/// Whether the prefix's build took `file` (any syntax's extension) from `asm`.
fn took_from_asm(facts: &BuildFacts, file: &str) -> bool {
    facts.set_of(file).is_some_and(|set| is_set(set, SetRole::Avx512))
}

/// `cargo xtask test`'s driver step: `check_prefix` with the host's cc, then the driver's
/// sources compiled for Windows (there is no Windows prefix to link against yet).
pub fn native_step(sh: &Shell, prefix: &Path) -> Result<()> {
    check_prefix(sh, &crate::matrix::workspace_row().driver()?, prefix)?;
    let mingw = Row::find(X86_64_WINDOWS_GNU, MINGW_GCC, None)?.driver()?;
    compile_only(sh, &mingw, &prefix.join("include"), true)
        .context("the driver's sources for Windows (compile only)")?;
    println!("driver: its sources compile for Windows");
    Ok(())
}

/// Builds the driver with `tc` against `prefix` and runs it with `tc`'s runner: every check
/// must pass, a tampered copy of its vectors must fail, and its path report must match the
/// plan the prefix records and, for programs on this CPU, this CPU; a prefix with asm runs on
/// every code path of its architecture (`Arch::code_paths`) that the runner can run, each
/// proved from the capability words OpenSSL reports. Every run checks the known answers and digests; the default path every Wycheproof family, the
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

/// The driver's build directory under `target/driver/`: one per prefix and set, named after
/// the prefix's path under `target/`. Named after the toolchain instead, the `aarch64` and
/// `patch` steps, side by side, rebuilt one driver while the other ran it.
fn dir_name(prefix: &Path, set: &str) -> String {
    let target = crate::cargo::project_root().join("target");
    let rel = prefix.strip_prefix(&target).unwrap_or(prefix);
    let words: Vec<String> = rel
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(w) => Some(w.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    format!("{}-{set}", words.join("-"))
}

fn prefix_checks(sh: &Shell, tc: &Toolchain, prefix: &Path) -> Result<()> {
    let plan = crate::prefix::facts(prefix)?;
    let asm = tc.asm.filter(|_| !is_set(&plan.effective_set, SetRole::PlainC));
    let exe = build(sh, tc, &dir_name(prefix, &plan.effective_set), prefix, asm.is_some())?;
    let timeout = tc.runner.driver_timeout();
    let set = plan.effective_set.as_str();
    // Every run is planned first, then run side by side, then checked one by one in order.
    let plain = PathRun::new("run".into(), Vec::new(), DriverFamilies::All);
    let paths = asm.map(|a| path_runs(tc, set, a)).unwrap_or_default();
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
    let all: Vec<&PathRun> = std::iter::once(&plain)
        .chain(paths.iter().filter_map(|(_, run)| run.as_ref()))
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
    let (report, secs) = next(&plain)?;
    print_counts(&report);
    check_report(&report, asm, &plan)?;
    println!("driver ({}, set {set}): the run without a mask in {secs:.1} s", tc.name);
    #[cfg(target_arch = "x86_64")]
    if asm == Some(Arch::X86_64) && tc.runner.on_this_cpu() {
        cpu::check_unmasked(&report.path, &plan)?;
    }
    for (path, run) in &paths {
        let arch = asm.expect("code paths only for a prefix with asm");
        let result = match run {
            Some(run) => next(run).map(|(r, secs)| (r, Some(secs))),
            // The plain run is this path's run: the same program, environment and families.
            None => Ok((report.clone(), None)),
        };
        check_path(tc, arch, path, result, &plan)?;
    }
    let (out, _) = outputs.next().expect("the tampered run's output");
    tampered_vectors_fail(&out?, &tamper)?;
    println!("driver ({}, set {set}): every check passed", tc.name);
    Ok(())
}

/// What every run must report whatever its code path: this OpenSSL, the asm symbols it was
/// built with, and nistp code for P-224/384/521 exactly when the prefix's C variant has it.
fn check_report(report: &Report, asm: Option<Arch>, plan: &BuildFacts) -> Result<()> {
    ensure!(
        report.openssl == plan.openssl_version,
        "the driver linked OpenSSL {}, the prefix holds {}",
        report.openssl,
        plan.openssl_version
    );
    ensure!(report.path.asm == asm, "expected {asm:?} asm symbols: {:?}", report.path);
    let nistp = plan.c_variant_name() == crypto_build::data::NISTP;
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

/// Why `tc`'s runner cannot run a code path, if it cannot: a path of a named CPU needs qemu,
/// which emulates it unless the path says what qemu lacks; on this machine's own CPU
/// (natively, wine) the path needs its features.
pub(super) fn cannot_run(runner: Runner, path: &CodePath) -> Option<String> {
    if runner.is_qemu() {
        return path.qemu_lacks.map(|why| format!("qemu 7.2 cannot run it: {why}"));
    }
    if path.qemu_cpu.is_some() {
        return Some("the CPU is only chosen under qemu".into());
    }
    path.missing_cpu_feature().map(|f| format!("this CPU lacks {f}"))
}

/// The runs for every code path of the architecture (`data::CodePath`) that `tc`'s runner
/// can run (a path it cannot is named in one loud line); `None` for the path of the plain
/// run (nothing given, the CPU decides), which is the prefix's first.
fn path_runs(tc: &Toolchain, set: &str, arch: Arch) -> Vec<(&'static CodePath, Option<PathRun>)> {
    let var = arch.cap_var();
    let mut runs = Vec::new();
    for path in arch.code_paths() {
        if let Some(why) = cannot_run(tc.runner, path) {
            println!("skipped: driver on the {} path: {why}", path.name);
            continue;
        }
        say_left_out(tc, set, path.name, path.families);
        let mut env = Vec::new();
        // A path with a value has a variable to give it in (`paths_agree_with_their_values`).
        env.extend(path.cap.zip(var).map(|(v, var)| (var.env, v)));
        env.extend(path.qemu_cpu.map(|c| ("QEMU_CPU", c)));
        let label = format!("run-{}", path.name.replace('/', "-"));
        let run = (!env.is_empty()).then(|| PathRun::new(label, env, path.families));
        runs.push((path, run));
    }
    runs
}

/// A run on a code path must show the capability bits and eligibility answers its row says
/// (eligibility judged only where the function's file came from `asm`), and the variable's
/// value exactly where OpenSSL takes it as given.
fn check_path(
    tc: &Toolchain,
    arch: Arch,
    path: &CodePath,
    result: Result<(Report, Option<f64>)>,
    plan: &BuildFacts,
) -> Result<()> {
    let var = arch.cap_var();
    let mut shown = match var {
        Some(var) => format!("{}={}", var.env, path.cap.unwrap_or("(unset)")),
        None => "no capability variable".into(),
    };
    if tc.runner.is_qemu() {
        shown += &format!(", qemu CPU {}", path.qemu_cpu.unwrap_or("default"));
    }
    let (r, secs) =
        result.with_context(|| format!("the driver on the {} path ({shown})", path.name))?;
    check_report(&r, tc.asm, plan)?;
    let seen = match var {
        Some(var) => check_words(path, var, &r, plan, &shown)?,
        None => "nothing to read".into(),
    };
    let took = secs.map_or("the plain run".into(), |secs| format!("{secs:.1} s"));
    println!(
        "driver ({}, set {}): {} path ({shown}, {seen}: {}) proved and passed ({took})",
        tc.name, plan.effective_set, path.name, path.takes
    );
    Ok(())
}

/// The capability words a run reported, against its path's bits and eligibility answers;
/// what OpenSSL saw, for the report.
fn check_words(
    path: &CodePath,
    var: &CapVar,
    r: &Report,
    plan: &BuildFacts,
    shown: &str,
) -> Result<String> {
    let words = r.path.cap_words(var)?;
    // The driver reports the eligibility functions whose files the build links.
    let eligible = |e: &Eligibility, want: bool| {
        plan.set_of(e.file)?;
        Some((want && took_from_asm(plan, e.file), r.path.eligible(e.symbol)))
    };
    let wrong = path.mismatches(var, words, &eligible)?;
    let seen = format!("OPENSSL_{} {}", var.symbol, driver::hex_words(words));
    ensure!(
        wrong.is_empty(),
        "{shown} did not select the {} path: {}; OpenSSL saw {seen}",
        path.name,
        wrong.join("; ")
    );
    Ok(seen)
}

/// The family the negative control tampers with.
const TAMPERED_FAMILY: &str = "ecdsa_p256";

/// A negative control: a copy of the driver's vectors (`tampered/`) with one valid ECDSA
/// signature changed; returns the one failure line a run on it must print.
fn tamper_vectors(exe: &Path) -> Result<String> {
    let dir = exe.parent().context("the driver's directory")?;
    let (vectors, tampered) = (dir.join("vectors"), dir.join("tampered"));
    crypto_build::files::copy_tree(&vectors, &tampered)?;
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
    use anyhow::{ensure, Result};
    use crypto_build::data::{cpu_has, ELIGIBILITIES, IA32CAP};
    use crypto_build::facts::BuildFacts;

    /// Without a mask: each bit an eligibility function reads matches this CPU, and each
    /// function answers what its bits give (0 where its file came from a slower set, whose
    /// copy is a stub). A function whose file the build does not link (its release has
    /// none) is not reported.
    pub fn check_unmasked(p: &PathReport, plan: &BuildFacts) -> Result<()> {
        let cap = p.cap_words(&IA32CAP)?;
        let set = |b: &crypto_build::data::CapBit| cap[b.word] & (1 << b.bit) != 0;
        let linked = |file: &str| plan.set_of(file).is_some();
        for e in ELIGIBILITIES {
            for b in e.needs {
                let (seen, cpu) = (set(b), cpu_has(*b));
                ensure!(seen == cpu, "{}: OPENSSL_ia32cap_P says {seen}, this CPU {cpu}", b.name);
            }
            let got = p.eligible(e.symbol);
            if !linked(e.file) {
                ensure!(got.is_none(), "{}: reported, but {} is not linked", e.symbol, e.file);
                continue;
            }
            let want = e.needs.iter().all(set) && super::took_from_asm(plan, e.file);
            ensure!(got == Some(want), "{}: the driver reports {got:?}, expected {want}", e.symbol);
        }
        let live = |b: Option<bool>| if b == Some(true) { "live" } else { "not live" };
        let shown: Vec<String> = ELIGIBILITIES
            .iter()
            .filter(|e| linked(e.file))
            .map(|e| format!("{} {}", e.symbol, live(p.eligible(e.symbol))))
            .collect();
        println!("driver paths: {}", shown.join(", "));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_prefix_has_its_own_driver_directory() {
        let target = crate::cargo::project_root().join("target");
        let qemu = target.join("qemu-prefix/aarch64-aarch64-linux-gnu-gcc-auto");
        let patch = target.join("patch-test-cross");
        assert_eq!(dir_name(&qemu, "asm"), "qemu-prefix-aarch64-aarch64-linux-gnu-gcc-auto-asm");
        assert_eq!(dir_name(&patch, "asm"), "patch-test-cross-asm");
        assert_eq!(dir_name(Path::new("/opt/ossl"), "no_asm"), "opt-ossl-no_asm");
    }
}
