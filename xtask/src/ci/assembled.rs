//! Toolchain rows that are only assembled here, a step of `cargo xtask test`: every asm file
//! of each of the target's sets is assembled by the real assembler as crypto-sys's build would
//! (a `.S` through the C preprocessor with its unit's `-I` and `-D` words), and each object is
//! read back by llvm-19's tools, which know PE/COFF, ELF and Mach-O alike: its exported
//! symbols must be the manifest's, and on Mach-O also the Linux twin's with the `_` prefix;
//! x86_64 `asm_avx2` objects must hold no AVX-512 instruction; the target's fast paths must
//! be real code in its fastest set and stubs in its other asm sets.
//! - mingw64's GNU as rendering, by clang-19's integrated assembler: mingw's C compile takes
//!   about 400 s with clang here (windows.h in every unit), more than CI's time allows on top
//!   of mingw gcc's, which the Windows step links and runs under wine.
//! - linux-x86_64 by clang-16, between clang-14 and clang-19, which build and run the Rust
//!   tests: the same probes pass as for clang-19, and a third full compile costs ~130 s.
//! - linux-aarch64 by clang-19: aarch64 gcc's build is linked and run under qemu, and clang's
//!   (`--full`) would cost another ~330 s.
//! - darwin64-x86_64-cc and darwin64-arm64-cc by clang-19 for `*-apple-macos11`: there is no
//!   macOS SDK here, so their C cannot be compiled, only their asm assembled.
//! - 32-bit x86: mingw's GNU as rendering by i686-w64-mingw32-gcc and its nasm rendering by
//!   nasm, and linux-elf by clang-19, whose builds `--full` runs (under wine, on this CPU).
//! - VC-WIN64-CLANGASM-ARM by clang-19 for `aarch64-pc-windows-msvc` (what clang-cl assembles
//!   with on Windows): no wine runs ARM64 here; its win64 flavour exports linux-aarch64's names.
//!
//! The x86 MSVC rows are built and run under wine instead (`msvc.rs`).
//! - armv7's, musl's and mips64el's compilers (issue 36), whose runs are `--full`'s.

use anyhow::{bail, ensure, Context, Result};
use crypto_build::data::{self, Arch, AsmSet, AsmSyntax, Feature, Target, NASM_FLAGS};
use crypto_build::manifest::{self, AsmFile, Manifest};
use crypto_build::sets::{self, Config};
use crypto_gen::generate;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One target's asm, assembled by one assembler: a matrix row the default run only assembles.
struct Row {
    /// The matrix's row.
    of: &'static crate::matrix::Row,
    target: &'static Target,
    /// Which rendering it assembles.
    syntax: AsmSyntax,
    /// The program, for messages and the check that it is installed.
    tool: &'static str,
    /// clang's `--target`, for a cross row.
    clang_target: Option<String>,
    /// The target whose rendering of the same perl scripts, in another flavour, must export
    /// the same names (less the object format's prefix): a Mach-O row's Linux twin.
    twin: Option<&'static str>,
}

impl Row {
    fn of(m: &'static crate::matrix::Row) -> Result<Row> {
        let t = m.triple();
        let target = data::target_for(m.target)?;
        // Windows on ARM64's win64 flavour of the ARMv8 perlasm has a Linux twin too.
        let twin = match (t.os, t.arch) {
            ("darwin", _) | ("windows", "aarch64") => {
                Some(data::target_for(&format!("{}-unknown-linux-gnu", t.arch))?.name)
            }
            _ => None,
        };
        let nasm = m.assembler == Some("nasm");
        let clang = m.cc.starts_with("clang");
        Ok(Row {
            of: m,
            target,
            syntax: if nasm { AsmSyntax::Nasm } else { AsmSyntax::Gas },
            tool: m.assembler.unwrap_or(m.cc),
            clang_target: (clang && !nasm && m.cc_var() != "CC").then(|| t.clang_target()),
            twin,
        })
    }

    fn assemble(&self, job: &Asm) -> Result<()> {
        let mut cmd = Command::new(self.tool);
        match self.syntax {
            AsmSyntax::Nasm => {
                cmd.args(NASM_FLAGS).args(["-f", job.target.nasm_format, "-o"]);
            }
            _ => {
                // A clang's integrated assembler, as cc drives it for a `.s` or `.S` file.
                cmd.args(self.clang_target.as_ref().map(|t| format!("--target={t}")));
                cmd.args(&job.cpp).args(["-c", "-o"]);
            }
        }
        cmd.arg(&job.obj).arg(&job.src);
        run_assembler(cmd)
    }
}

/// One file to assemble.
struct Asm<'a> {
    target: &'a Target,
    src: PathBuf,
    obj: PathBuf,
    /// The unit's `-I` (the set's gen dir and OpenSSL's source dir) and `-D` words, for a
    /// `.S`, which the C preprocessor reads first; empty for a `.s` or `.asm`.
    cpp: Vec<String>,
}

/// llvm-19's binutils (Debian's llvm-19), which read every object format assembled here.
const NM: &str = "llvm-nm-19";
const OBJDUMP: &str = "llvm-objdump-19";

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
    let rows: Vec<Row> = crate::matrix::assembled_rows().map(Row::of).collect::<Result<_>>()?;
    for tool in rows.iter().map(|r| r.tool).chain([NM, OBJDUMP]) {
        ensure!(which::which(tool).is_ok(), "{tool} is not installed; .ci/run installs it");
    }
    // The sets and the OpenSSL tree of the line the run tests.
    let line = super::line();
    let workspace = crate::cargo::project_root();
    let root = line.root(&workspace);
    let src_root = crypto_build::line_source_dir(line)?;
    let assembled = super::line_target_dir("assembled", line);
    for row in &rows {
        let target = row.target;
        let out = assembled.join(format!("{}-{}", target.name, row.tool));
        // Generated where missing, and every file equal to the committed lock; the twin's too.
        let sets: Vec<&'static AsmSet> = target.sets().collect();
        let mut targets = vec![target];
        if let Some(twin) = row.twin {
            targets.push(data::target_by_name(twin)?);
        }
        let jobs = crypto_build::jobs::count();
        let progress = crate::progress::generation;
        generate::ensure_all(
            &root,
            &crypto_build::source::Source::of_line(line)?,
            &Config::expand(&targets, &sets),
            jobs,
            Some(&progress),
            None,
        )
        .with_context(|| format!("the {} sets against generate.lock", target.name))?;
        for set in target.sets().filter(|s| row.of.assembles(s.name)) {
            let dir = sets::set_dir(&root, set.name, target.name);
            let m = Manifest::load(&dir)?;
            let checked = check_set(row, target, set, &m, &dir, &src_root, &out.join(set.name))
                .with_context(|| {
                    format!("{}/{}, assembled by {}", set.name, target.name, row.tool)
                })?;
            println!("{}/{}: {checked}", set.name, target.name);
            if let Some(twin) = row.twin.filter(|_| !m.asm.is_empty()) {
                let same = same_as_twin(&root, target, set, &m, twin)?;
                println!("{}/{}: {same}", set.name, target.name);
            }
        }
    }
    Ok(())
}

/// The same asm files as the twin target's manifest (the same perl scripts in another flavour),
/// each exporting the twin's names with the target's symbol prefix. The objects were already
/// read back against this manifest, so this ties them to the twin's too.
fn same_as_twin(
    root: &Path,
    target: &Target,
    set: &AsmSet,
    m: &Manifest,
    twin: &str,
) -> Result<String> {
    let theirs = Manifest::load(&sets::set_dir(root, set.name, twin))?;
    for (a, b, name) in [(m, &theirs, target.name), (&theirs, m, twin)] {
        if let Some(only) = a.asm.iter().find(|f| b.asm_file(&f.path).is_none()) {
            bail!("{}/{name} lists {}, {}/{} does not", set.name, only.path, set.name, b.target);
        }
    }
    for ours in &m.asm {
        let theirs = theirs.asm_file(&ours.path).expect("both list the same files");
        let mut want: Vec<String> =
            theirs.globals.iter().map(|g| format!("{}{g}", target.symbol_prefix)).collect();
        want.sort();
        ensure!(
            ours.globals == want,
            "{}: {} exports {:?}, {twin}'s rendering {:?}",
            ours.path,
            target.name,
            ours.globals,
            theirs.globals
        );
    }
    let prefix = match target.symbol_prefix {
        "" => String::new(),
        p => format!(" with `{p}` before them"),
    };
    Ok(format!("{} asm files, each exporting {twin}'s names{prefix}", m.asm.len()))
}

/// One set: every asm file of the row's syntax assembled and read back; a summary line.
fn check_set(
    row: &Row,
    target: &Target,
    set: &AsmSet,
    m: &Manifest,
    dir: &Path,
    src_root: &Path,
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
    let jobs = files
        .iter()
        .map(|f| {
            Ok(Asm {
                target,
                src: manifest::gen_path(dir, &f.path),
                obj: object_path(out, &f.path),
                cpp: if f.path.ends_with(".S") { cpp_words(m, dir, src_root, f)? } else { vec![] },
            })
        })
        .collect::<Result<Vec<_>>>()?;
    assemble_all(row, &jobs, &files)?;
    for (file, job) in files.iter().zip(&jobs) {
        let exported = exports(&job.obj)?;
        ensure!(
            exported == file.globals,
            "{}: the object exports {exported:?}, the manifest lists {:?}",
            file.path,
            file.globals
        );
    }
    let wide = target.arch == Arch::X86_64 && !set.allowed.contains(&Feature::Avx512);
    if wide {
        avx512_free(&files, &jobs)?;
    }
    let paths = entry_points(row, target, set, m, out)?;
    let note = if wide { ", none with an AVX-512 operand" } else { "" };
    Ok(format!(
        "{} files assembled by {}, each exporting the manifest's symbols{note}; {paths}",
        jobs.len(),
        row.tool
    ))
}

/// The preprocessor words of a `.S` file's unit, as compile.rs passes them: each `-I` dir both
/// in the set's gen dir and in OpenSSL's source tree, each `-D` as it is.
fn cpp_words(m: &Manifest, dir: &Path, src_root: &Path, file: &AsmFile) -> Result<Vec<String>> {
    let unit = m
        .units
        .iter()
        .find(|u| u.path == file.path)
        .with_context(|| format!("{} is no unit of the manifest", file.path))?;
    let mut words = Vec::new();
    for word in &m.groups[unit.group] {
        match word.strip_prefix("-I") {
            Some(inc) => {
                words.push(format!("-I{}", manifest::gen_path(dir, inc).display()));
                words.push(format!("-I{}", src_root.join(inc).display()));
            }
            None => words.push(word.clone()),
        }
    }
    Ok(words)
}

/// Assembles every file, on every core.
fn assemble_all(row: &Row, jobs: &[Asm], files: &[AsmFile]) -> Result<()> {
    let done = crate::driver::side_by_side(jobs, |job| row.assemble(job));
    for (r, file) in done.into_iter().zip(files) {
        r.with_context(|| format!("assembling {}", file.path))?;
    }
    Ok(())
}

fn object_path(out: &Path, asm: &str) -> PathBuf {
    out.join(asm.replace('/', "-")).with_extension("obj")
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
fn avx512_free(files: &[AsmFile], jobs: &[Asm]) -> Result<()> {
    for (file, job) in files.iter().zip(jobs) {
        let text = tool_output(OBJDUMP, &["-d", "-M", "intel"], &job.obj)?;
        if let Some(line) = text.lines().find(|l| avx512_operand(l)) {
            bail!("{}: AVX-512 code in an asm_avx2 object: `{}`", file.path, line.trim());
        }
    }
    Ok(())
}

/// Each fast path of the target's table (AVX-512 on x86_64, ARMv8 crypto on arm64): real code
/// in the target's fastest set, a stub in its other asm sets, measured in the object as the
/// distance to the next global symbol or the end of the text section.
fn entry_points(
    row: &Row,
    target: &Target,
    set: &AsmSet,
    m: &Manifest,
    out: &Path,
) -> Result<String> {
    let want_real = target.sets().next().is_some_and(|s| s.name == set.name);
    let mut shown = Vec::new();
    for fp in target.fast_paths {
        let file = row.syntax.rename(fp.file);
        ensure!(m.asm_file(&file).is_some(), "the manifest has no {file}");
        let obj = object_path(out, &file);
        let symbol = format!("{}{}", target.symbol_prefix, fp.symbol);
        let size = global_sizes(&obj)?
            .into_iter()
            .find(|(s, _)| *s == symbol)
            .map(|(_, n)| n)
            .with_context(|| format!("{file} does not define {symbol}"))?;
        let real = size > crypto_build::data::STUB_MAX_BYTES;
        ensure!(
            real == want_real,
            "{symbol} in {file} is {size} bytes: it should be {}",
            if want_real { "real code" } else { "a stub" }
        );
        shown.push(format!("{symbol} {size} B"));
    }
    let kind = if want_real { "real code" } else { "stubs" };
    Ok(format!("fast paths are {kind} ({})", shown.join(", ")))
}

/// Each global text symbol and its size up to the next global one at a higher address (a
/// stub often has several names), or to the text section's end (`.text`; Mach-O's `__text`).
fn global_sizes(obj: &Path) -> Result<Vec<(String, u64)>> {
    let hex = |s: &str| u64::from_str_radix(s, 16).with_context(|| format!("address `{s}`"));
    let mut syms: Vec<(u64, String)> = Vec::new();
    for l in tool_output(NM, &["-n", "--defined-only"], obj)?.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if let [addr, "T", name] = f[..] {
            syms.push((hex(addr)?, name.to_string()));
        }
    }
    // `Idx Name Size VMA Type`: Mach-O may place data before the text.
    let headers = tool_output(OBJDUMP, &["-h"], obj)?;
    let text = headers
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| matches!(f.get(1), Some(&".text" | &"__text")))
        .context("no text section in objdump -h")?;
    let (size, vma) = match text[..] {
        [_, _, size, vma, ..] => (hex(size)?, hex(vma)?),
        _ => bail!("objdump -h: `{}`", text.join(" ")),
    };
    let end = |a: u64| syms.iter().map(|(b, _)| *b).find(|b| *b > a).unwrap_or(vma + size);
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
}
