//! The steps of the targets qemu-user runs (`aarch64`, `ppc64le`; `--full`'s `armv7`,
//! `s390x`, `riscv64` and `mips64el`), of i686, whose programs this CPU runs through the cross
//! C library's loader (`i686`), and of musl's, run here (`musl`): crypto-sys's build pipeline
//! for the triple (run without cargo, as this machine has only the host's Rust std)
//! with each of its qemu rows of the matrix, every prefix checked by the C driver under qemu,
//! an asm prefix on each code path of its architecture (`Arch::code_paths`), of the OpenSSL
//! line the run tests. A row with no default sets runs only with `--full`; the `assembled`
//! step assembles its asm meanwhile.

use crate::matrix::{How, Row};
use crate::runner::Runner;
use anyhow::{bail, ensure, Context, Result};
use crypto_build::data::{is_set, AsmSet, SetRole};
use crypto_build::facts::BuildFacts;
use std::path::PathBuf;
use std::time::Instant;
use xshell::Shell;

fn rows(triple: &str) -> impl Iterator<Item = &'static Row> + '_ {
    let run = |r: &&Row| matches!(r.how, How::Qemu | How::ThisCpu | How::Static);
    crate::matrix::ROWS.iter().filter(run).filter(move |r| r.target == triple)
}

/// The tools every build needs, as one line each: none is optional where this step runs.
fn require_tools(triple: &str) -> Result<()> {
    // `Runner::of`, not `for_triple`: the latter fails on a missing qemu before `require`
    // can name the package.
    match Runner::of(&crate::triple::Triple::parse(triple)?) {
        Some(Runner::Qemu(q)) => q.require()?,
        Some(Runner::Loader(l)) => l.require()?,
        Some(Runner::Native) if rows(triple).all(|r| r.how == How::Static) => {}
        other => bail!("{triple} is not run under qemu or a cross loader here: {other:?}"),
    }
    for row in rows(triple) {
        let (cc, package) = (row.cc, row.package);
        ensure!(
            which::which(cc).is_ok(),
            "{cc} is not installed; .ci/run installs it (apt install {package})"
        );
    }
    Ok(())
}

/// Each row of `triple` with its sets (`full`: the sets only `--full` adds). A prefix's runs
/// under qemu overlap the next prefix's compile: the emulator is mostly one core's work.
pub fn run(sh: &Shell, triple: &str, full: bool) -> Result<()> {
    require_tools(triple)?;
    let arch = crate::triple::Triple::parse(triple)?.arch;
    std::thread::scope(|scope| {
        let mut checks = Vec::new();
        for row in rows(triple) {
            let tc = row.driver()?;
            for set in if full { row.full_sets } else { row.sets } {
                let (cc, name) = (row.cc, row.name());
                let prefix = prefix_dir(&format!("{name}-{set}"));
                let started = Instant::now();
                let args = [&["--asm-set", set][..], &super::line_args()].concat();
                let out = crate::cargo::for_target(sh, triple, cc, &args, &prefix)
                    .with_context(|| format!("{arch} build with {cc}, set {set}"))?;
                println!(
                    "{arch}: {cc}, set {set}: built in {:.0} s",
                    started.elapsed().as_secs_f64()
                );
                let w = crate::cargo::warnings(&out);
                ensure!(w.is_empty(), "{cc}, set {set}: expected no warning, got {w:?}");
                check_facts(row, set, &crate::prefix::facts(&prefix)?)?;
                let tc = tc.clone();
                let under = match tc.runner {
                    Runner::Qemu(_) => "under qemu",
                    Runner::Loader(_) => "on this CPU",
                    _ => "natively",
                };
                let check = move || {
                    let started = Instant::now();
                    let sh = Shell::new()?;
                    sh.change_dir(crate::cargo::project_root());
                    super::driver_paths::check_prefix(&sh, &tc, &prefix)
                        .with_context(|| format!("{cc}, set {set}, {under}"))?;
                    let secs = started.elapsed().as_secs_f64();
                    println!("{arch}: {cc}, set {set}: checked {under} in {secs:.0} s");
                    Ok::<_, anyhow::Error>(())
                };
                match crypto_build::jobs::try_token() {
                    // Beside this thread's next build: a job of its own, from the lanes' pool.
                    Some(token) => checks.push(scope.spawn(move || {
                        let _token = token;
                        check()
                    })),
                    // Every token taken (each lane's step holds one): here, before the next
                    // build, on this step's own token. Waiting for one deadlocked the run.
                    None => check()?,
                }
            }
        }
        checks.into_iter().try_for_each(|c| c.join().expect("a qemu check panicked"))
    })
}

fn prefix_dir(name: &str) -> PathBuf {
    super::line_target_dir("qemu-prefix", super::line()).join(name)
}

/// The set asked for taken whole (asm: nothing downgraded), with the row's C variant and the
/// compiler's own assembler.
fn check_facts(row: &Row, set: &str, facts: &BuildFacts) -> Result<()> {
    let role = if is_set(set, SetRole::PlainC) { SetRole::PlainC } else { SetRole::Avx512 };
    let taken = AsmSet::of(role).name;
    let assembler =
        if row.cc.starts_with("clang") { "clang integrated assembler" } else { "GNU as" };
    let got = (
        facts.effective_set.as_str(),
        facts.requested_set.as_str(),
        facts.c_variant_name(),
        facts.assembler_kind.as_str(),
        facts.downgraded(),
    );
    let want = (taken, set, row.c_variant, assembler, 0);
    ensure!(got == want, "{}, set {set}: the build took {got:?}, expected {want:?}", row.cc);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crypto_build::data::triples::AARCH64_LINUX;

    #[test]
    fn ci_runs_gcc_and_assembles_clang() {
        let ci: Vec<_> = rows(AARCH64_LINUX).map(|r| (r.cc, r.sets, r.full_sets)).collect();
        let (auto, no_asm): (&[&str], &[&str]) = (&["auto"], &["no_asm"]);
        let both: &[&str] = &["auto", "no_asm"];
        assert_eq!(ci, [("aarch64-linux-gnu-gcc", auto, no_asm), ("clang-19", &[][..], both)]);
        let clang = rows(AARCH64_LINUX).nth(1).unwrap();
        assert!(
            clang.assembled_by_default() && clang.assembles("asm") && clang.assembles("no_asm")
        );
        assert!(!rows(AARCH64_LINUX).next().unwrap().assembled_by_default());
    }

    /// Facts as the build writes them: each departure from the plan is refused.
    #[test]
    fn the_facts_must_show_the_set_variant_and_assembler_asked_for() {
        let gcc = rows(AARCH64_LINUX).next().unwrap();
        let good = BuildFacts {
            target: AARCH64_LINUX.into(),
            assembler_kind: "GNU as".into(),
            ..crate::prefix::sample_facts()
        };
        check_facts(gcc, "auto", &good).unwrap();
        let refused = crypto_build::facts::Downgrade {
            path: "*".into(),
            from: "asm".into(),
            to: "no_asm".into(),
            missing: vec!["neon".into()],
        };
        for bad in [
            BuildFacts { downgrades: vec![refused], ..good.clone() },
            BuildFacts { effective_set: "no_asm".into(), ..good.clone() },
            BuildFacts { c_variant: None, ..good.clone() },
            BuildFacts { assembler_kind: "clang integrated assembler".into(), ..good.clone() },
        ] {
            let e = check_facts(gcc, "auto", &bad).unwrap_err().to_string();
            assert!(e.contains("the build took"), "{e}");
        }
        let clang = rows(AARCH64_LINUX).nth(1).unwrap();
        let no_asm = BuildFacts {
            requested_set: "no_asm".into(),
            effective_set: "no_asm".into(),
            assembler_kind: "clang integrated assembler".into(),
            asm_files: Vec::new(),
            ..good
        };
        check_facts(clang, "no_asm", &no_asm).unwrap();
    }
}
