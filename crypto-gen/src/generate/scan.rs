//! Reads generated asm, in AT&T (GNU as) or Intel (nasm) syntax: which ISA feature classes
//! each file needs from its assembler, which symbols it exports, and whether an entry point is
//! real code or a stub.

use anyhow::{bail, Result};
use crypto_build::data::{Arch, AsmSet, AsmSyntax, Feature, Target};
use std::collections::BTreeSet;

mod arm32;
mod cpp;
mod mips;
mod ppc;
mod riscv;
mod s390x;
mod x86;

/// An ARM or MIPS `.S` file as its C preprocessor leaves it for the target.
pub use cpp::preprocessed;
pub use riscv::preprocessed as riscv_preprocessed;
pub use s390x::preprocessed as s390x_preprocessed;

/// One instruction line, without comment or label.
struct Insn<'a> {
    /// 1-based, in the file.
    number: usize,
    mnemonic: &'a str,
    line: &'a str,
    /// Register names the line uses (`zmm1`, `k1`), whatever the syntax spells them like.
    registers: Vec<&'a str>,
}

fn comment(syntax: AsmSyntax) -> char {
    match syntax {
        AsmSyntax::Gas => '#',
        AsmSyntax::Nasm => ';',
    }
}

/// Whether the first word of a line is a directive rather than an instruction.
fn is_directive(word: &str, syntax: AsmSyntax) -> bool {
    match syntax {
        AsmSyntax::Gas => word.starts_with('.'),
        // x86_64-xlate.pl's nasm output writes instructions in lower case, directives
        // otherwise; x86nasm.pl (32-bit) writes its data and segments in lower case too.
        AsmSyntax::Nasm => {
            word.starts_with('%')
                || NASM_DIRECTIVES.contains(&word.to_ascii_lowercase().as_str())
                || word.chars().any(|c| c.is_ascii_uppercase())
        }
    }
}

const NASM_DIRECTIVES: &[&str] = &[
    "global", "section", "segment", "default", "extern", "align", "common", "safeseh", "db", "dw",
    "dd", "dq",
];

/// Register names in a line: `%`-prefixed words in AT&T syntax, bare words in Intel syntax
/// (where a symbol could also look like one, perlasm's labels start with `$L$` or a name).
fn registers(line: &str, syntax: AsmSyntax) -> Vec<&str> {
    let bytes = line.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'.';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !word(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && word(bytes[i]) {
            i += 1;
        }
        let prefixed = start > 0 && bytes[start - 1] == b'%';
        if prefixed == (syntax == AsmSyntax::Gas) {
            out.push(&line[start..i]);
        }
    }
    out
}

fn instructions(text: &str, syntax: AsmSyntax) -> impl Iterator<Item = Insn<'_>> {
    text.lines().enumerate().filter_map(move |(n, raw)| {
        let line = raw.split(comment(syntax)).next().unwrap_or("").trim();
        let line = match line.rfind(':') {
            Some(i) if !line[..i].contains(char::is_whitespace) => line[i + 1..].trim(),
            _ => line,
        };
        let body = line.strip_prefix("{vex}").map(str::trim).unwrap_or(line);
        let mut words = body.split_whitespace();
        let mnemonic = words.next()?;
        // nasm's `NAME equ VALUE` (x86nasm.pl's `$@feat.00 equ 1`) defines a constant.
        let equ = syntax == AsmSyntax::Nasm && words.next().is_some_and(|w| w == "equ");
        (!is_directive(mnemonic, syntax) && !equ).then(|| Insn {
            number: n + 1,
            mnemonic,
            line,
            registers: registers(body, syntax),
        })
    })
}

/// EVEX-only mnemonics (AVX-512 without a VEX form), as prefixes or exact names.
const EVEX_PREFIXES: &[&str] = &[
    "vpternlog",
    "vpermt2",
    "vpermi2",
    "valign",
    "vpcompress",
    "vpexpand",
    "vcompress",
    "vexpand",
    "vprol",
    "vpror",
    "vpsravq",
    "vpsraq",
    "vpmultishift",
    "vpopcnt",
    "vpshld",
    "vpshrd",
    "vpbroadcastm",
    "vpconflict",
    "vplzcnt",
    "vrcp14",
    "vrsqrt14",
    "vgetexp",
    "vscalef",
    "vfixupimm",
    "vrndscale",
    "vreduce",
    "vrange",
    "vdbpsadbw",
    "vptestm",
    "vptestnm",
    "vpblendm",
    "vblendm",
    "vpmullq",
    "vpabsq",
    "vpmaxsq",
    "vpmaxuq",
    "vpminsq",
    "vpminuq",
];
const EVEX_EXACT: &[&str] = &[
    "vpermb", "vpermw", "vpcmpb", "vpcmpw", "vpcmpd", "vpcmpq", "vpcmpub", "vpcmpuw", "vpcmpud",
    "vpcmpuq", "vpmovqd", "vpmovqw", "vpmovqb", "vpmovdw", "vpmovdb", "vpmovwb",
];

/// Which AVX-512 register or form a line uses, if any.
fn avx512_operand(insn: &Insn) -> Option<&'static str> {
    let numbered = |r: &str, p: &str| r.strip_prefix(p).and_then(|n| n.parse::<u32>().ok());
    for r in &insn.registers {
        if numbered(r, "zmm").is_some() {
            return Some("zmm register");
        }
        if numbered(r, "k").is_some_and(|n| n < 8) {
            return Some("k-mask register");
        }
        if ["xmm", "ymm"].iter().any(|p| numbered(r, p).is_some_and(|n| n >= 16)) {
            return Some("xmm16-31/ymm16-31 register");
        }
    }
    if insn.line.contains("{z}") || insn.line.contains("{1to") {
        return Some("EVEX masking or broadcast");
    }
    None
}

fn evex_mnemonic(m: &str) -> bool {
    m.starts_with('k')
        || EVEX_EXACT.contains(&m)
        || EVEX_PREFIXES.iter().any(|p| m.starts_with(p))
        || shuffle_128x(m)
}

/// vshufi32x4, vinserti64x4, vextractf32x8, vbroadcasti64x2 ... are EVEX-only; the AVX2
/// forms end in 128 instead.
fn shuffle_128x(m: &str) -> bool {
    ["vshuf", "vinsert", "vextract", "vbroadcast"].iter().any(|p| {
        m.strip_prefix(p).is_some_and(|rest| {
            let rest = rest.trim_start_matches(['i', 'f']);
            ["32x4", "32x8", "64x2", "64x4"].contains(&rest)
        })
    })
}

/// The feature classes a file needs, each with the first line that shows it.
pub fn features(text: &str, syntax: AsmSyntax, arch: Arch) -> Vec<(Feature, String)> {
    features_at(text, syntax, arch).into_iter().map(|(f, _, line)| (f, line)).collect()
}

/// The feature classes a file needs, each with the number (1-based) and text of the first
/// line that shows it.
fn features_at(text: &str, syntax: AsmSyntax, arch: Arch) -> Vec<(Feature, usize, String)> {
    let mut found: Vec<(Feature, usize, String)> = Vec::new();
    let mut add = |f: Feature, n: usize, line: &str| {
        if !found.iter().any(|(g, _, _)| *g == f) {
            found.push((f, n, line.to_string()));
        }
    };
    match arch {
        Arch::X86_64 => {
            for insn in instructions(text, syntax) {
                for f in classify(&insn) {
                    add(f, insn.number, insn.line);
                }
            }
        }
        Arch::X86 => {
            for insn in instructions(text, syntax) {
                if let Some(Some(f)) = x86::class(insn.mnemonic, syntax) {
                    add(f, insn.number, insn.line);
                }
            }
        }
        Arch::Aarch64 => {
            for (n, mnemonic, line) in arm_instructions(text) {
                for f in classify_arm(mnemonic, line) {
                    add(f, n, line);
                }
            }
        }
        Arch::Arm => {
            for (n, mnemonic, line) in arm32::instructions(text) {
                for f in arm32::classify(mnemonic) {
                    add(f, n, line);
                }
            }
        }
        Arch::Ppc64le | Arch::S390x | Arch::Riscv64 | Arch::Mips64 => {
            let classes = mnemonic_tables(arch);
            for (n, mnemonic, line) in hash_comment_instructions(text) {
                if let Some(Some(f)) = mnemonic_class(classes, mnemonic) {
                    add(f, n, line);
                }
            }
        }
    }
    found.sort();
    found
}

/// Mnemonic tables by class, for the readers that look every mnemonic up (POWER, s390x, RISC-V).
type Classes = [(Option<Feature>, &'static [&'static str])];

/// How a mnemonic is classed: `Some(None)` base, `Some(Some(f))` feature `f`, `None` unknown.
/// POWER's record forms and branch hints are read without their `.`, `+` or `-`.
fn mnemonic_class(classes: &Classes, mnemonic: &str) -> Option<Option<Feature>> {
    let m = mnemonic.to_ascii_lowercase();
    let m = m.trim_end_matches(['+', '-']).trim_end_matches('.');
    classes.iter().find(|(_, table)| table.contains(&m)).map(|(f, _)| *f)
}

/// The mnemonic tables of an architecture whose reader looks every mnemonic up.
fn mnemonic_tables(arch: Arch) -> &'static Classes {
    match arch {
        Arch::Ppc64le => ppc::CLASSES,
        Arch::S390x => s390x::CLASSES,
        Arch::Riscv64 => riscv::CLASSES,
        Arch::Mips64 => mips::CLASSES,
        Arch::X86_64 | Arch::X86 | Arch::Aarch64 | Arch::Arm => {
            unreachable!("{arch:?} is read by its own reader")
        }
    }
}

/// The first instruction no table has: its line number (1-based) and text.
fn unclassed_mnemonic<'a>(classes: &Classes, text: &'a str) -> Option<(usize, &'a str)> {
    hash_comment_instructions(text)
        .find(|(_, m, _)| mnemonic_class(classes, m).is_none())
        .map(|(n, _, line)| (n, line))
}

#[cfg(test)]
fn assert_tables_disjoint(classes: &Classes) {
    let mut seen = BTreeSet::new();
    for (_, table) in classes {
        for m in *table {
            assert!(seen.insert(m), "{m} is in two tables");
        }
    }
}

/// Instruction lines of GNU as source where `#` starts a comment (POWER, s390x, RISC-V; a `.S` file's
/// `#include` too): labels, directives and the lines that invoke a `.macro` of the file (whose
/// body is read where it is defined) dropped. Each with its 1-based number, mnemonic and text.
fn hash_comment_instructions(text: &str) -> impl Iterator<Item = (usize, &str, &str)> {
    let macros: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix(".macro"))
        .filter_map(|rest| rest.split_whitespace().next())
        .collect();
    text.lines().enumerate().filter_map(move |(n, raw)| {
        let line = raw.split('#').next().unwrap_or("").trim();
        let line = after_label(line);
        let mnemonic = line.split_whitespace().next()?;
        let skip = mnemonic.starts_with('.') || macros.contains(&mnemonic);
        (!skip).then_some((n + 1, mnemonic, line))
    })
}

/// A GNU-as line without its leading `label:` (a first word ending in `:`), trimmed.
fn after_label(line: &str) -> &str {
    match line.find(':') {
        Some(i) if !line[..i].contains(char::is_whitespace) => line[i + 1..].trim(),
        _ => line,
    }
}

/// Instruction lines of AArch64 GNU-as source (`.S`): `//` comments, C preprocessor lines
/// and labels dropped; `.inst` words (arm-xlate's hand-encoded instructions) are directives,
/// which any assembler takes.
fn arm_instructions(text: &str) -> impl Iterator<Item = (usize, &str, &str)> {
    text.lines().enumerate().filter_map(|(n, raw)| {
        let line = raw.split("//").next().unwrap_or("").trim();
        if line.starts_with('#') {
            return None;
        }
        let line = after_label(line);
        let mnemonic = line.split_whitespace().next()?;
        (!mnemonic.starts_with('.')).then_some((n + 1, mnemonic, line))
    })
}

/// The ARMv8 crypto extension's mnemonics (PMULL only in its 64-bit `.1q` form).
const ARM_CRYPTO: &[&str] = &[
    "aese",
    "aesd",
    "aesmc",
    "aesimc",
    "sha1c",
    "sha1h",
    "sha1m",
    "sha1p",
    "sha1su0",
    "sha1su1",
    "sha256h",
    "sha256h2",
    "sha256su0",
    "sha256su1",
];

/// Mnemonics of later extensions (SHA-512, SHA-3, SM3/SM4, SVE) that OpenSSL hand-encodes; met
/// as mnemonics they would need a class and a probe of their own.
const ARM_UNCLASSED: &[&str] = &[
    "sha512h",
    "sha512h2",
    "sha512su0",
    "sha512su1",
    "eor3",
    "rax1",
    "xar",
    "bcax",
    "sm3",
    "sm4e",
    "sm4ekey",
    "whilelo",
    "ptrue",
    "ld1w",
    "st1w",
];

fn classify_arm(m: &str, line: &str) -> Vec<Feature> {
    let vector = line.split(|c: char| !c.is_ascii_alphanumeric() && c != '.').any(|w| {
        w.strip_prefix('v').is_some_and(|r| {
            let (n, arrangement) = r.split_once('.').unwrap_or((r, ""));
            !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && !arrangement.is_empty()
        })
    });
    let crypto = ARM_CRYPTO.contains(&m) || (m.starts_with("pmull") && line.contains(".1q"));
    let mut out = Vec::new();
    if vector {
        out.push(Feature::Neon);
    }
    if crypto {
        out.push(Feature::ArmCrypto);
    }
    out
}

/// The first instruction of an extension the scan has no class for, which must not pass
/// unnoticed: its line number (1-based) and text.
pub fn unclassed(text: &str, syntax: AsmSyntax, arch: Arch) -> Option<(usize, &str)> {
    match arch {
        Arch::Aarch64 => arm_instructions(text)
            .find(|(_, m, _)| ARM_UNCLASSED.iter().any(|u| m.eq_ignore_ascii_case(u)))
            .map(|(n, _, line)| (n, line)),
        Arch::X86_64 => instructions(text, syntax).find(unclassed_x86).map(|i| (i.number, i.line)),
        // A mnemonic in no table, and any AVX-512 operand: 32-bit x86 has no class for it.
        Arch::X86 => instructions(text, syntax)
            .find(|i| {
                unclassed_x86(i)
                    || avx512_operand(i).is_some()
                    || x86::class(i.mnemonic, syntax).is_none()
            })
            .map(|i| (i.number, i.line)),
        Arch::Arm => arm32::instructions(text)
            .find(|(_, m, _)| arm32::is_unclassed(m))
            .map(|(n, _, line)| (n, line)),
        Arch::Ppc64le | Arch::S390x | Arch::Riscv64 | Arch::Mips64 => {
            unclassed_mnemonic(mnemonic_tables(arch), text)
        }
    }
}

/// x86_64 extensions with no class (and so no probe): SHA-512, SM3 and SM4 (VEX), the VNNI
/// dot products, AMX tiles, Key Locker. OpenSSL writes the first three as `.byte` for the
/// assemblers its sets are generated as; a release that wrote them as mnemonics would have
/// them read as AVX2. So are APX's r16-r31 and any pseudo-prefix but `{vex}`.
const X86_UNCLASSED: &[&str] = &[
    "vsha512",
    "vsm3",
    "vsm4",
    "vpdpb",
    "vpdpw",
    "ldtilecfg",
    "sttilecfg",
    "tileload",
    "tilestore",
    "tilezero",
    "tdp",
    "aesenc128kl",
    "aesdec128kl",
    "aesenc256kl",
    "aesdec256kl",
    "aesencwide",
    "aesdecwide",
    "encodekey",
];

fn unclassed_x86(insn: &Insn) -> bool {
    let m = insn.mnemonic.to_ascii_lowercase();
    let apx = |r: &&str| {
        let n = r.strip_prefix('r').map(|n| n.trim_end_matches(['d', 'w', 'b']));
        n.and_then(|n| n.parse::<u32>().ok()).is_some_and(|n| (16..32).contains(&n))
    };
    X86_UNCLASSED.iter().any(|u| m.starts_with(u))
        || m.starts_with('{')
        || insn.registers.iter().any(apx)
}

fn classify(insn: &Insn<'_>) -> Vec<Feature> {
    let (m, line) = (insn.mnemonic, insn.line);
    let wide = insn.registers.iter().any(|r| r.starts_with("zmm") || r.starts_with("ymm"));
    let mut out = Vec::new();
    if m.starts_with("vpmadd52") {
        out.push(if line.starts_with("{vex}") { Feature::AvxIfma } else { Feature::Avx512Ifma });
    }
    if m.starts_with("vaes") && wide {
        out.push(Feature::Vaes512);
    }
    if m == "vpclmulqdq" && wide {
        out.push(Feature::Vpclmul512);
    }
    if m.starts_with("gf2p8") || m.starts_with("vgf2p8") {
        out.push(Feature::Gfni);
    }
    if m.starts_with("sha1") || m.starts_with("sha256") {
        out.push(Feature::ShaNi);
    }
    if ["adcx", "adox", "mulx", "rorx", "shlx", "shrx", "sarx", "andn", "bzhi", "pdep", "pext"]
        .iter()
        .any(|b| m.trim_end_matches(['l', 'q']) == *b)
    {
        out.push(Feature::AdxBmi2);
    }
    let evex_ifma = out.contains(&Feature::Avx512Ifma);
    if evex_ifma || avx512_operand(insn).is_some() || evex_mnemonic(m) {
        out.push(Feature::Avx512);
    } else if m.starts_with('v') {
        out.push(Feature::Avx2);
    }
    out
}

/// Symbols exported with `.globl` (gas) or `global` (nasm), sorted.
pub fn globals(text: &str, syntax: AsmSyntax) -> Vec<String> {
    // GNU as takes `.global` for `.globl` (aes-gcm-ppc writes it).
    let keywords: &[&str] = match syntax {
        AsmSyntax::Gas => &[".globl", ".global"],
        AsmSyntax::Nasm => &["global"],
    };
    let set: BTreeSet<String> = text
        .lines()
        .filter_map(|l| keywords.iter().find_map(|k| l.trim().strip_prefix(k)))
        .filter(|s| s.starts_with(char::is_whitespace))
        .map(|s| s.trim().to_string())
        .collect();
    set.into_iter().collect()
}

/// The instruction and data lines of `symbol`'s body (stubs share one body under several
/// labels, so labels are skipped): up to `.size` in gas; in nasm, which has no `.size`, up to
/// the next directive that starts another function or section.
fn body<'a>(text: &'a str, symbol: &str, syntax: AsmSyntax) -> Option<Vec<&'a str>> {
    let label = format!("{symbol}:");
    let start = text.lines().position(|l| l.trim() == label)?;
    let ends = |l: &str| match syntax {
        AsmSyntax::Gas => l.starts_with(".size"),
        AsmSyntax::Nasm => {
            let w = l.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
            ["global", "section", "align", "extern"].contains(&w.as_str())
        }
    };
    let data = match syntax {
        AsmSyntax::Gas => ".byte",
        AsmSyntax::Nasm => "DB",
    };
    let body: Vec<&str> = text
        .lines()
        .skip(start + 1)
        .map(|l| l.split(comment(syntax)).next().unwrap_or("").trim())
        .take_while(|l| !ends(l))
        .filter(|l| {
            let first = l.split_whitespace().next().unwrap_or("");
            !l.is_empty()
                && !l.ends_with(':')
                && (first.eq_ignore_ascii_case(data)
                    || !is_directive(first, syntax)
                    || first == "ud2")
        })
        .collect();
    Some(body)
}

/// A stub is what perlasm emits for an assembler it thinks too old: `xor %eax,%eax; ret`, or
/// `ud2; ret` (0x0f,0x0b), possibly after an endbr64.
pub fn is_stub(text: &str, symbol: &str, syntax: AsmSyntax) -> Option<bool> {
    const STUB_INSNS: &[&str] =
        &["xorl %eax,%eax", "xor %eax,%eax", "xor eax,eax", "ret", "retq", "endbr64", "ud2"];
    // ud2, `repz ret` and endbr64, which perlasm writes as bytes.
    const STUB_BYTES: &[&[u8]] = &[&[0x0f, 0x0b], &[0xf3, 0xc3], &[0xf3, 0x0f, 0x1e, 0xfa]];
    let body = body(text, symbol, syntax)?;
    Some(body.iter().all(|l| match l.strip_prefix(".byte").or_else(|| l.strip_prefix("DB")) {
        Some(bytes) => parse_bytes(bytes).is_some_and(|b| STUB_BYTES.contains(&b.as_slice())),
        None => STUB_INSNS.contains(&l.split_whitespace().collect::<Vec<_>>().join(" ").as_str()),
    }))
}

/// `.byte`/`DB` operands: hex as `0xf3` or nasm's `0F3h`, or decimal.
fn parse_bytes(s: &str) -> Option<Vec<u8>> {
    s.split(',')
        .map(|b| {
            let b = b.trim();
            if let Some(h) = b.strip_prefix("0x") {
                u8::from_str_radix(h, 16).ok()
            } else if let Some(h) = b.strip_suffix('h') {
                u8::from_str_radix(h, 16).ok()
            } else {
                b.parse().ok()
            }
        })
        .collect()
}

/// An instruction the scan refused, and where: a class its set must not hold, or an
/// extension with no class yet. The error of [`check_set`], so that a report can name the
/// file and line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// `<set>/<target>`.
    pub config: String,
    pub path: String,
    /// 1-based, in the generated file (an AArch64 `.S` as its preprocessor leaves it, with
    /// the same numbering).
    pub line: usize,
    pub text: String,
    pub why: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Refused { config, path, line, text, why } = self;
        write!(f, "{config}: {path}:{line} {why}: `{text}`")
    }
}

impl std::error::Error for Refused {}

/// Checks one set's asm files against what the set may contain and must contain; gives each
/// file's feature classes, in `files`' order (the scan a manifest keeps, made once).
pub fn check_set(
    set: &AsmSet,
    target: &Target,
    files: &[(String, String)],
) -> Result<Vec<Vec<Feature>>> {
    if set.allowed.is_empty() && !files.is_empty() {
        bail!("{}/{}: a no-asm set holds asm files ({})", set.name, target.name, files[0].0);
    }
    let refused = |path: &str, line: usize, text: &str, why: String| Refused {
        config: format!("{}/{}", set.name, target.name),
        path: path.into(),
        line,
        text: text.into(),
        why,
    };
    let mut classes = Vec::with_capacity(files.len());
    for (path, text) in files {
        let syntax = syntax_of(path)?;
        if let Some((n, line)) = unclassed(text, syntax, target.arch) {
            let why = "writes an instruction of an extension for which no feature class and \
                       probe exist yet";
            return Err(refused(path, n, line, why.into()).into());
        }
        let found = features_at(text, syntax, target.arch);
        if let Some((f, n, line)) = found.iter().find(|(f, _, _)| !set.allowed.contains(f)) {
            let why = format!("uses {f}, which this set must not contain");
            return Err(refused(path, *n, line, why).into());
        }
        classes.push(found.into_iter().map(|(f, _, _)| f).collect());
    }
    if set.allowed.is_empty() {
        return Ok(classes);
    }
    let want_real = target.sets.first() == Some(&set.name);
    // Every rendering of the target must hold the same fast paths.
    let renderings = target.syntaxes.iter().map(|s| (*s, target.fast_paths));
    for (syntax, fp) in renderings.flat_map(|(s, fps)| fps.iter().map(move |fp| (s, fp))) {
        let file = syntax.rename(fp.file);
        let symbol = format!("{}{}", target.symbol_prefix, fp.symbol);
        let text = files.iter().find(|(p, _)| *p == file).map(|(_, t)| t.as_str());
        let stub = text.and_then(|t| is_stub(t, &symbol, syntax));
        match stub {
            None => bail!("{}/{}: {file} does not define {symbol}", set.name, target.name),
            Some(s) if s == want_real => bail!(
                "{}/{}: {} in {file} is {}, expected {}",
                set.name,
                target.name,
                fp.symbol,
                if s { "a stub" } else { "real code" },
                if want_real { "the real code of the fastest set" } else { "a stub" }
            ),
            Some(_) => {}
        }
    }
    Ok(classes)
}

pub fn syntax_of(path: &str) -> Result<AsmSyntax> {
    AsmSyntax::of_path(path).ok_or_else(|| anyhow::anyhow!("{path} is not an asm file"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn only(text: &str) -> Vec<Feature> {
        features(text, AsmSyntax::Gas, Arch::X86_64).into_iter().map(|(f, _)| f).collect()
    }

    fn only_nasm(text: &str) -> Vec<Feature> {
        features(text, AsmSyntax::Nasm, Arch::X86_64).into_iter().map(|(f, _)| f).collect()
    }

    #[test]
    fn classifies_feature_classes() {
        assert_eq!(only("\tvpxor\t%ymm0,%ymm1,%ymm2\n"), vec![Feature::Avx2]);
        assert_eq!(only("\tvpxord\t%zmm0,%zmm1,%zmm2\n"), vec![Feature::Avx512]);
        assert_eq!(only("\tvmovdqu64\t(%rdi),%ymm17\n"), vec![Feature::Avx512]);
        assert_eq!(only("\tvmovdqu8\t(%rsi),%ymm1{%k1}{z}\n"), vec![Feature::Avx512]);
        assert_eq!(only("\tkmovq\t%rax,%k1\n"), vec![Feature::Avx512]);
        assert_eq!(only("\tvpternlogq\t$0x96,%ymm1,%ymm2,%ymm3\n"), vec![Feature::Avx512]);
        assert_eq!(only("\tvshufi64x2\t$0,%ymm1,%ymm2,%ymm3\n"), vec![Feature::Avx512]);
        assert_eq!(only("\tvinserti128\t$1,%xmm1,%ymm2,%ymm3\n"), vec![Feature::Avx2]);
        assert_eq!(only("\tvpmovzxbd\t%xmm1,%ymm2\n"), vec![Feature::Avx2]);
        assert_eq!(only("\tvpcmpeqd\t%ymm1,%ymm2,%ymm3\n"), vec![Feature::Avx2]);
        assert_eq!(only("\tvaesenc\t%zmm1,%zmm2,%zmm3\n"), vec![Feature::Avx512, Feature::Vaes512]);
        assert_eq!(only("\tvaesenc\t%xmm1,%xmm2,%xmm3\n"), vec![Feature::Avx2]);
        assert_eq!(
            only("\t{vex}\tvpmadd52luq\t%ymm1,%ymm2,%ymm3\n"),
            vec![Feature::Avx2, Feature::AvxIfma]
        );
        assert_eq!(
            only("\tvpmadd52luq\t%ymm1,%ymm2,%ymm3\n"),
            vec![Feature::Avx512, Feature::Avx512Ifma]
        );
        assert_eq!(only("\tmulxq\t%rax,%rbx,%rcx\n\tadcxq\t%rax,%rbx\n"), vec![Feature::AdxBmi2]);
        assert_eq!(only("\tsha256rnds2\t%xmm1,%xmm2\n"), vec![Feature::ShaNi]);
        assert_eq!(only("\tgf2p8affineqb\t$0,%xmm1,%xmm2\n"), vec![Feature::Gfni]);
        assert_eq!(
            only("# vpxord %zmm0,%zmm0,%zmm0\n.byte 0x62,0xf1\n\tmovq\t%rax,%rbx\n"),
            vec![]
        );
    }

    const REAL: &str = ".globl\tf\n.type\tf,@function\nf:\n.cfi_startproc\n\tmovq\tOPENSSL_ia32cap_P+8(%rip),%rcx\n\tandq\t$1,%rcx\n\tret\n.cfi_endproc\n.size\tf, .-f\n";
    const STUB: &str = ".globl\tf\n.type\tf,@function\nf:\n.byte\t243,15,30,250\n\txorl\t%eax,%eax\n\t.byte\t0xf3,0xc3\n.size\tf, .-f\n.globl\tg\n.globl\th\ng:\nh:\n.byte\t0x0f,0x0b\n\tret\n.size\tg, .-g\n\tvpxord\t%zmm0,%zmm0,%zmm0\n";

    #[test]
    fn tells_stubs_from_real_code() {
        let gas = AsmSyntax::Gas;
        assert_eq!(is_stub(REAL, "f", gas), Some(false));
        assert_eq!(is_stub(STUB, "f", gas), Some(true));
        assert_eq!(is_stub(STUB, "g", gas), Some(true));
        assert_eq!(is_stub(STUB, "h", gas), Some(true));
        assert_eq!(is_stub(REAL, "missing", gas), None);
        assert_eq!(globals(STUB, gas), ["f", "g", "h"]);
        assert_eq!(globals(".global b\n.globl a\n.globalx c\n", gas), ["a", "b"]);
    }

    #[test]
    fn reads_aarch64_as_its_preprocessor_leaves_it() {
        let linux = crypto_build::data::target_by_name("linux-aarch64").unwrap();
        let text = "#include \"arm_arch.h\"\n#ifndef\t__KERNEL__\n.globl\tuser\n#else\n.globl\tkernel\n#endif\n#ifdef __AARCH64EB__\n\trev32\tv0.16b,v0.16b\n#endif\n#if __ARM_MAX_ARCH__>=8\n.globl\tv8\n#endif\n";
        let kept = preprocessed(text, linux).unwrap();
        assert_eq!(globals(&kept, AsmSyntax::Gas), ["user", "v8"]);
        assert_eq!(kept.lines().count(), text.lines().count());
        assert!(
            features(&kept, AsmSyntax::Gas, Arch::Aarch64).is_empty(),
            "big-endian code dropped"
        );
        let e = preprocessed("#if __ILP32__\n#endif\n", linux).unwrap_err();
        assert!(format!("{e:#}").contains("`__ILP32__` is no macro"), "{e:#}");
        assert!(preprocessed("#ifdef X\n", linux).is_err());
        let arm = |line: &str| features(line, AsmSyntax::Gas, Arch::Aarch64);
        let only: Vec<Feature> =
            arm("\taese\tv0.16b,v1.16b\n").into_iter().map(|(f, _)| f).collect();
        assert_eq!(only, [Feature::Neon, Feature::ArmCrypto]);
        let only: Vec<Feature> =
            arm("\tpmull\tv2.8h,v0.8b,v1.8b // NEON form\n").into_iter().map(|(f, _)| f).collect();
        assert_eq!(only, [Feature::Neon]);
        assert!(arm("\tadds\tx0,x1,#1\n.inst\t0xce000000\n").is_empty());
        let sha3 = "\tadd\tx0,x0,#1\n\teor3\tv0.16b,v1.16b,v2.16b,v3.16b\n";
        assert_eq!(unclassed(sha3, AsmSyntax::Gas, Arch::Aarch64).map(|(n, _)| n), Some(2));
    }

    #[test]
    fn x86_extensions_without_a_class_are_found_with_their_line() {
        let gas =
            |t: &str| unclassed(t, AsmSyntax::Gas, Arch::X86_64).map(|(n, l)| (n, l.to_string()));
        let nasm = |t: &str| unclassed(t, AsmSyntax::Nasm, Arch::X86_64).map(|(n, _)| n);
        assert_eq!(gas("\tvpxor\t%ymm0,%ymm1,%ymm2\n\tmulxq\t%rax,%rbx,%rcx\n"), None);
        let sha512 = ".text\n\tvpxor\t%ymm0,%ymm1,%ymm2\n\tvsha512rnds2\t%xmm0,%ymm11,%ymm12\n";
        assert_eq!(gas(sha512), Some((3, "vsha512rnds2\t%xmm0,%ymm11,%ymm12".into())));
        assert_eq!(gas("\tvsm3msg1\t%xmm1,%xmm2,%xmm3\n").map(|(n, _)| n), Some(1));
        assert_eq!(gas("\t{vex} vpdpbusd\t%ymm1,%ymm2,%ymm3\n").map(|(n, _)| n), Some(1));
        assert_eq!(gas("\t{evex} vpxord\t%ymm1,%ymm2,%ymm3\n").map(|(n, _)| n), Some(1));
        assert_eq!(gas("\taddq\t%r16,%rax\n").map(|(n, _)| n), Some(1));
        // As perlasm writes them for an assembler that lacks them: bytes, which any takes.
        assert_eq!(gas("# vsm4key4 %xmm1,%xmm0,%xmm0\n.byte 0xc4,0xe2,0x7a,0xda,0xc1\n"), None);
        assert_eq!(nasm("\tmov\trax,rbx\n\tvsm4rnds4\txmm0,xmm0,xmm1\n"), Some(2));
        assert_eq!(nasm("\tmov\tr15,rbx\n"), None);
    }

    #[test]
    fn refusals_name_the_file_and_line() {
        let linux = crypto_build::data::target_by_name("linux-x86_64").unwrap();
        let avx2 = crypto_build::data::set_by_name("asm_avx2").unwrap();
        let text = "\tmovq\t%rax,%rbx\n\tvpxord\t%zmm0,%zmm1,%zmm2\n";
        let files = [("crypto/x.s".to_string(), text.to_string())];
        let e = check_set(avx2, linux, &files).unwrap_err();
        let r = e.downcast_ref::<Refused>().expect("a Refused");
        assert_eq!(
            (r.path.as_str(), r.line, r.config.as_str()),
            ("crypto/x.s", 2, "asm_avx2/linux-x86_64")
        );
        assert!(e.to_string().contains("crypto/x.s:2 uses avx512"), "{e}");
    }

    #[test]
    fn classifies_nasm_feature_classes() {
        assert_eq!(only_nasm("\tvpxor\tymm2,ymm1,ymm0\n"), vec![Feature::Avx2]);
        assert_eq!(only_nasm("\tvpxorq\txmm16,xmm16,XMMWORD[rcx]\n"), vec![Feature::Avx512]);
        assert_eq!(only_nasm("\tvmovdqu8\tzmm5{k1}{z},[192+r10]\n"), vec![Feature::Avx512]);
        assert_eq!(only_nasm("\tkmovq\tk1,[r12]\n"), vec![Feature::Avx512]);
        assert_eq!(only_nasm("\tvpaddd\tymm1,ymm2,[$L$k1]\n"), vec![Feature::Avx2]);
        assert_eq!(
            only_nasm("{vex}\tvpmadd52luq\tymm3,ymm1,YMMWORD[rsi]\n"),
            vec![Feature::Avx2, Feature::AvxIfma]
        );
        assert_eq!(
            only_nasm("\tvaesenc\tzmm3,zmm2,zmm1\n"),
            vec![Feature::Avx512, Feature::Vaes512]
        );
        assert_eq!(only_nasm("\tmulx\trcx,rbx,rax\n"), vec![Feature::AdxBmi2]);
        assert_eq!(only_nasm("; vpxord zmm0,zmm0,zmm0\nDB\t0x62\n\tmov\trax,rbx\n"), vec![]);
        assert_eq!(only_nasm("%define ZMMWORD\nALIGN\t32\nglobal\tf\n"), vec![]);
    }

    /// Shapes of perlasm's nasm output for a real entry point and for its stubs.
    const NASM_REAL: &str = "EXTERN\tOPENSSL_ia32cap_P\nglobal\tf\n\nALIGN\t32\nf:\n\tmov\trcx,QWORD[((OPENSSL_ia32cap_P+8))]\n\txor\teax,eax\n\tDB\t0F3h,0C3h\t\t;repret\n\nsection\t.text code align=64\n";
    const NASM_STUB: &str = "section\t.text code align=64\n\nglobal\tf\n\nf:\n\txor\teax,eax\n\tDB\t0F3h,0C3h\t\t;repret\n\n\nglobal\tg\nglobal\th\n\n\ng:\nh:\nDB\t0x0f,0x0b\n\tDB\t0F3h,0C3h\t\t;repret\n\n";

    #[test]
    fn tells_nasm_stubs_from_real_code() {
        let nasm = AsmSyntax::Nasm;
        assert_eq!(is_stub(NASM_REAL, "f", nasm), Some(false));
        assert_eq!(is_stub(NASM_STUB, "f", nasm), Some(true));
        assert_eq!(is_stub(NASM_STUB, "g", nasm), Some(true));
        assert_eq!(is_stub(NASM_STUB, "h", nasm), Some(true));
        assert_eq!(globals(NASM_STUB, nasm), ["f", "g", "h"]);
        assert_eq!(globals(NASM_REAL, nasm), ["f"]);
    }
}
