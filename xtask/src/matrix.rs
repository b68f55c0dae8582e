//! The real toolchains this project is tested with, and the plan each must get: one table
//! feeds `cargo xtask test`'s steps and `cargo xtask toolchains` (docs/toolchains.md).

use anyhow::{bail, Context, Result};
use std::fs;

/// A C compiler and the plan `auto` must choose with it: for the host (as CC), or for a
/// cross target (as `CC_<triple>`), with the C compiler's assembler or the one named.
pub struct Row {
    pub cc: &'static str,
    /// A cross target; `None` for the host (x86_64-unknown-linux-gnu).
    pub target: Option<&'static str>,
    /// `--assembler`, when not the C compiler's own.
    pub assembler: Option<&'static str>,
    /// What `cargo xtask test` does with the toolchain, for the doc.
    pub tested: &'static str,
    /// Files expected to come from asm_avx2; every other asm file comes from asm.
    pub downgraded: &'static [&'static str],
    /// The C variant expected ("" for OpenSSL's default C configuration).
    pub c_variant: &'static str,
}

const NISTP: &str = "ec_nistp_64_gcc_128";

const RUST: &str = "crypto-sys's Rust tests";
/// One row also covers `--no-legacy`: its compile of all of OpenSSL's C is needed anyway.
const RUST_NO_LEGACY: &str = "crypto-sys's Rust tests, built without the `legacy` feature";
/// no_asm has no asm, and its mingw C compile alone takes an eighth of CI: it is built, by
/// the first Windows row, only in the full matrix (`--ignored windows_matrix`).
const WINE: &str = "C driver under wine, every code path, `asm` and `asm_avx2`; `no_asm` \
                    in the full matrix (`cargo test -p xtask -- --ignored windows_matrix`)";
const WINE_ASM: &str = "C driver under wine, every code path, `asm` and `asm_avx2`";
/// Between clang-14 and clang-19, which are built: another full compile costs ~130 s of CI.
const ASSEMBLED_16: &str = "only assembled: every `.s` of each set by clang-16, exports \
                            checked; clang-14 and clang-19 are built and run";
/// The sanitizer step compiles all of OpenSSL with clang-19 anyway; a second, plain compile
/// for the Rust tests cost ~150 s of CI.
const SANITIZED: &str = "built by the sanitizer step (ASan and UBSan, asm kept), its plan \
                         checked; C driver on every code path";
/// mingw's C compile takes about 400 s with clang here: CI runs mingw gcc's build instead.
const ASSEMBLED_CLANG: &str = "only assembled: every `.s` of each set by clang-19, exports \
                               checked; not linked or run (CI time)";
const WIN: Option<&str> = Some("x86_64-pc-windows-gnu");
const MSVC: Option<&str> = Some("x86_64-pc-windows-msvc");
/// No MSVC or Windows SDK here: the row's plan is nasm's alone (MSVC gets no C variant to
/// probe), and its asm is only assembled, by `cargo xtask test --assembled`.
pub const ASSEMBLED: &str = "only assembled: every `.asm` of each set by nasm -f win64, exports \
                         checked; not linked or run (no MSVC here)";

/// aarch64's C compile is ~150 s here: CI builds `auto` (asm) with each compiler; `no_asm`
/// (OpenSSL's plain C) is in the full matrix, `--ignored aarch64_matrix`.
const QEMU: &str = "C driver under qemu-aarch64 on every `OPENSSL_armcap` path and on `-cpu \
                    cortex-a53`, `asm`; `no_asm` in the full matrix (`cargo test -p xtask -- \
                    --ignored aarch64_matrix`)";
const ARM: Option<&str> = Some("aarch64-unknown-linux-gnu");
/// No macOS SDK here: C cannot be compiled for macOS, asm can.
const ASSEMBLED_MACOS: &str = "assembled and symbol-checked; not linked here (no macOS SDK)";
const MAC_ARM: Option<&str> = Some("aarch64-apple-darwin");
const MAC_X86: Option<&str> = Some("x86_64-apple-darwin");

#[rustfmt::skip]
pub const ROWS: &[Row] = &[
    Row { cc: "gcc", target: None, assembler: None, tested: RUST, downgraded: &[], c_variant: NISTP },
    Row { cc: "clang-14", target: None, assembler: None, tested: RUST_NO_LEGACY,
          downgraded: &["crypto/bn/rsaz-2k-avxifma.s", "crypto/bn/rsaz-3k-avxifma.s", "crypto/bn/rsaz-4k-avxifma.s"],
          c_variant: NISTP },
    Row { cc: "clang-16", target: None, assembler: None, tested: ASSEMBLED_16, downgraded: &[], c_variant: NISTP },
    Row { cc: "clang-19", target: None, assembler: None, tested: SANITIZED, downgraded: &[], c_variant: NISTP },
    Row { cc: "x86_64-w64-mingw32-gcc", target: WIN, assembler: None, tested: WINE, downgraded: &[],
          c_variant: NISTP },
    Row { cc: "x86_64-w64-mingw32-gcc", target: WIN, assembler: Some("nasm"), tested: WINE_ASM,
          downgraded: &[], c_variant: NISTP },
    Row { cc: "clang-19", target: WIN, assembler: None, tested: ASSEMBLED_CLANG, downgraded: &[], c_variant: NISTP },
    Row { cc: "cl.exe", target: MSVC, assembler: None, tested: ASSEMBLED, downgraded: &[], c_variant: "" },
    Row { cc: "aarch64-linux-gnu-gcc", target: ARM, assembler: None, tested: QEMU, downgraded: &[],
          c_variant: NISTP },
    Row { cc: "clang-19", target: ARM, assembler: None, tested: QEMU, downgraded: &[], c_variant: NISTP },
    Row { cc: "clang-19", target: MAC_X86, assembler: None, tested: ASSEMBLED_MACOS, downgraded: &[],
          c_variant: NISTP },
    Row { cc: "clang-19", target: MAC_ARM, assembler: None, tested: ASSEMBLED_MACOS, downgraded: &[],
          c_variant: NISTP },
];

impl Row {
    /// The variable that names this row's C compiler: CC, or cc's per-target form.
    pub fn cc_var(&self) -> String {
        match self.target {
            None => "CC".into(),
            Some(t) => format!("CC_{}", t.replace('-', "_")),
        }
    }

    /// Whether `cargo xtask test` runs this row's build under wine.
    pub fn runs_under_wine(&self) -> bool {
        matches!(self.tested, WINE | WINE_ASM)
    }

    /// Whether `cargo xtask test` builds crypto-sys with this row and runs its Rust tests.
    pub fn runs_rust_tests(&self) -> bool {
        matches!(self.tested, RUST | RUST_NO_LEGACY)
    }

    /// cargo's feature arguments for this row's build and tests.
    pub fn cargo_features(&self) -> &'static [&'static str] {
        if self.tested == RUST_NO_LEGACY {
            &["--no-default-features"]
        } else {
            &[]
        }
    }

    /// The rows of the host, which crypto-sys's Rust tests run with.
    pub fn host() -> impl Iterator<Item = &'static Row> {
        ROWS.iter().filter(|r| r.target.is_none())
    }
}

impl Row {
    /// The host row of `cc`.
    pub fn host_row(cc: &str) -> Result<&'static Row> {
        Row::host().find(|r| r.cc == cc).with_context(|| format!("no host row for {cc}"))
    }

    /// A prefix built with this row took the plan the table expects: its files from asm_avx2
    /// and its C variant.
    pub fn check_prefix_plan(&self, prefix: &std::path::Path) -> Result<()> {
        let plan = fs::read_to_string(prefix.join(crate::prefix::PLAN))?;
        let rows: Vec<(&str, &str)> = plan.lines().filter_map(|l| l.split_once('\t')).collect();
        let from_avx2: Vec<&str> =
            rows.iter().filter(|(_, s)| *s == "asm_avx2").map(|(p, _)| *p).collect();
        let variant = rows.iter().find(|(p, _)| *p == crypto_build::build_script::PLAN_C_VARIANT);
        let want_variant = if self.c_variant.is_empty() { "none" } else { self.c_variant };
        if from_avx2 != self.downgraded || variant.map(|v| v.1) != Some(want_variant) {
            bail!(
                "{}: asm_avx2 gave {from_avx2:?} and the C variant is {variant:?}; the \
                 toolchain table expects {:?} and {want_variant}",
                self.cc,
                self.downgraded
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Row;

    #[test]
    fn a_prefix_plan_is_checked_against_its_row() {
        let dir = std::env::temp_dir().join(format!("xtask-plan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |plan: &str| std::fs::write(dir.join(crate::prefix::PLAN), plan).unwrap();
        let clang14 = Row::host_row("clang-14").unwrap();
        let avx2: String = clang14.downgraded.iter().map(|f| format!("{f}\tasm_avx2\n")).collect();
        write(&format!("crypto/aes/aesni-x86_64.s\tasm\n{avx2}#c_variant\tec_nistp_64_gcc_128\n"));
        clang14.check_prefix_plan(&dir).unwrap();
        let e = Row::host_row("clang-19").unwrap().check_prefix_plan(&dir).unwrap_err();
        assert!(e.to_string().contains("the toolchain table expects []"), "{e}");
        write(&format!("{avx2}#c_variant\tnone\n"));
        assert!(clang14.check_prefix_plan(&dir).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
