//! The `msvc-wine` steps of `cargo xtask test`: each MSVC-ABI row of the matrix (`How::Msvc`)
//! built without cargo and with no C compiler named, as a fresh clone builds it (clang as
//! clang-cl against wine's C runtime and Windows headers, nasm's objects, `libcrypto.lib`);
//! its archives checked by `cargo xtask verify --prefix`; the C driver, compiled by clang for
//! the `-msvc` target and linked by lld-link against wine's import libraries, run under wine on
//! every code path; `openssl.exe` under wine (`version -a`, a TLS 1.3 handshake); crypto-sys's
//! prefixed copy beside the plain one in one program (`mix.rs`). On
//! x86_64, a C compiler that is not MSVC-mode is refused in one line and installs nothing.

use crate::matrix::{How, Row};
use crate::runner::Runner;
use anyhow::{bail, ensure, Context, Result};
use crypto_build::data::triples::X86_64_WINDOWS_MSVC;
use crypto_build::data::{self, AsmSyntax};
use crypto_build::detect::CLANG_CL;
use crypto_build::facts::{BuildFacts, PlannedFile};
use crypto_build::lock::Lock;
use crypto_build::manifest;
use crypto_build::sets::Config;
use std::path::{Path, PathBuf};
use std::time::Instant;
use xshell::{cmd, Shell};

/// Every MSVC row of `triple`, each of its sets.
pub fn run(sh: &Shell, triple: &str) -> Result<()> {
    let rows: Vec<&Row> = crate::matrix::rows(How::Msvc).filter(|r| r.target == triple).collect();
    ensure!(!rows.is_empty(), "no MSVC row of the matrix builds {triple}");
    for row in &rows {
        require_tools(row)?;
    }
    for row in rows {
        for set in row.sets {
            check_build(sh, row, set).with_context(|| format!("{}, set {set}", row.name()))?;
        }
    }
    if triple == X86_64_WINDOWS_MSVC {
        not_msvc_mode(sh)?;
    }
    Ok(())
}

/// What the row's build and checks need, each missing one named with its package: clang,
/// nasm, lld-link, wine, and the C runtime's headers (`Row::driver`) and import libraries.
fn require_tools(row: &Row) -> Result<()> {
    for (tool, package) in [(row.cc, row.package), ("nasm", "nasm")] {
        ensure!(
            which::which(tool).is_ok(),
            "{tool} is not installed; .ci/run installs it (apt install {package})"
        );
    }
    crypto_build::msvc::lld_link()?;
    Runner::for_triple(row.target).map_err(anyhow::Error::msg)?;
    let tc = row.driver()?;
    let rt = tc.msvc.context("an MSVC row has wine's C runtime")?;
    for lib in rt.crt_libs {
        crypto_build::msvc::import_lib(rt, lib)?;
    }
    Ok(())
}

fn prefix_dir(name: &str) -> PathBuf {
    super::line_target_dir("msvc-wine", super::line()).join(name)
}

/// One prefix: built as a fresh clone builds it, its plan and C compiler the table's, its
/// archives verified, the driver on every code path and `openssl.exe` under wine.
fn check_build(sh: &Shell, row: &Row, set: &str) -> Result<()> {
    let name = row.name();
    let prefix = prefix_dir(&format!("{name}-{set}"));
    let started = Instant::now();
    let apps = row.apps && set == "auto";
    let asm = row.assembler.map(|a| ["--assembler", a]).into_iter().flatten();
    let args: Vec<&str> = asm
        .chain(["--asm-set", set])
        .chain(apps.then_some("--apps"))
        .chain(super::line_args())
        .collect();
    let out = crate::cargo::for_target_as_cloned(sh, row.target, &args, &prefix)?;
    let built = started.elapsed();
    let w = crate::cargo::warnings(&out);
    ensure!(w.is_empty(), "expected no warning, got {w:?}");
    let facts = crate::prefix::facts(&prefix)?;
    ensure!(
        facts.c_compiler.starts_with(CLANG_CL),
        "the build's C compiler is `{}`, not {CLANG_CL}",
        facts.c_compiler
    );
    if set == "auto" {
        row.check_prefix_plan(&prefix)?;
    }
    verify(sh, &prefix)?;
    println!("msvc-wine: {name}: {}", same_as_mingw(row, &facts)?);
    let tc = row.driver()?;
    super::driver_paths::check_prefix(sh, &tc, &prefix).context("under wine")?;
    if apps {
        super::apps::under(tc.runner, &prefix).context("openssl.exe under wine")?;
    }
    if set == "auto" {
        super::mix::two_copies(sh, &tc, row.target, &prefix).context("two copies under wine")?;
    }
    let checked = started.elapsed() - built;
    println!(
        "msvc-wine: {name}, set {set} by {}: built in {:.0} s, checked under wine in {:.0} s",
        facts.c_compiler,
        built.as_secs_f64(),
        checked.as_secs_f64()
    );
    Ok(())
}

/// `cargo xtask verify --prefix`: the fast paths the plan took from `asm` real code in
/// `libcrypto.lib`, as a user runs it.
fn verify(sh: &Shell, prefix: &Path) -> Result<()> {
    let xtask = crate::cargo::xtask_binary()?;
    let line = super::line_args();
    let out = cmd!(sh, "{xtask} verify --prefix {prefix} {line...}").ignore_status().output()?;
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    ensure!(out.status.success(), "cargo xtask verify --prefix {}:\n{text}", prefix.display());
    let last = text.lines().rev().find(|l| l.starts_with("verify: ")).unwrap_or("");
    println!("{last}");
    Ok(())
}

/// How many asm files of the plan are byte for byte the mingw target's nasm rendering of the
/// same architecture (mingw64's, 32-bit mingw's), by the lock's hashes: reported, as what
/// a package could share between the rows, not a property the build relies on.
fn same_as_mingw(row: &Row, facts: &BuildFacts) -> Result<String> {
    let msvc = data::target_for(row.target)?;
    let nasm = |t: &&data::Target| t.syntaxes.contains(&AsmSyntax::Nasm);
    let mingw = data::TARGETS
        .iter()
        .filter(nasm)
        .find(|t| t.arch == msvc.arch && t.cc_kind == data::CcKind::Gnu)
        .context("no mingw row of the MSVC row's architecture")?;
    let lock = Lock::load(&super::line().root(&crate::cargo::project_root()))?;
    let hash = |target: &'static data::Target, file: &PlannedFile| {
        let set = data::set_by_name(&file.set).ok()?;
        let key = Config { target, set, variant: None }.key();
        let path = format!("{}/{}", manifest::GEN_DIR, file.path);
        lock.entries.get(&(key, path)).cloned()
    };
    let same = facts
        .asm_files
        .iter()
        .filter(|f| hash(msvc, f).is_some() && hash(msvc, f) == hash(mingw, f))
        .count();
    Ok(format!(
        "{same} of {} asm files are byte-identical to {}'s",
        facts.asm_files.len(),
        mingw.name
    ))
}

/// An `-msvc` build with a C compiler that is not MSVC-mode (gcc) is refused in one line
/// naming the row's compilers, and installs no prefix.
fn not_msvc_mode(sh: &Shell) -> Result<()> {
    let prefix = prefix_dir("not-msvc-mode");
    crate::prefix::remove_earlier(&prefix)?;
    let want = "is not an MSVC-mode C compiler";
    match crate::cargo::for_target(sh, X86_64_WINDOWS_MSVC, "gcc", &super::line_args(), &prefix) {
        Err(e) if format!("{e:#}").contains(want) && !prefix.exists() => {
            let text = format!("{e:#}");
            let said = text.lines().find(|l| l.contains(want)).unwrap_or(want).trim();
            println!("CC=gcc for {X86_64_WINDOWS_MSVC}: refused: {said}");
            Ok(())
        }
        other => bail!("CC=gcc for {X86_64_WINDOWS_MSVC} must fail saying `{want}`, got {other:?}"),
    }
}
