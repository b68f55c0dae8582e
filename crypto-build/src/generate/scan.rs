//! Reads generated AT&T-syntax asm: which ISA feature classes each file needs from its
//! assembler, which symbols it exports, and whether an entry point is real code or a stub.

use crate::data::{AsmSet, Feature, Target};
use anyhow::{bail, Result};
use std::collections::BTreeSet;

/// One instruction line, without comment, label or directive.
struct Insn<'a> {
    mnemonic: &'a str,
    line: &'a str,
}

fn instructions(text: &str) -> impl Iterator<Item = Insn<'_>> {
    text.lines().filter_map(|raw| {
        let line = raw.split('#').next().unwrap_or("").trim();
        let line = match line.rfind(':') {
            Some(i) if !line[..i].contains(char::is_whitespace) => line[i + 1..].trim(),
            _ => line,
        };
        let body = line.strip_prefix("{vex}").map(str::trim).unwrap_or(line);
        let mnemonic = body.split_whitespace().next()?;
        (!mnemonic.starts_with('.')).then_some(Insn { mnemonic, line })
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
fn avx512_operand(line: &str) -> Option<&'static str> {
    const HIGH: [&str; 2] = ["%xmm", "%ymm"];
    if line.contains("%zmm") {
        return Some("zmm register");
    }
    if line.contains("{%k") || has_mask_register(line) {
        return Some("k-mask register");
    }
    if line.contains("{z}") || line.contains("{1to") {
        return Some("EVEX masking or broadcast");
    }
    for h in HIGH {
        for (i, _) in line.match_indices(h) {
            let n: String = line[i + 4..].chars().take_while(char::is_ascii_digit).collect();
            if n.parse::<u32>().is_ok_and(|n| n >= 16) {
                return Some("xmm16-31/ymm16-31 register");
            }
        }
    }
    None
}

fn has_mask_register(line: &str) -> bool {
    line.match_indices("%k").any(|(i, _)| {
        let rest = &line.as_bytes()[i + 2..];
        rest.first().is_some_and(|c| (b'0'..=b'7').contains(c))
            && rest.get(1).is_none_or(|c| !c.is_ascii_alphanumeric())
    })
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
pub fn features(text: &str) -> Vec<(Feature, String)> {
    let mut found: Vec<(Feature, String)> = Vec::new();
    let mut add = |f: Feature, line: &str| {
        if !found.iter().any(|(g, _)| *g == f) {
            found.push((f, line.to_string()));
        }
    };
    for insn in instructions(text) {
        for f in classify(&insn) {
            add(f, insn.line);
        }
    }
    found.sort();
    found
}

fn classify(insn: &Insn<'_>) -> Vec<Feature> {
    let (m, line) = (insn.mnemonic, insn.line);
    let wide = line.contains("%zmm") || line.contains("%ymm");
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
    if evex_ifma || avx512_operand(line).is_some() || evex_mnemonic(m) {
        out.push(Feature::Avx512);
    } else if m.starts_with('v') {
        out.push(Feature::Avx2);
    }
    out
}

/// Symbols exported with `.globl`, sorted.
pub fn globals(text: &str) -> Vec<String> {
    let set: BTreeSet<String> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix(".globl"))
        .map(|s| s.trim().to_string())
        .collect();
    set.into_iter().collect()
}

/// The instruction lines of `symbol`'s body, from its label to the next `.size` directive
/// (stubs share one body under several labels).
fn body<'a>(text: &'a str, symbol: &str) -> Option<Vec<&'a str>> {
    let label = format!("{symbol}:");
    let start = text.lines().position(|l| l.trim() == label)?;
    let body: Vec<&str> = text
        .lines()
        .skip(start + 1)
        .take_while(|l| !l.trim().starts_with(".size"))
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| {
            !l.is_empty() && !l.ends_with(':') && (!l.starts_with('.') || l.starts_with(".byte"))
        })
        .collect();
    Some(body)
}

/// A stub is what perlasm emits for an assembler it thinks too old: `xor %eax,%eax; ret`, or
/// `ud2; ret` (0x0f,0x0b), possibly after an endbr64.
pub fn is_stub(text: &str, symbol: &str) -> Option<bool> {
    const STUB_INSNS: &[&str] =
        &["xorl %eax,%eax", "xor %eax,%eax", "ret", "retq", "endbr64", "ud2"];
    // ud2, `repz ret` and endbr64, which perlasm writes as bytes.
    const STUB_BYTES: &[&[u8]] = &[&[0x0f, 0x0b], &[0xf3, 0xc3], &[0xf3, 0x0f, 0x1e, 0xfa]];
    let body = body(text, symbol)?;
    Some(body.iter().all(|l| match l.strip_prefix(".byte") {
        Some(bytes) => parse_bytes(bytes).is_some_and(|b| STUB_BYTES.contains(&b.as_slice())),
        None => STUB_INSNS.contains(&l.split_whitespace().collect::<Vec<_>>().join(" ").as_str()),
    }))
}

/// `.byte` operands, in hex or decimal.
fn parse_bytes(s: &str) -> Option<Vec<u8>> {
    s.split(',')
        .map(|b| {
            let b = b.trim();
            match b.strip_prefix("0x") {
                Some(h) => u8::from_str_radix(h, 16).ok(),
                None => b.parse().ok(),
            }
        })
        .collect()
}

/// Checks one set's asm files against what the set may contain and must contain.
pub fn check_set(set: &AsmSet, target: &Target, files: &[(String, String)]) -> Result<()> {
    if set.allowed.is_empty() && !files.is_empty() {
        bail!("{}/{}: a no-asm set holds asm files ({})", set.name, target.name, files[0].0);
    }
    for (path, text) in files {
        for (f, line) in features(text) {
            if !set.allowed.contains(&f) {
                bail!(
                    "{}/{}: {path} uses {f}, which this set must not contain: `{line}`",
                    set.name,
                    target.name
                );
            }
        }
    }
    if set.allowed.is_empty() {
        return Ok(());
    }
    let want_real = set.allowed.contains(&Feature::Avx512);
    for fp in target.fast_paths {
        let text = files.iter().find(|(p, _)| p == fp.file).map(|(_, t)| t.as_str());
        let stub = text.and_then(|t| is_stub(t, fp.symbol));
        match stub {
            None => {
                bail!("{}/{}: {} does not define {}", set.name, target.name, fp.file, fp.symbol)
            }
            Some(s) if s == want_real => bail!(
                "{}/{}: {} in {} is {}, expected {}",
                set.name,
                target.name,
                fp.symbol,
                fp.file,
                if s { "a stub" } else { "real code" },
                if want_real { "the real AVX-512 code" } else { "a stub" }
            ),
            Some(_) => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn only(text: &str) -> Vec<Feature> {
        features(text).into_iter().map(|(f, _)| f).collect()
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
        assert_eq!(is_stub(REAL, "f"), Some(false));
        assert_eq!(is_stub(STUB, "f"), Some(true));
        assert_eq!(is_stub(STUB, "g"), Some(true));
        assert_eq!(is_stub(STUB, "h"), Some(true));
        assert_eq!(is_stub(REAL, "missing"), None);
        assert_eq!(globals(STUB), ["f", "g", "h"]);
    }
}
