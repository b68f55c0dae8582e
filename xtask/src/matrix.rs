//! The test matrix: every toolchain this project is tested with, the plan `auto` must choose
//! with it, and how `cargo xtask test` checks it. One table feeds the test command's steps,
//! the C driver's toolchains and `cargo xtask toolchains` (docs/toolchains.md).

use crate::driver::Toolchain;
use crate::runner::Runner;
pub use crate::triple::Triple;
use anyhow::{bail, Context, Result};
use crypto_build::data::triples::{
    AARCH64_LINUX, AARCH64_MACOS, AARCH64_WINDOWS_MSVC, ARMV7_LINUX, I686_LINUX, I686_WINDOWS_GNU,
    I686_WINDOWS_MSVC, MIPS64EL_LINUX, PPC64LE_LINUX, RISCV64_LINUX, S390X_LINUX, X86_64_LINUX,
    X86_64_LINUX_MUSL, X86_64_MACOS, X86_64_WINDOWS_GNU, X86_64_WINDOWS_MSVC,
};
use crypto_build::data::{AsmSet, ARM_SETS, NISTP, NO_C_VARIANT, X86_64_SETS};

/// How a row is checked; each kind is one step of `cargo xtask test`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// The workspace's own build (cargo, the host's default C compiler): `cargo test
    /// --workspace`, each set on every code path, the installed prefix, the package.
    Workspace,
    /// crypto-sys built by cargo with this C compiler, and its Rust tests.
    Rust,
    /// OpenSSL and the C driver built with ASan and UBSan (asm kept), the driver run on every
    /// code path.
    Sanitizer,
    /// Built without cargo for the target, the C driver run under wine on every code path.
    Wine,
    /// Built without cargo for the target, the C driver run under qemu-user on every path.
    Qemu,
    /// Built without cargo for the target, the C driver run on this CPU (32-bit x86, started
    /// by its cross C library's loader) on every code path.
    ThisCpu,
    /// Built without cargo for the target (no Rust std for it here), the C driver linked
    /// fully static and run on this machine on every code path: a musl row.
    Static,
    /// An MSVC-ABI row, built without cargo and with no C compiler named, as a fresh clone
    /// builds it (the build runs clang as clang-cl against wine's C runtime); the C driver
    /// compiled by clang for the `-msvc` target, linked by lld-link against wine's import
    /// libraries and run under wine on every code path, with `openssl.exe`.
    Msvc,
    /// Every asm file of each of the target's sets assembled, and the objects symbol-checked;
    /// not linked.
    Assembled,
}

/// One toolchain row: a target, its C compiler and assembler, the sets it is built with, and
/// how it is checked.
#[derive(Debug)]
pub struct Row {
    /// The Rust triple.
    pub target: &'static str,
    pub cc: &'static str,
    /// The Debian package that provides `cc`, named when it is missing ("" where none does).
    pub package: &'static str,
    /// `--assembler`, when not the C compiler's own.
    pub assembler: Option<&'static str>,
    pub how: How,
    /// The sets `cargo xtask test` builds and checks (`Assembled` rows: every set). A row
    /// that runs (wine, qemu) with none here is only assembled by default, every set.
    pub sets: &'static [&'static str],
    /// The sets only `cargo xtask test --full` adds.
    pub full_sets: &'static [&'static str],
    /// Files `auto` must take from asm_avx2; every other asm file comes from asm.
    pub downgraded: &'static [&'static str],
    /// The C variant `auto` must take (`data::NO_C_VARIANT` for OpenSSL's default C
    /// configuration).
    pub c_variant: &'static str,
    /// Its `auto` build also links `bin/openssl` and runs it.
    pub apps: bool,
    /// Built with the legacy provider (crypto-sys's default feature).
    pub legacy: bool,
    /// Why the row is checked the way it is, for the doc.
    pub why: &'static str,
}

/// This machine's triple: its rows build through cargo here, their C compiler in plain `CC`.
pub const HOST: &str = X86_64_LINUX;
/// mingw's gcc: the wine rows, the windows step and bench, the C driver's Windows toolchain.
pub const MINGW_GCC: &str = "x86_64-w64-mingw32-gcc";
/// The 32-bit x86 rows' cross compilers, which their steps name.
pub const I686_GCC: &str = "i686-linux-gnu-gcc";
pub const MINGW_GCC_I686: &str = "i686-w64-mingw32-gcc";
const AUTO: &[&str] = &["auto"];
const AUTO_AVX2: &[&str] = &["auto", AsmSet::avx2().name];
const AUTO_NO_ASM: &[&str] = &["auto", AsmSet::plain_c().name];
const ONLY_NO_ASM: &[&str] = &[AsmSet::plain_c().name];
const CLANG14_AVXIFMA: &[&str] =
    &["crypto/bn/rsaz-2k-avxifma.s", "crypto/bn/rsaz-3k-avxifma.s", "crypto/bn/rsaz-4k-avxifma.s"];

const fn row(target: &'static str, cc: &'static str, package: &'static str, how: How) -> Row {
    Row {
        target,
        cc,
        package,
        assembler: None,
        how,
        sets: AUTO,
        full_sets: &[],
        downgraded: &[],
        c_variant: NISTP,
        apps: false,
        legacy: true,
        why: "",
    }
}

pub const ROWS: &[Row] = &[
    Row {
        sets: &["auto", AsmSet::avx2().name],
        full_sets: &[AsmSet::plain_c().name],
        apps: true,
        why: "`no_asm` by a compiler that fails the C variant's probe: x86_64's plain C, which no \
              build takes unless asked, is `--full`'s since the MSVC and i686 rows joined the \
              default run",
        ..row(HOST, "gcc", "gcc", How::Workspace)
    },
    Row {
        downgraded: CLANG14_AVXIFMA,
        legacy: false,
        why: "its assembler lacks AVX-IFMA; built without the legacy provider too, as its compile \
              of all of OpenSSL is needed anyway",
        ..row(HOST, "clang-14", "clang-14", How::Rust)
    },
    Row {
        sets: X86_64_SETS,
        why: "between clang-14 and clang-19, which are built and run: another full compile \
              costs ~130 s of CI",
        ..row(HOST, "clang-16", "clang-16", How::Assembled)
    },
    Row {
        why: "its compile of all of OpenSSL serves the Rust tests' plan check too",
        ..row(HOST, "clang-19", "clang-19", How::Sanitizer)
    },
    Row {
        sets: AUTO_AVX2,
        full_sets: ONLY_NO_ASM,
        apps: true,
        why: "no_asm's own mingw C compile is about 265 core-seconds of CI",
        ..row(X86_64_WINDOWS_GNU, MINGW_GCC, "gcc-mingw-w64-x86-64", How::Wine)
    },
    Row {
        assembler: Some("nasm"),
        sets: AUTO_AVX2,
        ..row(X86_64_WINDOWS_GNU, MINGW_GCC, "gcc-mingw-w64-x86-64", How::Wine)
    },
    Row {
        sets: X86_64_SETS,
        why: "mingw's C compile takes about 400 s with clang here",
        ..row(X86_64_WINDOWS_GNU, "clang-19", "clang-19", How::Assembled)
    },
    Row {
        assembler: Some("nasm"),
        apps: true,
        why: "clang in MSVC mode and wine's C runtime, not cl.exe and Microsoft's UCRT: the \
              workflow's msvc job builds with cl.exe",
        ..row(X86_64_WINDOWS_MSVC, "clang-19", "clang-19", How::Msvc)
    },
    Row {
        full_sets: ONLY_NO_ASM,
        why: "each aarch64 C compile is ~150 s of CI",
        ..row(AARCH64_LINUX, "aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu", How::Qemu)
    },
    Row {
        sets: &[],
        full_sets: AUTO_NO_ASM,
        why: "gcc's build is linked and run; a second aarch64 C compile costs ~330 s of CI",
        ..row(AARCH64_LINUX, "clang-19", "clang-19", How::Qemu)
    },
    Row {
        full_sets: ONLY_NO_ASM,
        c_variant: NO_C_VARIANT,
        why: "each ppc64le C compile is ~250 s of CI",
        ..row(PPC64LE_LINUX, "powerpc64le-linux-gnu-gcc", "gcc-powerpc64le-linux-gnu", How::Qemu)
    },
    Row {
        sets: &[],
        full_sets: AUTO_NO_ASM,
        c_variant: NO_C_VARIANT,
        why: "gcc's build is linked and run; a second ppc64le C compile costs ~300 s of CI",
        ..row(PPC64LE_LINUX, "clang-19", "clang-19", How::Qemu)
    },
    Row {
        sets: &[],
        full_sets: AUTO_NO_ASM,
        c_variant: NO_C_VARIANT,
        why: "of the tier-2 rows that run, with riscv64 the least covered (CPACF's AES, GHASH and \
              curves not emulated): its ~230 core-seconds left the default run for the MSVC and \
              i686 rows",
        ..row(S390X_LINUX, "s390x-linux-gnu-gcc", "gcc-s390x-linux-gnu", How::Qemu)
    },
    Row {
        sets: &[],
        full_sets: AUTO_NO_ASM,
        c_variant: NO_C_VARIANT,
        why: "gcc's build is linked and run; a second s390x C compile is another ~130 s",
        ..row(S390X_LINUX, "clang-19", "clang-19", How::Qemu)
    },
    Row {
        sets: &[],
        full_sets: AUTO_NO_ASM,
        why: "the tier-2 row with the least coverage: its ~180 core-seconds left the default run for the MSVC and i686 rows",
        ..row(RISCV64_LINUX, "riscv64-linux-gnu-gcc", "gcc-riscv64-linux-gnu", How::Qemu)
    },
    Row {
        sets: &[],
        full_sets: AUTO_NO_ASM,
        why: "gcc's build is linked and run; a second riscv64 C compile is another ~90 s",
        ..row(RISCV64_LINUX, "clang-19", "clang-19", How::Qemu)
    },
    // issue 36's rows: their runs are `--full`'s (the default run has no room for three
    // more C compiles); the default run assembles their asm.
    Row {
        sets: &[],
        full_sets: AUTO_NO_ASM,
        c_variant: NO_C_VARIANT,
        why: "each armv7 C compile took 390-490 s here beside other steps: no room in the default run",
        ..row(ARMV7_LINUX, "arm-linux-gnueabihf-gcc", "gcc-arm-linux-gnueabihf", How::Qemu)
    },
    Row {
        sets: &[],
        full_sets: AUTO,
        c_variant: NO_C_VARIANT,
        why: "a second armv7 C compile (~500 s here), in Arm rather than Thumb-2 code",
        ..row(ARMV7_LINUX, "clang-19", "clang-19", How::Qemu)
    },
    Row {
        sets: &[],
        full_sets: AUTO_NO_ASM,
        why: "its C compile is the host's again, with musl's headers and the host's Linux headers; its asm is linux-x86_64's",
        ..row(X86_64_LINUX_MUSL, "musl-gcc", "musl-tools", How::Static)
    },
    Row {
        sets: &[],
        full_sets: AUTO_NO_ASM,
        why: "each mips64el C compile took ~490 s here beside other steps; its asm has one code path",
        ..row(MIPS64EL_LINUX, "mips64el-linux-gnuabi64-gcc", "gcc-mips64el-linux-gnuabi64", How::Qemu)
    },
    Row {
        sets: ARM_SETS,
        c_variant: NO_C_VARIANT,
        why: "no MSVC here; the windows-arm64 step builds and runs it on windows-11-arm",
        ..row(AARCH64_WINDOWS_MSVC, "clang-19", "clang-19", How::Assembled)
    },
    // 32-bit x86: no __uint128_t, so no C variant. i686 Linux and MSVC (Rust's tier 1) run by
    // default; the other rows are assembled by default and run by `--full`.
    Row {
        full_sets: ONLY_NO_ASM,
        c_variant: NO_C_VARIANT,
        why: "no_asm would be a second i686 C compile, ~180 core-seconds",
        ..row(I686_LINUX, I686_GCC, "gcc-i686-linux-gnu", How::ThisCpu)
    },
    Row {
        sets: &[],
        full_sets: AUTO_NO_ASM,
        c_variant: NO_C_VARIANT,
        why: "a second i686 C compile, another ~180 core-seconds",
        ..row(I686_LINUX, "clang-19", "clang-19", How::ThisCpu)
    },
    Row {
        sets: &[],
        full_sets: AUTO,
        c_variant: NO_C_VARIANT,
        apps: true,
        why: "32-bit mingw's C compile is ~250 core-seconds, more than the default run has left",
        ..row(I686_WINDOWS_GNU, MINGW_GCC_I686, "gcc-mingw-w64-i686", How::Wine)
    },
    Row {
        assembler: Some("nasm"),
        sets: &[],
        full_sets: AUTO,
        c_variant: NO_C_VARIANT,
        why: "its C objects are GNU as's row's, from the object cache",
        ..row(I686_WINDOWS_GNU, MINGW_GCC_I686, "gcc-mingw-w64-i686", How::Wine)
    },
    Row {
        assembler: Some("nasm"),
        c_variant: NO_C_VARIANT,
        apps: true,
        why: "mingw-w64's i686 import libraries stand in for wine's, which Debian 12 cannot \
              install beside its amd64 toolchain",
        ..row(I686_WINDOWS_MSVC, "clang-19", "clang-19", How::Msvc)
    },
    Row {
        sets: X86_64_SETS,
        why: "no macOS SDK here",
        ..row(X86_64_MACOS, "clang-19", "clang-19", How::Assembled)
    },
    Row {
        sets: ARM_SETS,
        why: "no macOS SDK here",
        ..row(AARCH64_MACOS, "clang-19", "clang-19", How::Assembled)
    },
];

/// The row of the workspace's own build (the host's default C compiler); the table has one.
pub fn workspace_row() -> &'static Row {
    rows(How::Workspace).next().expect("the matrix has a workspace row")
}

/// The rows checked the given way, in table order.
pub fn rows(how: How) -> impl Iterator<Item = &'static Row> {
    ROWS.iter().filter(move |r| r.how == how)
}

/// The rows the default run only assembles: `Assembled` ones, and the runnable ones it does
/// not run (their second compiler, run by `--full`).
pub fn assembled_rows() -> impl Iterator<Item = &'static Row> {
    ROWS.iter().filter(|r| r.assembled_by_default())
}

impl Row {
    /// Only assembled in the default run.
    pub fn assembled_by_default(&self) -> bool {
        self.how == How::Assembled || (self.sets.is_empty() && !self.full_sets.is_empty())
    }

    /// Whether the `assembled` step takes this set of the row's target.
    pub fn assembles(&self, set: &str) -> bool {
        self.assembled_by_default() && (self.how != How::Assembled || self.sets.contains(&set))
    }

    pub fn triple(&self) -> Triple<'static> {
        Triple::parse(self.target).expect("the matrix's triples parse")
    }

    /// Whether the row's builds name its C compiler (`cc_var`): all but the MSVC-ABI rows,
    /// which take the one the build finds, as a fresh clone does (`cc` is the clang it runs as
    /// clang-cl here).
    pub fn names_cc(&self) -> bool {
        let msvc = crypto_build::data::CcKind::Msvc;
        crypto_build::data::target_for(self.target).is_ok_and(|t| t.cc_kind != msvc)
    }

    /// The variable that names this row's C compiler: CC for the host's rows, else cc's
    /// per-target form.
    pub fn cc_var(&self) -> String {
        if self.target == HOST {
            "CC".into()
        } else {
            format!("CC_{}", self.target.replace('-', "_"))
        }
    }

    /// cargo's feature arguments for this row's build and tests.
    pub fn cargo_features(&self) -> &'static [&'static str] {
        if self.legacy {
            &[]
        } else {
            &["--no-default-features"]
        }
    }

    /// A name for this row's build directories and report lines.
    pub fn name(&self) -> String {
        let asm = self.assembler.map(|a| format!("+{a}")).unwrap_or_default();
        format!("{}-{}{asm}", self.triple().arch, self.cc)
    }

    /// The C driver's toolchain: this row's C compiler (clang told the target), run as the
    /// target's programs run here.
    pub fn driver(&self) -> Result<Toolchain> {
        let t = self.triple();
        let runner = Runner::of(&t)
            .with_context(|| format!("no way to run {} programs on this machine", self.target))?;
        let cross_clang = self.cc.starts_with("clang") && self.target != HOST;
        let target_flag = cross_clang.then(|| format!("--target={}", t.clang_target()));
        let static_flag = (self.how == How::Static).then(|| "-static".to_string());
        let target = crypto_build::data::target_for(self.target)?;
        // An MSVC row's C runtime is wine's: its headers, and lld-link for the link.
        let msvc = crypto_build::data::WineRuntime::of(target).filter(|_| self.how == How::Msvc);
        let headers = match msvc {
            Some(rt) => crypto_build::msvc::include_flags(rt, "-isystem")?,
            None => Vec::new(),
        };
        Ok(Toolchain {
            name: self.name(),
            cc: self.cc,
            package: self.package,
            flags: target_flag.into_iter().chain(static_flag).chain(headers).collect(),
            env: &[],
            exe: if t.is_windows() { "driver.exe" } else { "driver" },
            asm: Some(target.arch),
            runner,
            msvc,
        })
    }

    /// The row of `cc` for `target` (and `assembler`, where several share a compiler).
    pub fn find(target: &str, cc: &str, assembler: Option<&str>) -> Result<&'static Row> {
        ROWS.iter()
            .find(|r| r.target == target && r.cc == cc && r.assembler == assembler)
            .with_context(|| format!("no matrix row for {cc} ({target})"))
    }

    /// What `cargo xtask test` does with the row, for the doc.
    pub fn tested(&self) -> String {
        let sets = |s: &[&str]| s.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ");
        let emulated = |s: &[&str]| {
            let under = match Runner::of(&self.triple()) {
                Some(Runner::Qemu(q)) => format!("under {}", q.program),
                Some(Runner::Loader(l)) => format!("on this CPU (through {}'s loader)", l.sysroot),
                // x86_64's is wine's default prefix; another architecture's is named.
                Some(Runner::Wine(w)) if w.winearch != "win64" => {
                    format!("under wine ({} prefix)", w.winearch)
                }
                Some(Runner::Wine(_)) => "under wine".into(),
                Some(Runner::Native) => "fully static, run natively,".into(),
                None => "natively".into(),
            };
            let arch = crypto_build::data::target_for(self.target).map(|t| t.arch);
            let paths = match arch.map(|a| a.cap_var()) {
                Ok(None) => "on its one code path (no capability variable)",
                _ => "on every code path",
            };
            format!("C driver {under} {paths}, {}", sets(s))
        };
        let tool = self.assembler.unwrap_or(self.cc);
        let what = match self.how {
            How::Workspace => format!(
                "`cargo test --workspace`; crypto-sys's tests on every code path with {}; the \
                 prefix, its consumers and the package",
                sets(self.sets)
            ),
            How::Rust if self.legacy => "crypto-sys's Rust tests".into(),
            How::Rust => "crypto-sys's Rust tests, built without the `legacy` feature".into(),
            How::Sanitizer => "built by the sanitizer step (ASan and UBSan, asm kept), its plan \
                               checked; C driver on every code path"
                .into(),
            _ if self.assembled_by_default() && self.how != How::Assembled => {
                format!("only assembled: every asm file by {tool}, exports checked")
            }
            How::Wine | How::Qemu | How::ThisCpu | How::Static => emulated(self.sets),
            How::Msvc => format!(
                "clang-cl (no C compiler named), lld-link and wine's C runtime: {}; \
                 `openssl.exe` under wine",
                emulated(self.sets)
            ),
            How::Assembled => format!(
                "only assembled: every asm file of {} by {tool}, exports checked",
                sets(self.sets)
            ),
        };
        let full = match (self.full_sets.is_empty(), self.sets.is_empty()) {
            (true, _) => String::new(),
            (false, false) => format!("; {} with `--full`", sets(self.full_sets)),
            (false, true) => format!("; with `--full`, {}", emulated(self.full_sets)),
        };
        let why = if self.why.is_empty() { String::new() } else { format!(" ({})", self.why) };
        format!("{what}{full}{why}")
    }

    /// A prefix built with this row took the plan the table expects: its files from asm_avx2
    /// and its C variant.
    pub fn check_prefix_plan(&self, prefix: &std::path::Path) -> Result<()> {
        let facts = crate::prefix::facts(prefix)?;
        let from_avx2 = facts.files_from(AsmSet::avx2().name);
        let variant = facts.c_variant_name();
        let want_variant = self.c_variant;
        if from_avx2 != self.downgraded || variant != want_variant {
            bail!(
                "{}: asm_avx2 gave {from_avx2:?} and the C variant is {variant}; the toolchain \
                 table expects {:?} and {want_variant}",
                self.cc,
                self.downgraded
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crypto_build::facts::PlannedFile;

    #[test]
    fn every_row_names_a_known_target_and_sets() {
        for r in ROWS {
            crypto_build::data::target_for(r.target).unwrap();
            for set in r.sets.iter().chain(r.full_sets) {
                assert!(*set == "auto" || crypto_build::data::SETS.iter().any(|s| s.name == *set));
            }
        }
        assert_eq!(rows(How::Workspace).count(), 1);
        let mingw = Row::find(X86_64_WINDOWS_GNU, MINGW_GCC, None).unwrap().driver().unwrap();
        let x86 = Some(crypto_build::data::Arch::X86_64);
        assert_eq!((mingw.exe, mingw.asm, mingw.flags.len()), ("driver.exe", x86, 0));
        let clang = Row::find(AARCH64_LINUX, "clang-19", None).unwrap().driver().unwrap();
        assert_eq!(clang.flags, ["--target=aarch64-linux-gnu"]);
    }

    #[test]
    fn a_prefix_plan_is_checked_against_its_row() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let clang14 = Row::find(HOST, "clang-14", None).unwrap();
        let mut facts = crate::prefix::sample_facts();
        facts.asm_files.extend(
            clang14
                .downgraded
                .iter()
                .map(|f| PlannedFile { path: f.to_string(), set: "asm_avx2".into() }),
        );
        facts.write(dir).unwrap();
        clang14.check_prefix_plan(dir).unwrap();
        let e = Row::find(HOST, "clang-19", None).unwrap().check_prefix_plan(dir).unwrap_err();
        assert!(e.to_string().contains("the toolchain table expects []"), "{e}");
        facts.c_variant = None;
        facts.write(dir).unwrap();
        let e = clang14.check_prefix_plan(dir).unwrap_err();
        assert!(e.to_string().contains("the C variant is none"), "{e}");
    }
}
