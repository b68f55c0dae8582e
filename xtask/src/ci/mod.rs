//! `cargo xtask test`: every check CI runs, as a registry of named steps. `--list` prints
//! them, `--step` runs some, `--target` those of one triple's rows, `--full` adds the slow
//! ones CI leaves out; one file per step beside this one. Steps use the shared floor
//! (`crate::cargo`, `matrix`, `driver`, `prefix`, `runner`), never `crate::cmd`.

mod apps;
mod assembled;
mod coexist;
mod consumers;
mod driver_paths;
mod fips;
mod flows;
mod i686;
mod lanes;
mod lines;
mod lint;
mod lock;
mod mix;
mod msvc;
mod native;
mod package;
mod patch;
mod prefix;
mod qemu;
mod repro;
mod rust_openssl;
mod sanitize;
mod sccache;
mod sets;
mod ssldirs;
mod support_date;
mod tarball_move;
mod windows;
mod workflow;

use crate::flags::Test;
use crate::matrix::{How, ROWS};
pub use crate::step_names::StepName;
use anyhow::{bail, Context, Result};
use crypto_build::data::{triples, OpensslLine, DEFAULT_LINE};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;
use xshell::Shell;

/// Where a step runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// In every `cargo xtask test`.
    Default,
    /// Only with `--full` (or named with `--step`).
    Full,
    /// Only on this GitHub Actions runner, never on this machine.
    Runner(&'static str),
}

/// Which toolchain rows a step checks, for `--target`.
#[derive(Debug, Clone, Copy)]
pub enum Scope {
    /// The workspace as a whole: no one target.
    Workspace,
    /// The matrix's rows checked this way.
    Rows(How),
    /// One triple, built on its own runner.
    Triple(&'static str),
}

/// Which steps may run side by side (see `lanes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// Builds through cargo in the workspace's target directory.
    Cargo,
    /// Never builds in the workspace's target directory: generation, builds without cargo
    /// or with their own target directory.
    Apart,
}

impl Lane {
    pub const ALL: [Lane; 2] = [Lane::Cargo, Lane::Apart];
}

/// Which OpenSSL lines a step can test (`--openssl`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lines {
    /// The line the run tests, whichever it is (`line()`).
    Any,
    /// The default line only, and why not the others.
    Default(&'static str),
}

pub struct Step {
    pub id: StepName,
    pub covers: &'static str,
    pub tier: Tier,
    pub scope: Scope,
    pub lane: Lane,
    pub lines: Lines,
    run: fn(&Shell, &str) -> Result<()>,
}

/// The OpenSSL line this run tests: `--openssl`'s, else the default.
static LINE: std::sync::OnceLock<&'static OpensslLine> = std::sync::OnceLock::new();

pub fn line() -> &'static OpensslLine {
    LINE.get().copied().unwrap_or(DEFAULT_LINE)
}

/// cargo's words for crypto-sys on the run's line: none for the default.
pub fn line_features() -> Vec<&'static str> {
    // The run's line is chosen once, before any step asks.
    static FEATURE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    FEATURE
        .get_or_init(|| line().feature())
        .as_deref()
        .map_or(Vec::new(), |f| vec!["--features", f])
}

/// `cargo xtask build`'s (and `verify`'s) words for the run's line: none for the default.
pub fn line_args() -> Vec<&'static str> {
    let line = line();
    if line.is_default() {
        Vec::new()
    } else {
        vec!["--openssl", line.name()]
    }
}

/// `target/BASE` of `line`'s own builds (`OpensslLine::dir_suffix`).
pub fn line_target_dir(base: &str, line: &OpensslLine) -> std::path::PathBuf {
    crate::cargo::project_root().join("target").join(format!("{base}{}", line.dir_suffix()))
}

impl std::fmt::Debug for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "step `{}`", self.name())
    }
}

impl Step {
    /// The row of `id`.
    pub fn of(id: StepName) -> &'static Step {
        STEPS.iter().find(|s| s.id == id).expect("each step name has its row (a test holds it)")
    }

    pub fn name(&self) -> &'static str {
        self.id.name()
    }

    /// The triples of the rows it checks.
    pub fn targets(&self) -> Vec<&'static str> {
        let mut t: Vec<&str> = match self.scope {
            Scope::Workspace => Vec::new(),
            Scope::Rows(How::Assembled) => {
                crate::matrix::assembled_rows().map(|r| r.target).collect()
            }
            Scope::Rows(how) => ROWS.iter().filter(|r| r.how == how).map(|r| r.target).collect(),
            Scope::Triple(t) => vec![t],
        };
        t.sort();
        t.dedup();
        t
    }
}

/// In run order within each lane: `toolchains` and `workspace`, which detect for every
/// target, come last, once `lock` has most likely generated what they need, which they would
/// otherwise wait for with the cargo lane idle. `sanitize` builds in its own target directory,
/// so it runs beside the cargo lane. `aarch64` comes first of the cross steps: `patch`, in the
/// cargo lane, builds aarch64 again through the patch, from its objects when it is done (run
/// side by side, the two compiled most of them twice).
#[rustfmt::skip]
pub const STEPS: &[Step] = &[
    Step { id: StepName::Lint, covers: "cargo fmt --check, clippy -D warnings, cargo xtask lines --check (every file written from the lines' data as it writes it)", tier: Tier::Default,
           scope: Scope::Workspace, lane: Lane::Cargo,
           lines: Lines::Default("fmt, clippy and the lines' files read the same source whatever the line"), run: |sh, cargo| lint::run(sh, cargo) },
    Step { id: StepName::Lock, covers: "every configuration of every target of the run's OpenSSL line (of the others, the host's) generated and equal to its generate.lock; on the default line, a tarball packed from its tree with one perlasm file changed, through update-openssl --source: the host's asm and no_asm configurations byte for byte but that file, which the report names with its new entry point and class",
           tier: Tier::Default, scope: Scope::Workspace, lane: Lane::Apart,
           lines: Lines::Any, run: |_, _| lock::run() },
    Step { id: StepName::Aarch64, covers: "gcc: the C driver under qemu-aarch64 on every armcap path",
           tier: Tier::Default, scope: Scope::Triple(triples::AARCH64_LINUX), lane: Lane::Apart,
           lines: Lines::Any, run: |sh, _| qemu::run(sh, triples::AARCH64_LINUX, false) },
    Step { id: StepName::Workflow, covers: "actionlint on .github/workflows/ci.yml; its jobs run exactly these steps",
           tier: Tier::Default, scope: Scope::Workspace, lane: Lane::Cargo,
           lines: Lines::Default("the workflow file is the same whatever the line"), run: |_, _| check_workflow() },
    Step { id: StepName::Auto, covers: "set auto: verify, a build past the line's support date warns once and builds the same bytes, crypto-sys's suites on every x86_64 code path",
           tier: Tier::Default, scope: Scope::Rows(How::Workspace), lane: Lane::Cargo,
           lines: Lines::Any, run: sets::auto },
    Step { id: StepName::AsmAvx2, covers: "set asm_avx2: crypto-sys's tests, verify, every code path",
           tier: Tier::Default, scope: Scope::Rows(How::Workspace), lane: Lane::Cargo,
           lines: Lines::Any, run: sets::asm_avx2 },
    Step { id: StepName::Prefix, covers: "xtask build --prefix --apps: openssl-sys, pkg-config, CMake, bin/openssl, --openssldir ssl (the documented openssl flows on its installed config: req, x509 -req, ca, verify, pkcs12, TLS 1.3), the C driver natively",
           tier: Tier::Default, scope: Scope::Rows(How::Workspace), lane: Lane::Cargo,
           lines: Lines::Default("the lines step builds a prefix of the other lines and runs the C driver and the openssl flows on it; rust-openssl, openssl-sys through it"), run: prefix::run },
    Step { id: StepName::Windows, covers: "mingw gcc with GNU as and with nasm: the C driver under wine on every code path, every object of each prefix linked",
           tier: Tier::Default, scope: Scope::Triple(triples::X86_64_WINDOWS_GNU), lane: Lane::Apart,
           lines: Lines::Any, run: |sh, _| windows::run(sh, triples::X86_64_WINDOWS_GNU, false) },
    Step { id: StepName::MsvcWine, covers: "x86_64 MSVC (VC-WIN64A) as a fresh clone builds it: clang-cl against wine's C runtime, nasm's objects, libcrypto.lib verified; the C driver linked by lld-link, under wine on every code path; openssl.exe under wine (version -a, TLS 1.3); a compiler not in MSVC mode refused",
           tier: Tier::Default, scope: Scope::Triple(triples::X86_64_WINDOWS_MSVC), lane: Lane::Apart,
           lines: Lines::Any, run: |sh, _| msvc::run(sh, triples::X86_64_WINDOWS_MSVC) },
    Step { id: StepName::Sanitize, covers: "OpenSSL and the C driver by clang-19 with ASan and UBSan, every code path",
           tier: Tier::Default, scope: Scope::Rows(How::Sanitizer), lane: Lane::Apart,
           lines: Lines::Any, run: |sh, _| sanitize::run(sh, line()) },
    Step { id: StepName::Ppc64le, covers: "gcc: the C driver under qemu-ppc64le on every ppccap path",
           tier: Tier::Default, scope: Scope::Triple(triples::PPC64LE_LINUX), lane: Lane::Apart,
           lines: Lines::Any, run: |sh, _| qemu::run(sh, triples::PPC64LE_LINUX, false) },
    Step { id: StepName::I686, covers: "i686 Linux (Rust's tier 1) by gcc: the C driver on this CPU on every ia32cap path of the 32-bit asm; a missing i686 C library and the nistp variant refused",
           tier: Tier::Default, scope: Scope::Triple(triples::I686_LINUX), lane: Lane::Apart,
           lines: Lines::Any, run: |sh, _| i686::run(sh, false) },
    Step { id: StepName::MsvcWineI686, covers: "i686 MSVC (VC-WIN32) likewise, under wine's win32 prefix, its import libraries mingw-w64's: clang-cl, libcrypto.lib verified, the C driver on every ia32cap path, openssl.exe",
           tier: Tier::Default, scope: Scope::Triple(triples::I686_WINDOWS_MSVC), lane: Lane::Apart,
           lines: Lines::Any, run: |sh, _| msvc::run(sh, triples::I686_WINDOWS_MSVC) },
    Step { id: StepName::Assembled, covers: "rows the default run only assembles (a cross row's second compiler; 32-bit mingw, armv7, riscv64, musl and mips64el, which --full runs; Windows on ARM64, the one MSVC row not run here): every asm file assembled, exports and fast paths checked",
           tier: Tier::Default, scope: Scope::Rows(How::Assembled), lane: Lane::Apart,
           lines: Lines::Any, run: |_, _| assembled::run() },
    Step { id: StepName::Package, covers: "the .crate files at another path, no perl, debug and release at once, same bytes",
           tier: Tier::Default, scope: Scope::Rows(How::Workspace), lane: Lane::Cargo,
           lines: Lines::Default("its package carries the default line's sets; `patch-lines` packs and builds every line's"), run: package::run },
    Step { id: StepName::Patch, covers: "the openssl crate (vendored) on crypto-sys's build by one [patch] of openssl-src: path, file:// git, the packaged crates without perl (version line, TLS 1.3); crypto-sys beside it, one libcrypto; bad variables refused through it; the patch's Build for aarch64, the C driver under qemu",
           tier: Tier::Default, scope: Scope::Rows(How::Workspace), lane: Lane::Cargo,
           lines: Lines::Default("`patch-lines` takes every other line through the patch"), run: patch::run },
    Step { id: StepName::Coexist, covers: "crypto-sys beside the openssl crate on the system's libssl in one binary: each its own version, each opens the other's AES-256-GCM; with the symbol prefix off, the same binary fails or mixes (the control)",
           tier: Tier::Default, scope: Scope::Rows(How::Workspace), lane: Lane::Cargo,
           lines: Lines::Any, run: coexist::run },
    Step { id: StepName::Fips, covers: "xtask build --release --apps --fips --openssldir ssl --prefix: fipsinstall -verify, FIPS mode's providers, SHA-256 and MD5 refused, self-tests and the default provider's answers on every OPENSSL_ia32cap path this CPU runs, a flipped byte refused, the module's exports and asm (verify), crypto-sys's fips feature from Rust",
           tier: Tier::Default, scope: Scope::Rows(How::Workspace), lane: Lane::Cargo,
           lines: Lines::Any, run: fips::run },
    Step { id: StepName::Sccache, covers: "RUSTC_WRAPPER=sccache routes OpenSSL's C through sccache",
           tier: Tier::Default, scope: Scope::Rows(How::Workspace), lane: Lane::Cargo,
           lines: Lines::Default("what sccache is given does not depend on the line"), run: sccache::run },
    Step { id: StepName::Toolchains, covers: "the other host rows built and tested (clang-14, without legacy); docs/toolchains.md against detect",
           tier: Tier::Default, scope: Scope::Rows(How::Rust), lane: Lane::Cargo,
           lines: Lines::Any, run: sets::toolchains },
    Step { id: StepName::Workspace, covers: "cargo test --workspace (xtask's tests, crypto-sys's suites)",
           tier: Tier::Default, scope: Scope::Rows(How::Workspace), lane: Lane::Cargo,
           lines: Lines::Default("xtask's and crypto-build's tests cover every line in one run"), run: sets::workspace },
    // Issue 43's budget: x86_64's plain C, which no build takes unless asked (a missing
    // assembler is an error), left the default run; the C variant's refusal and --strict stay
    // in it, through `detect` (xtask/tests/detect.rs), and OpenSSL's default C configuration
    // through the 32-bit and ppc64le rows.
    Step { id: StepName::NoAsm, covers: "set no_asm by a C compiler that fails the C variant's probe: tests, verify, every mask ignored, --strict",
           tier: Tier::Full, scope: Scope::Rows(How::Workspace), lane: Lane::Cargo,
           lines: Lines::Any, run: sets::no_asm },
    Step { id: StepName::WindowsNoAsm, covers: "no_asm for Windows (OpenSSL's plain C on LLP64) under wine",
           tier: Tier::Full, scope: Scope::Triple(triples::X86_64_WINDOWS_GNU), lane: Lane::Apart,
           lines: Lines::Any, run: |sh, _| windows::run(sh, triples::X86_64_WINDOWS_GNU, true) },
    Step { id: StepName::WindowsI686, covers: "32-bit mingw gcc with GNU as and with nasm: the C driver under wine (win32 prefix) on every ia32cap path, every object of each prefix linked, openssl.exe",
           tier: Tier::Full, scope: Scope::Triple(triples::I686_WINDOWS_GNU), lane: Lane::Apart,
           lines: Lines::Any, run: |sh, _| windows::run(sh, triples::I686_WINDOWS_GNU, true) },
    Step { id: StepName::I686Full, covers: "clang-19's i686 build, and no_asm with gcc and clang-19, on this CPU",
           tier: Tier::Full, scope: Scope::Triple(triples::I686_LINUX), lane: Lane::Apart,
           lines: Lines::Any, run: |sh, _| i686::run(sh, true) },
    Step { id: StepName::FipsCross, covers: "the FIPS module of mingw x86_64 (wine), i686 Linux (this CPU) and aarch64 Linux (qemu), each from its row's compiler: fipsinstall at install and -verify, FIPS mode's providers, SHA-256 and MD5 refused, self-tests and the default provider's answers on every code path the runner runs, a flipped byte refused, verify",
           tier: Tier::Full, scope: Scope::Workspace, lane: Lane::Apart,
           lines: Lines::Default("the `fips` step takes the module of every line on x86_64; these rows' module is built from the same units"), run: fips::cross },
    Step { id: StepName::FipsValidated, covers: "the FIPS modules of the validated releases (3.1.2, 3.0.8, from crates.io), each built by its own Configure and make and loaded into the line's libcrypto: fipsinstall, FIPS mode, every OPENSSL_ia32cap path, a flipped byte refused",
           tier: Tier::Full, scope: Scope::Workspace, lane: Lane::Cargo,
           lines: Lines::Default("the modules are loaded into the default line's libcrypto, the one a release's module must serve"), run: fips::validated },
    Step { id: StepName::Aarch64Full, covers: "clang-19's aarch64 build, and no_asm with gcc and clang-19, under qemu",
           tier: Tier::Full, scope: Scope::Triple(triples::AARCH64_LINUX), lane: Lane::Apart,
           lines: Lines::Any, run: |sh, _| qemu::run(sh, triples::AARCH64_LINUX, true) },
    Step { id: StepName::Ppc64leFull, covers: "clang-19's ppc64le build, and no_asm with gcc and clang-19, under qemu",
           tier: Tier::Full, scope: Scope::Triple(triples::PPC64LE_LINUX), lane: Lane::Apart,
           lines: Lines::Any, run: |sh, _| qemu::run(sh, triples::PPC64LE_LINUX, true) },
    // Issue 43's budget: the two tier-2 qemu rows with the least coverage left the default run
    // when the MSVC and i686 rows came in (riscv64: no asm for Poly1305, the curves or RSA, its
    // vector paths out of qemu 7.2's reach; s390x: CPACF's AES, GHASH and curves not emulated);
    // the default run assembles their asm.
    Step { id: StepName::S390x, covers: "gcc and clang-19: the C driver under qemu-s390x (big-endian) on every s390xcap path qemu can run, no_asm with both",
           tier: Tier::Full, scope: Scope::Triple(triples::S390X_LINUX), lane: Lane::Apart,
           lines: Lines::Any, run: |sh, _| qemu::run(sh, triples::S390X_LINUX, true) },
    Step { id: StepName::Riscv64, covers: "gcc and clang-19: the C driver under qemu-riscv64 on every riscvcap path qemu 7.2 can run, no_asm with both",
           tier: Tier::Full, scope: Scope::Triple(triples::RISCV64_LINUX), lane: Lane::Apart,
           lines: Lines::Any, run: |sh, _| qemu::run(sh, triples::RISCV64_LINUX, true) },
    // issue 36's rows: each a C compile the default run has no room for (it assembles their
    // asm); their CI jobs run side by side.
    Step { id: StepName::Armv7, covers: "gcc and clang-19 (Arm code): the C driver under qemu-arm on every armcap path (max: NEON and ARMv8 crypto in AArch32, NEON, none), no_asm with gcc; no shared libatomic",
           tier: Tier::Full, scope: Scope::Triple(triples::ARMV7_LINUX), lane: Lane::Apart,
           lines: Lines::Any, run: |sh, _| qemu::run(sh, triples::ARMV7_LINUX, true) },
    Step { id: StepName::Musl, covers: "musl-gcc: a fully static C driver run natively on every x86_64 code path, no_asm too",
           tier: Tier::Full, scope: Scope::Triple(triples::X86_64_LINUX_MUSL), lane: Lane::Apart,
           lines: Lines::Any, run: |sh, _| qemu::run(sh, triples::X86_64_LINUX_MUSL, true) },
    Step { id: StepName::Mips64el, covers: "gcc: the C driver under qemu-mips64el on the one code path of its asm (no capability variable), no_asm too",
           tier: Tier::Full, scope: Scope::Triple(triples::MIPS64EL_LINUX), lane: Lane::Apart,
           lines: Lines::Any, run: |sh, _| qemu::run(sh, triples::MIPS64EL_LINUX, true) },
    Step { id: StepName::Lines, covers: "every OpenSSL line but the default (data::OPENSSL_LINES, each by its crypto-sys feature): crypto-sys's tests and the C driver, every x86_64 code path; the openssl flows on its prefix's installed config",
           tier: Tier::Full, scope: Scope::Rows(How::Workspace), lane: Lane::Cargo,
           lines: Lines::Default("it tests every other line itself"), run: lines::run },
    Step { id: StepName::PatchLines, covers: "every OpenSSL line but the default from outside the workspace: the openssl crate through the patch by its feature (path, file:// git, the packaged crates of every line without perl, beside crypto-sys) and by CRYPTO_SYS_OPENSSL_LINE; crypto-sys on it from the packaged crates without perl",
           tier: Tier::Full, scope: Scope::Rows(How::Workspace), lane: Lane::Cargo,
           lines: Lines::Default("it takes every other line itself"), run: patch::lines },
    Step { id: StepName::CoexistVendored, covers: "crypto-sys beside the openssl crate's `vendored` build (openssl-src 300.x, without our patch) in one binary: each its own version, each opens the other's AES-256-GCM; the control with the prefix off fails or mixes",
           tier: Tier::Full, scope: Scope::Rows(How::Workspace), lane: Lane::Cargo,
           lines: Lines::Default("`coexist` takes crypto-sys's line; what the vendored build adds, OpenSSL's own make, does not depend on it"), run: coexist::vendored },
    Step { id: StepName::TarballMove, covers: "a line moved to a release tarball ships: the other line's tree packed as its tarball, a scratch workspace moved to it (update-openssl --source), packaged; a fresh clone of it (one line naming the tarball, then made from it) and its packaged crates without perl build libcrypto.a as the registry-sourced line; the workspace unchanged",
           tier: Tier::Full, scope: Scope::Rows(How::Workspace), lane: Lane::Cargo,
           lines: Lines::Default("it moves the other line itself"), run: tarball_move::run },
    Step { id: StepName::RustOpenssl, covers: "the openssl crate's own tests, unmodified, against a prefix through OPENSSL_DIR",
           tier: Tier::Full, scope: Scope::Rows(How::Workspace), lane: Lane::Cargo,
           lines: Lines::Default("it tests a prefix of each line itself"), run: rust_openssl::run },
    Step { id: StepName::Msvc, covers: "MSVC with nasm: crypto-sys's tests on every code path, the prefix and openssl.exe",
           tier: Tier::Runner("windows-latest"), scope: Scope::Triple(triples::X86_64_WINDOWS_MSVC),
           lane: Lane::Cargo,
           lines: Lines::Default("its runner builds the default line"), run: |sh, cargo| native::run(sh, cargo, triples::X86_64_WINDOWS_MSVC) },
    Step { id: StepName::MsvcI686, covers: "32-bit MSVC with nasm (VC-WIN32): crypto-sys's tests on every ia32cap path of the 32-bit asm, the prefix and openssl.exe",
           tier: Tier::Runner("windows-latest"), scope: Scope::Triple(triples::I686_WINDOWS_MSVC),
           lane: Lane::Cargo,
           lines: Lines::Default("its runner builds the default line"), run: |sh, cargo| native::run(sh, cargo, triples::I686_WINDOWS_MSVC) },
    Step { id: StepName::WindowsArm64, covers: "Windows on ARM64 with asm (cl.exe, clang-cl assembling the ARMv8 perlasm): crypto-sys's tests, the prefix",
           tier: Tier::Runner("windows-11-arm"), scope: Scope::Triple(triples::AARCH64_WINDOWS_MSVC),
           lane: Lane::Cargo,
           lines: Lines::Default("its runner builds the default line"), run: |sh, cargo| native::run(sh, cargo, triples::AARCH64_WINDOWS_MSVC) },
    Step { id: StepName::MacosArm64, covers: "macOS arm64 natively: crypto-sys's tests, the prefix and bin/openssl",
           tier: Tier::Runner("macos-14"), scope: Scope::Triple(triples::AARCH64_MACOS),
           lane: Lane::Cargo,
           lines: Lines::Default("its runner builds the default line"), run: |sh, cargo| native::run(sh, cargo, triples::AARCH64_MACOS) },
    Step { id: StepName::MacosX86_64, covers: "macOS x86_64 natively: crypto-sys's tests on every code path, the prefix and bin/openssl",
           tier: Tier::Runner("macos-15-intel"), scope: Scope::Triple(triples::X86_64_MACOS),
           lane: Lane::Cargo,
           lines: Lines::Default("its runner builds the default line"), run: |sh, cargo| native::run(sh, cargo, triples::X86_64_MACOS) },
];

/// Each step's time in the last run on this machine.
const TIMES: &str = "target/xtask-test-times.tsv";

impl Test {
    pub fn run(self, sh: &Shell) -> Result<()> {
        if self.list {
            print!("{}", list(&last_times()));
            return Ok(());
        }
        LINE.set(self.openssl.line).expect("the line is set once");
        let chosen = self.chosen()?;
        let started = std::time::Instant::now();
        let _frozen = crate::cargo::freeze_xtask_binary()?;
        // A child of `lanes::run`: one step, its time for the parent.
        if let Ok(result_file) = std::env::var(lanes::RESULT_VAR) {
            let [step] = chosen[..] else { bail!("{} is for one step", lanes::RESULT_VAR) };
            let outcome = run_step(sh, step);
            lanes::write_result(result_file.as_ref(), outcome.took, outcome.cores);
            return outcome.result;
        }
        let side_by_side = lanes::worth_it(&chosen);
        let outcomes = if side_by_side {
            lanes::run(&chosen)?
        } else {
            let mut outcomes = Vec::new();
            for step in chosen {
                outcomes.push(run_step(sh, step));
                if outcomes.last().is_some_and(|o| o.result.is_err()) {
                    break;
                }
            }
            outcomes
        };
        report(&outcomes, started.elapsed(), side_by_side);
        for o in outcomes {
            o.result?;
        }
        println!("cargo xtask test: all checks passed");
        Ok(())
    }

    /// The steps asked for ([`Test::selected`]); a runner's step only on its own host.
    fn chosen(&self) -> Result<Vec<&'static Step>> {
        let chosen = self.selected()?;
        for s in &chosen {
            if let Tier::Runner(runner) = s.tier {
                let host = crate::cargo::host_triple(&Shell::new()?)?;
                let Scope::Triple(triple) = s.scope else {
                    unreachable!("runner steps have a triple")
                };
                let parse = crate::triple::Triple::parse;
                if !parse(triple)?.runs_natively_on(&parse(&host)?) {
                    bail!(
                        "step `{}` runs on GitHub's `{runner}` runner ({triple}); this host is {host}",
                        s.name()
                    );
                }
            }
        }
        Ok(chosen)
    }

    /// The steps asked for, whatever the host: each `--step` as often as named, else the
    /// tiers' steps; then those of `--target`'s rows, and those that can test `--openssl`'s
    /// line. The `workflow` step reads each of ci.yml's lines through this too.
    pub fn selected(&self) -> Result<Vec<&'static Step>> {
        let mut chosen: Vec<&Step> = if self.steps.is_empty() {
            STEPS
                .iter()
                .filter(|s| s.tier == Tier::Default || (self.full && s.tier == Tier::Full))
                .collect()
        } else {
            self.steps.iter().map(|id| Step::of(*id)).collect()
        };
        for t in &self.targets {
            let known = STEPS.iter().any(|s| s.targets().contains(&t.as_str()));
            if !known {
                let mut all: Vec<&str> = STEPS.iter().flat_map(|s| s.targets()).collect();
                all.sort();
                all.dedup();
                bail!("no step checks `{t}`; the targets: {}", all.join(", "));
            }
        }
        if !self.targets.is_empty() {
            chosen.retain(|s| s.targets().iter().any(|t| self.targets.iter().any(|w| w == t)));
        }
        let line = self.openssl.line;
        if !line.is_default() {
            chosen = on_line(chosen, line, !self.steps.is_empty())?;
        }
        Ok(chosen)
    }
}

/// The steps of `chosen` that test `line`, a line other than the default: a step named with
/// `--step` (`named`) that cannot is refused; of a whole run, the ones left out are named in
/// one line each, with the reason.
fn on_line(
    chosen: Vec<&'static Step>,
    line: &OpensslLine,
    named: bool,
) -> Result<Vec<&'static Step>> {
    let version = line.version;
    let mut kept = Vec::new();
    for s in chosen {
        match s.lines {
            Lines::Any => kept.push(s),
            Lines::Default(why) if named => {
                bail!(
                    "step `{}` tests the default OpenSSL line only, not {version}: {why}",
                    s.name()
                )
            }
            Lines::Default(why) => {
                println!("not on OpenSSL {version}: step `{}` ({why})", s.name())
            }
        }
    }
    Ok(kept)
}

/// `--list`: each step, what it covers, where it runs, and its last time here.
fn list(times: &BTreeMap<String, f64>) -> String {
    let mut out = String::new();
    for s in STEPS {
        let tier = match s.tier {
            Tier::Default => "default".to_string(),
            Tier::Full => "--full".to_string(),
            Tier::Runner(r) => format!("runner {r}"),
        };
        let last =
            times.get(s.name()).map_or("not run here yet".into(), |t| format!("{t:.0} s last run"));
        let targets = s.targets();
        let targets = if targets.is_empty() { "workspace".into() } else { targets.join(", ") };
        let lines = match s.lines {
            Lines::Any => String::new(),
            Lines::Default(why) => format!(" (the default OpenSSL line only: {why})"),
        };
        let _ = writeln!(
            out,
            "{:<15} {tier:<22} {last:<18} {targets}\n{:<15} {}{lines}",
            s.name(),
            "",
            s.covers
        );
    }
    out
}

fn last_times() -> BTreeMap<String, f64> {
    let text =
        std::fs::read_to_string(crate::cargo::project_root().join(TIMES)).unwrap_or_default();
    text.lines()
        .filter_map(|l| l.split_once('\t'))
        .filter_map(|(n, t)| Some((n.to_string(), t.parse().ok()?)))
        .collect()
}

fn record_time(name: &str, took: Duration) {
    let mut times = last_times();
    times.insert(name.to_string(), took.as_secs_f64());
    let text: String = times.iter().map(|(n, t)| format!("{n}\t{t:.1}\n")).collect();
    let _ = std::fs::write(crate::cargo::project_root().join(TIMES), text);
}

/// actionlint, then the workflow's steps against this registry.
fn check_workflow() -> Result<()> {
    let root = crate::cargo::project_root();
    workflow::lint(&root)?;
    let path = root.join(workflow::WORKFLOW);
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let jobs = workflow::jobs(&text)?;
    let registry = workflow_registry();
    workflow::check_against_registry(&jobs, &registry)?;
    let update = root.join(workflow::UPDATE_WORKFLOW);
    let text = std::fs::read_to_string(&update)
        .with_context(|| format!("reading {}", update.display()))?;
    let commands = workflow::commands(&text, workflow::UPDATE_WORKFLOW)?;
    let lines: Vec<&str> = crypto_build::data::OPENSSL_LINES.iter().map(|l| l.name()).collect();
    workflow::moves_cover_the_lines(&commands, &lines)?;
    println!(
        "workflow: actionlint passed; its {} jobs run each of the {} steps once, and {} of them \
         once more on each other OpenSSL line; {} moves each of the {} lines",
        jobs.len(),
        STEPS.len(),
        registry.len() - STEPS.len(),
        workflow::UPDATE_WORKFLOW,
        lines.len()
    );
    Ok(())
}

/// What the workflow must run, each exactly once, with the runner it needs: every step, and
/// each default-run step that can test another line, on it (`workflow::on_line`).
fn workflow_registry() -> Vec<(String, Option<&'static str>)> {
    let runner = |s: &Step| if let Tier::Runner(r) = s.tier { Some(r) } else { None };
    let mut out: Vec<(String, Option<&str>)> =
        STEPS.iter().map(|s| (s.name().to_string(), runner(s))).collect();
    for line in crypto_build::data::OPENSSL_LINES.iter().filter(|l| !l.is_default()) {
        for s in STEPS.iter().filter(|s| s.tier == Tier::Default && s.lines == Lines::Any) {
            out.push((workflow::on_line(s.name(), line.name()), runner(s)));
        }
    }
    out
}

/// A step's end: how long it took, the cores its processes kept busy, what bounded its
/// parallel work, and whether it passed.
pub struct Outcome {
    name: &'static str,
    took: Duration,
    cores: Option<f64>,
    jobs: Jobs,
    result: Result<()>,
}

/// How many jobs a step had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Jobs {
    /// Its own: each parallel part of it starts this many (`crypto_build::jobs::count`).
    Own(usize),
    /// Tokens of the jobserver the lanes share, of this many when known (the parent knows).
    Pool(Option<usize>),
}

impl Jobs {
    /// This process's: the inherited jobserver's, else its own count.
    fn here() -> Jobs {
        match crypto_build::jobs::inherited() {
            Some(_) => Jobs::Pool(None),
            None => Jobs::Own(crypto_build::jobs::count()),
        }
    }
}

impl std::fmt::Display for Jobs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Jobs::Own(n) => write!(f, "{n} jobs of its own per part"),
            Jobs::Pool(Some(n)) => write!(f, "{n} jobs shared by the lanes"),
            Jobs::Pool(None) => write!(f, "jobs shared by the lanes"),
        }
    }
}

/// One step in this process; its time is printed as it ends.
fn run_step(sh: &Shell, step: &'static Step) -> Outcome {
    let cargo = crate::cargo::cargo();
    let started = std::time::Instant::now();
    let cpu_before = crate::proc_stat::children_cpu_seconds();
    let result = (step.run)(sh, &cargo).with_context(|| format!("step `{}`", step.name()));
    let took = started.elapsed();
    let cores = cpu_before
        .zip(crate::proc_stat::children_cpu_seconds())
        .map(|(b, a)| (a - b) / took.as_secs_f64().max(0.001));
    let outcome = if result.is_ok() { "done" } else { "FAILED" };
    let jobs = Jobs::here();
    let (secs, busy) = (took.as_secs_f64(), cores_text(cores, jobs));
    println!("step `{}`: {outcome} in {secs:.0} s{busy}", step.name());
    Outcome { name: step.name(), took, cores, jobs, result }
}

/// Each step's time, again at the end, so that CI's time budget can be read from one run's
/// log; the passed ones are kept for `--list`.
fn report(outcomes: &[Outcome], wall: Duration, side_by_side: bool) {
    let sum: Duration = outcomes.iter().map(|o| o.took).sum();
    let how = if side_by_side { "side by side" } else { "one at a time" };
    println!(
        "cargo xtask test: {:.0} s in all ({:.0} s of steps, {how})",
        wall.as_secs_f64(),
        sum.as_secs_f64()
    );
    for o in outcomes {
        let failed = if o.result.is_err() { "  FAILED" } else { "" };
        let busy = cores_text(o.cores, o.jobs);
        println!("  {:>6.0} s  {}{busy}{failed}", o.took.as_secs_f64(), o.name);
        if o.result.is_ok() {
            // Another line's time is its own: `--list` shows the default line's.
            let line = line();
            let key = if line.is_default() {
                o.name.to_string()
            } else {
                workflow::on_line(o.name, line.name())
            };
            record_time(&key, o.took);
        }
    }
}

fn cores_text(cores: Option<f64>, jobs: Jobs) -> String {
    match cores {
        Some(c) => format!(" ({c:.2} cores busy, {jobs})"),
        None => format!(" ({jobs})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::{Cli, Command};
    use clap::Parser;

    fn test(steps: &[&str], targets: &[&str], full: bool) -> Test {
        let mut words = vec!["cargo xtask", "test"];
        words.extend(steps.iter().flat_map(|s| ["--step", s]));
        words.extend(targets.iter().flat_map(|t| ["--target", t]));
        words.extend(full.then_some("--full"));
        match Cli::try_parse_from(words).unwrap().command {
            Command::Test(t) => t,
            _ => unreachable!("parsed as test"),
        }
    }

    fn names(t: Test) -> Vec<&'static str> {
        t.chosen().unwrap().iter().map(|s| s.name()).collect()
    }

    #[test]
    fn steps_are_chosen_by_name_target_and_tier() {
        let default = names(test(&[], &[], false));
        assert!(default.contains(&"lint") && default.contains(&"aarch64"));
        assert!(!default.contains(&"aarch64-full") && !default.contains(&"msvc"));
        let full = names(test(&[], &[], true));
        assert_eq!(full.len(), default.len() + 18);
        let aarch64 = names(test(&[], &["aarch64-unknown-linux-gnu"], false));
        assert_eq!(aarch64, ["aarch64", "assembled"]);
        assert_eq!(
            names(test(&[], &["aarch64-unknown-linux-gnu"], true)),
            ["aarch64", "assembled", "aarch64-full"]
        );
        let ppc = names(test(&[], &["powerpc64le-unknown-linux-gnu"], true));
        assert_eq!(ppc, ["ppc64le", "assembled", "ppc64le-full"]);
        for (triple, step) in [
            (triples::RISCV64_LINUX, "riscv64"),
            (triples::S390X_LINUX, "s390x"),
            (triples::ARMV7_LINUX, "armv7"),
            (triples::X86_64_LINUX_MUSL, "musl"),
            (triples::MIPS64EL_LINUX, "mips64el"),
        ] {
            assert_eq!(names(test(&[], &[triple], false)), ["assembled"], "{triple}");
            assert_eq!(names(test(&[], &[triple], true)), ["assembled", step], "{triple}");
        }
        let arm64 = names(test(&[], &["aarch64-pc-windows-msvc"], false));
        assert_eq!(arm64, ["assembled"]);
        // MSVC runs under wine (aarch64's stays assembled).
        let msvc = names(test(&[], &[triples::X86_64_WINDOWS_MSVC], false));
        assert_eq!(msvc, ["msvc-wine"]);
        // 32-bit x86: Linux and MSVC run by default; mingw is assembled, and run by --full.
        assert_eq!(names(test(&[], &["i686-unknown-linux-gnu"], false)), ["i686", "assembled"]);
        let i686 = names(test(&[], &["i686-unknown-linux-gnu"], true));
        assert_eq!(i686, ["i686", "assembled", "i686-full"]);
        assert_eq!(names(test(&[], &["i686-pc-windows-gnu"], false)), ["assembled"]);
        let mingw32 = names(test(&[], &["i686-pc-windows-gnu"], true));
        assert_eq!(mingw32, ["assembled", "windows-i686"]);
        assert_eq!(names(test(&[], &["i686-pc-windows-msvc"], true)), ["msvc-wine-i686"]);
        let e = test(&["msvc-i686"], &[], false).chosen().unwrap_err().to_string();
        assert!(e.contains("runs on GitHub's `windows-latest` runner"), "{e}");
        assert_eq!(names(test(&["sccache", "sccache"], &[], false)), ["sccache", "sccache"]);
        let e = test(&[], &["sparc-sun-solaris"], false).chosen().unwrap_err().to_string();
        assert!(e.contains("no step checks `sparc-sun-solaris`"), "{e}");
        let e = test(&["macos-arm64"], &[], false).chosen().unwrap_err().to_string();
        assert!(e.contains("runs on GitHub's `macos-14` runner"), "{e}");
    }

    #[test]
    fn another_line_runs_the_steps_that_can_test_it_and_refuses_the_others_by_name() {
        let line = crypto_build::data::OPENSSL_LINES.iter().find(|l| !l.is_default()).unwrap();
        let default: Vec<&Step> = STEPS.iter().filter(|s| s.tier == Tier::Default).collect();
        let kept: Vec<&str> =
            on_line(default.clone(), line, false).unwrap().iter().map(|s| s.name()).collect();
        for name in ["lock", "windows", "aarch64", "ppc64le", "sanitize", "toolchains", "asm_avx2"]
        {
            assert!(kept.contains(&name), "{name} should run on {}: {kept:?}", line.name());
        }
        for name in ["lint", "package", "prefix"] {
            assert!(!kept.contains(&name), "{name} tests the default line only");
        }
        let lint = default.iter().copied().filter(|s| s.id == StepName::Lint).collect();
        let e = on_line(lint, line, true).unwrap_err().to_string();
        let only = format!("step `lint` tests the default OpenSSL line only, not {}", line.version);
        assert!(e.contains(&only), "{e}");
        assert!(line_args().is_empty() && line_features().is_empty(), "no --openssl: the default");
    }

    #[test]
    fn every_step_has_a_unique_name_and_the_list_shows_each() {
        let mut names: Vec<&str> = STEPS.iter().map(|s| s.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), STEPS.len());
        // Each name of the enum `--step` parses into has its row, in the registry's order.
        let ids: Vec<StepName> = STEPS.iter().map(|s| s.id).collect();
        assert_eq!(ids, StepName::ALL);
        let times = [("lock".to_string(), 184.0)].into_iter().collect();
        let text = list(&times);
        assert!(text.contains("184 s last run"), "{text}");
        for s in STEPS {
            assert!(text.contains(s.name()) && text.contains(s.covers), "{}", s.name());
        }
    }

    /// The committed workflow runs exactly the registry's steps.
    #[test]
    fn the_workflow_matches_the_registry() {
        let root = crate::cargo::project_root();
        let text = std::fs::read_to_string(root.join(workflow::WORKFLOW)).unwrap();
        let registry = workflow_registry();
        let has = |name: &str| registry.iter().any(|(n, r)| n == name && r.is_none());
        for line in crypto_build::data::OPENSSL_LINES.iter().filter(|l| !l.is_default()) {
            let on = |step: &str| workflow::on_line(step, line.name());
            assert!(has(&on("windows")) && !has(&on("lint")), "{}", line.name());
        }
        workflow::check_against_registry(&workflow::jobs(&text).unwrap(), &registry).unwrap();
    }

    /// The committed update workflow moves each line once and tests the move with the
    /// README's command; a line left out, or a command xtask refuses, fails the check.
    #[test]
    fn the_update_workflow_moves_every_line() {
        let root = crate::cargo::project_root();
        let text = std::fs::read_to_string(root.join(workflow::UPDATE_WORKFLOW)).unwrap();
        let commands = workflow::commands(&text, workflow::UPDATE_WORKFLOW).unwrap();
        let lines: Vec<&str> = crypto_build::data::OPENSSL_LINES.iter().map(|l| l.name()).collect();
        workflow::moves_cover_the_lines(&commands, &lines).unwrap();
        let e = workflow::moves_cover_the_lines(&commands, &[lines[0]]).unwrap_err();
        assert!(format!("{e}").contains("one `cargo xtask update-openssl --newest"), "{e}");
        let first = lines[0];
        let stale = text.replace(
            &format!("--newest --openssl {first}"),
            &format!("--newest --openssl {first} --frobnicate"),
        );
        let e = workflow::commands(&stale, workflow::UPDATE_WORKFLOW).unwrap_err();
        assert!(format!("{e:#}").contains("--frobnicate"), "{e:#}");
    }
}
