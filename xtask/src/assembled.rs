//! Toolchain rows that are only assembled here, a step of `cargo xtask test`: every asm file
//! of each set is assembled by the real assembler as crypto-sys's build would, and each object
//! is read back: its exported symbols must be the manifest's, `asm_avx2`'s must hold no AVX-512
//! instruction, and the AVX-512 entry points must be real code in `asm` and stubs in
//! `asm_avx2`.
//! - VC-WIN64A, by nasm `-f win64`: there is no MSVC here to link or run its build.
//! - mingw64's GNU as rendering, by clang-19's integrated assembler: mingw's C compile takes
//!   about 400 s with clang here (windows.h in every unit), more than CI's time allows on top
//!   of mingw gcc's, which the Windows step links and runs under wine.
//! - linux-x86_64 by clang-16, between clang-14 and clang-19, which build and run the Rust
//!   tests: the same probes pass as for clang-19, and a third full compile costs ~130 s.

use anyhow::{bail, ensure, Context, Result};
use crypto_build::data::{self, AsmSet, AsmSyntax, Feature, Target, NASM_FLAGS, SETS};
use crypto_build::generate::{self, Config};
use crypto_build::manifest::{self, AsmFile, Manifest};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One target's asm, assembled by one assembler.
struct Row {
    target: &'static str,
    /// Which rendering it assembles.
    syntax: AsmSyntax,
    /// The program, for messages and the check that it is installed.
    tool: &'static str,
    assemble: fn(&Target, &Path, &Path) -> Result<()>,
}

const ROWS: &[Row] = &[
    Row { target: "VC-WIN64A", syntax: AsmSyntax::Nasm, tool: "nasm", assemble: nasm },
    Row { target: "mingw64", syntax: AsmSyntax::Gas, tool: "clang-19", assemble: clang_mingw },
    Row { target: "linux-x86_64", syntax: AsmSyntax::Gas, tool: "clang-16", assemble: clang_16 },
];
/// binutils for PE/COFF, which read nasm's win64 objects (and ELF).
const NM: &str = "x86_64-w64-mingw32-nm";
const OBJDUMP: &str = "x86_64-w64-mingw32-objdump";

/// Whether a line of objdump's Intel-syntax disassembly has an operand only AVX-512 has: a
/// zmm register, a k-mask, or an xmm/ymm register numbered 16-31.
fn avx512_operand(line: &str) -> bool {
    let high = |reg: &str| {
        line.match_indices(reg).any(|(i, _)| {
            let digits: String =
                line[i + reg.len()..].chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<u32>().is_ok_and(|n| n >= 16)
        })
    };
    line.contains("zmm")
        || (1..8).any(|k| line.contains(&format!("{{k{k}}}")))
        || high("xmm")
        || high("ymm")
}

pub fn run() -> Result<()> {
    for tool in ROWS.iter().map(|r| r.tool).chain([NM, OBJDUMP]) {
        ensure!(which::which(tool).is_ok(), "{tool} is not installed; .ci/run installs it");
    }
    let root = crate::project_root();
    for row in ROWS {
        let target = data::target_by_name(row.target)?;
        let out = root.join("target/assembled").join(format!("{}-{}", row.target, row.tool));
        // Generated where missing, and every file equal to the committed lock.
        let sets: Vec<&'static AsmSet> = SETS.iter().collect();
        let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
        let progress = crate::progress::generation;
        generate::ensure_all(&root, &Config::expand(&[target], &sets), jobs, Some(&progress))
            .with_context(|| format!("the {} sets against generate.lock", row.target))?;
        for set in SETS {
            let dir = generate::set_dir(&root, set.name, row.target);
            let m = Manifest::load(&dir)?;
            let checked =
                check_set(row, target, set, &m, &dir, &out.join(set.name)).with_context(|| {
                    format!("{}/{}, assembled by {}", set.name, row.target, row.tool)
                })?;
            println!("{}/{}: {checked}", set.name, row.target);
            if row.target == "VC-WIN64A" && !m.asm.is_empty() {
                println!("{}/{}: {}", set.name, row.target, same_as_mingw(&root, set, &m)?);
            }
        }
    }
    Ok(())
}

/// How many `.asm` files equal mingw64's nasm rendering byte for byte: reported, as it is
/// what a package could share between the two rows, not a property the build relies on.
fn same_as_mingw(root: &Path, set: &AsmSet, m: &Manifest) -> Result<String> {
    let mingw = Manifest::load(&generate::set_dir(root, set.name, "mingw64"))?;
    let same = m
        .asm
        .iter()
        .filter(|a| {
            let hash = |m: &Manifest| m.generated(&a.path).map(|f| f.sha256.clone());
            hash(m).is_some() && hash(m) == hash(&mingw)
        })
        .count();
    Ok(format!("{same} of {} asm files are byte-identical to mingw64's", m.asm.len()))
}

/// One set: every asm file of the row's syntax assembled and read back; a summary line.
fn check_set(
    row: &Row,
    target: &Target,
    set: &AsmSet,
    m: &Manifest,
    dir: &Path,
    out: &Path,
) -> Result<String> {
    if set.allowed.is_empty() {
        let asm_units = m.units.iter().filter(|u| AsmSyntax::of_path(&u.path).is_some()).count();
        ensure!(m.asm.is_empty() && asm_units == 0, "no_asm lists asm files");
        return Ok("no asm files, as planned".into());
    }
    let files: Vec<AsmFile> =
        m.asm.iter().filter(|a| AsmSyntax::of_path(&a.path) == Some(row.syntax)).cloned().collect();
    ensure!(!files.is_empty(), "the manifest lists no {:?} asm files", row.syntax);
    std::fs::create_dir_all(out)?;
    let objects = assemble_all(row, target, dir, &files, out)?;
    for (file, obj) in files.iter().zip(&objects) {
        let exported = exports(obj)?;
        ensure!(
            exported == file.globals,
            "{}: the object exports {exported:?}, the manifest lists {:?}",
            file.path,
            file.globals
        );
    }
    let wide = !set.allowed.contains(&Feature::Avx512);
    if wide {
        avx512_free(&files, &objects)?;
    }
    let paths = entry_points(row, target, set, m, out)?;
    let note = if wide { ", none with an AVX-512 operand" } else { "" };
    Ok(format!(
        "{} files assembled by {}, each exporting the manifest's symbols{note}; {paths}",
        objects.len(),
        row.tool
    ))
}

/// Assembles every file, on every core; objects in `out`, in the order of `files`.
fn assemble_all(
    row: &Row,
    target: &Target,
    dir: &Path,
    files: &[AsmFile],
    out: &Path,
) -> Result<Vec<PathBuf>> {
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let done: Vec<Vec<(usize, Result<PathBuf>)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(file) = files.get(i) else { return done };
                        let obj = object_path(out, &file.path);
                        let src = manifest::gen_path(dir, &file.path);
                        done.push((i, (row.assemble)(target, &src, &obj).map(|()| obj)));
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("assembler worker panicked")).collect()
    });
    let mut objects: Vec<Option<PathBuf>> = vec![None; files.len()];
    for (i, r) in done.into_iter().flatten() {
        objects[i] = Some(r.with_context(|| format!("assembling {}", files[i].path))?);
    }
    Ok(objects.into_iter().map(|o| o.expect("every file was assembled")).collect())
}

fn object_path(out: &Path, asm: &str) -> PathBuf {
    out.join(asm.replace('/', "-")).with_extension("obj")
}

/// nasm with the flags crypto-sys's build passes (compile.rs: NASM_FLAGS and `-f`).
fn nasm(target: &Target, src: &Path, obj: &Path) -> Result<()> {
    let mut cmd = Command::new("nasm");
    cmd.args(NASM_FLAGS).args(["-f", target.nasm_format, "-o"]).arg(obj).arg(src);
    run_assembler(cmd)
}

/// clang-19's integrated assembler for mingw, as cc drives it for a `.s` file.
fn clang_mingw(_: &Target, src: &Path, obj: &Path) -> Result<()> {
    let mut cmd = Command::new("clang-19");
    cmd.args(["--target=x86_64-w64-mingw32", "-c", "-o"]).arg(obj).arg(src);
    run_assembler(cmd)
}

/// clang-16's integrated assembler, as cc drives it for a `.s` file on Linux.
fn clang_16(_: &Target, src: &Path, obj: &Path) -> Result<()> {
    let mut cmd = Command::new("clang-16");
    cmd.args(["-c", "-o"]).arg(obj).arg(src);
    run_assembler(cmd)
}

fn run_assembler(mut cmd: Command) -> Result<()> {
    let out = cmd.output().with_context(|| format!("running {cmd:?}"))?;
    if !out.status.success() {
        bail!("{cmd:?} failed ({}): {}", out.status, String::from_utf8_lossy(&out.stderr));
    }
    Ok(())
}

fn tool_output(tool: &str, args: &[&str], obj: &Path) -> Result<String> {
    let out = Command::new(tool).args(args).arg(obj).env("LC_ALL", "C").output()?;
    if !out.status.success() {
        bail!("{tool} {args:?} {} failed: {}", obj.display(), String::from_utf8_lossy(&out.stderr));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The object's global, defined symbols, sorted as the manifest lists them. Common symbols
/// (nm's `C`: x86_64cpuid's `common OPENSSL_ia32cap_P`) are tentative definitions that the
/// linker merges, not exports of the file, and the manifest leaves them out in both syntaxes.
fn exports(obj: &Path) -> Result<Vec<String>> {
    let text = tool_output(NM, &["-g", "--defined-only"], obj)?;
    let mut names: Vec<String> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|f| f.len() == 3 && f[1] != "C")
        .map(|f| f[2].to_string())
        .collect();
    names.sort();
    Ok(names)
}

/// No object disassembles to an AVX-512 operand.
fn avx512_free(files: &[AsmFile], objects: &[PathBuf]) -> Result<()> {
    for (file, obj) in files.iter().zip(objects) {
        let text = tool_output(OBJDUMP, &["-d", "-M", "intel"], obj)?;
        if let Some(line) = text.lines().find(|l| avx512_operand(l)) {
            bail!("{}: AVX-512 code in an asm_avx2 object: `{}`", file.path, line.trim());
        }
    }
    Ok(())
}

/// Each AVX-512 entry point of the target's table: real code in `asm`, a stub elsewhere,
/// measured in the object as the distance to the next global symbol or the end of `.text`.
fn entry_points(
    row: &Row,
    target: &Target,
    set: &AsmSet,
    m: &Manifest,
    out: &Path,
) -> Result<String> {
    let want_real = set.allowed.contains(&Feature::Avx512);
    let mut shown = Vec::new();
    for fp in target.fast_paths {
        let file = row.syntax.rename(fp.file);
        ensure!(m.asm_file(&file).is_some(), "the manifest has no {file}");
        let obj = object_path(out, &file);
        let size = global_sizes(&obj)?
            .into_iter()
            .find(|(s, _)| s == fp.symbol)
            .map(|(_, n)| n)
            .with_context(|| format!("{file} does not define {}", fp.symbol))?;
        let real = size > crate::verify::STUB_MAX_BYTES;
        ensure!(
            real == want_real,
            "{} in {file} is {size} bytes: it should be {}",
            fp.symbol,
            if want_real { "real code" } else { "a stub" }
        );
        shown.push(format!("{} {size} B", fp.symbol));
    }
    let kind = if want_real { "real code" } else { "stubs" };
    Ok(format!("AVX-512 entry points are {kind} ({})", shown.join(", ")))
}

/// Each global text symbol and its size up to the next global one at a higher address (a
/// stub often has several names), or to `.text`'s end.
fn global_sizes(obj: &Path) -> Result<Vec<(String, u64)>> {
    let hex = |s: &str| u64::from_str_radix(s, 16).with_context(|| format!("address `{s}`"));
    let mut syms: Vec<(u64, String)> = Vec::new();
    for l in tool_output(NM, &["-n", "--defined-only"], obj)?.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if let [addr, "T", name] = f[..] {
            syms.push((hex(addr)?, name.to_string()));
        }
    }
    let headers = tool_output(OBJDUMP, &["-h"], obj)?;
    let text_size = headers
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.get(1) == Some(&".text"))
        .and_then(|f| f.get(2).map(|s| hex(s)))
        .context("no .text section in objdump -h")??;
    let end = |a: u64| syms.iter().map(|(b, _)| *b).find(|b| *b > a).unwrap_or(text_size);
    Ok(syms.iter().map(|(a, n)| (n.clone(), end(*a) - a)).collect())
}

#[cfg(test)]
mod tests {
    use super::avx512_operand;

    #[test]
    fn tells_avx512_operands_from_avx2_ones() {
        assert!(avx512_operand("vpxord zmm17,zmm31,zmm16"));
        assert!(avx512_operand("vmovdqu8 ymm1{k1}{z},YMMWORD PTR [rdi]"));
        assert!(avx512_operand("vpxorq ymm17,ymm18,ymm19"));
        assert!(avx512_operand("vmovdqu64 xmm16,XMMWORD PTR [rsi]"));
        assert!(!avx512_operand("vpxor ymm15,ymm1,ymm2"));
        assert!(!avx512_operand("movdqa xmm1,XMMWORD PTR [rip+0x10]"));
        assert!(!avx512_operand("vpermq ymm2,ymm1,0x1b"));
    }

    /// The step alone: `cargo test -p xtask -- --ignored assembled_rows`.
    #[test]
    #[ignore = "needs nasm, clang-19 and mingw binutils; generates the sets if missing"]
    fn assembled_rows() {
        super::run().unwrap();
    }
}
