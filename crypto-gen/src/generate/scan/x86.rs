//! 32-bit x86 asm as x86asm.pl writes it (AT&T for GNU as, Intel for nasm): every mnemonic is
//! looked up in a table of its class, so one the tables lack stops generation instead of
//! passing as base code. x86asm.pl writes most of what newer assemblers added as bytes
//! (AES-NI, PCLMULQDQ, SHA, XOP, `pshufb` between registers, `endbr32`); what it leaves as
//! mnemonics is what the assembler must know. The x86_64 reader's lines and registers are
//! reused (`super::instructions`); its AVX-512 and APX checks still refuse what 32-bit code
//! cannot hold.

use crypto_build::data::{AsmSyntax, Feature};

/// The i686 integer instructions, which every assembler the project takes (GNU as 2.23, nasm
/// 2.10, clang's) assembles, as [`SIMD`]'s. Intel names, with AT&T's own spellings of the
/// sign- and zero-extending moves; AT&T's size suffixes are read off (`movl`, `shrdl`).
const INTEGER: &[&str] = &[
    "adc", "add", "and", "bsf", "bsr", "bswap", "bt", "btc", "btr", "bts", "call", "cdq", "cld",
    "cltd", "clflush", "cmc", "cmova", "cmovae", "cmovb", "cmovbe", "cmovc", "cmove", "cmovnc",
    "cmovne", "cmovnz", "cmovz", "cmp", "cmpxchg", "cpuid", "cwde", "cwtl", "dec", "div", "hlt",
    "idiv", "imul", "inc", "ja", "jae", "jb", "jbe", "jc", "jcxz", "je", "jecxz", "jg", "jge",
    "jl", "jle", "jmp", "jnc", "jne", "jns", "jnz", "js", "jz", "lea", "leave", "lock", "loop",
    "mov", "movsb", "movsw", "movsx", "movzb", "movzw", "movzx", "mul", "neg", "nop", "not", "or",
    "pause", "pop", "popf", "popfd", "push", "pushf", "pushfd", "rcl", "rcr", "rdrand", "rdseed",
    "rdtsc", "rep", "ret", "rol", "ror", "sar", "sbb", "seta", "setae", "setb", "setbe", "setc",
    "sete", "setnc", "setne", "setnz", "setz", "shl", "shld", "shr", "shrd", "stc", "std", "sub",
    "test", "xadd", "xchg", "xor",
];

/// MMX, SSE to SSE4.1, AES-NI and PCLMULQDQ (x86asm.pl writes the last two, and `pshufb`
/// between registers, as bytes).
const SIMD: &[&str] = &[
    "andnps",
    "andps",
    "emms",
    "lfence",
    "mfence",
    "movaps",
    "movd",
    "movdqa",
    "movdqu",
    "movhlps",
    "movhps",
    "movlhps",
    "movlps",
    "movq",
    "movups",
    "orps",
    "paddb",
    "paddd",
    "paddq",
    "paddw",
    "palignr",
    "pand",
    "pandn",
    "pcmpeqb",
    "pcmpeqd",
    "pcmpeqw",
    "pcmpgtb",
    "pcmpgtd",
    "pcmpgtw",
    "pextrd",
    "pextrw",
    "pinsrd",
    "pinsrw",
    "pmovmskb",
    "pmuludq",
    "por",
    "pshufb",
    "pshufd",
    "pshufhw",
    "pshuflw",
    "pshufw",
    "pslld",
    "pslldq",
    "psllq",
    "psllw",
    "psrad",
    "psraw",
    "psrld",
    "psrldq",
    "psrlq",
    "psrlw",
    "psubb",
    "psubd",
    "psubq",
    "psubw",
    "punpckhbw",
    "punpckhdq",
    "punpckhqdq",
    "punpckhwd",
    "punpcklbw",
    "punpckldq",
    "punpcklqdq",
    "punpcklwd",
    "pxor",
    "sfence",
    "shufps",
    "xorps",
    "aesdec",
    "aesdeclast",
    "aesenc",
    "aesenclast",
    "aesimc",
    "aeskeygenassist",
    "pclmulqdq",
];

/// AVX and AVX2 instructions of their own; the VEX forms of [`SIMD`]'s (`vpxor`, `vmovdqa`)
/// are read as `v` before its name.
const AVX: &[&str] = &[
    "vbroadcasti128",
    "vextracti128",
    "vinserti128",
    "vpblendd",
    "vpbroadcastd",
    "vpbroadcastq",
    "vperm2i128",
    "vpermd",
    "vpermq",
    "vpsllvd",
    "vpsllvq",
    "vpsrlvd",
    "vpsrlvq",
    "vzeroall",
    "vzeroupper",
];

/// BMI1, BMI2 and ADX, read by the same class as on x86_64.
const BMI_ADX: &[&str] =
    &["adcx", "adox", "andn", "bzhi", "mulx", "pdep", "pext", "rorx", "sarx", "shlx", "shrx"];

/// SHA extensions, which x86asm.pl writes as bytes today.
const SHA: &[&str] =
    &["sha1msg1", "sha1msg2", "sha1nexte", "sha1rnds4", "sha256msg1", "sha256msg2", "sha256rnds2"];

/// How a 32-bit x86 mnemonic is classed: `Some(None)` base, `Some(Some(f))` feature `f`,
/// `None` unknown. AT&T's size suffix is tried off when the whole word is in no table.
pub fn class(mnemonic: &str, syntax: AsmSyntax) -> Option<Option<Feature>> {
    let m = mnemonic.to_ascii_lowercase();
    let lookup = |m: &str| -> Option<Option<Feature>> {
        let vex = m.strip_prefix('v').is_some_and(|rest| SIMD.contains(&rest));
        if INTEGER.contains(&m) || SIMD.contains(&m) {
            Some(None)
        } else if AVX.contains(&m) || vex {
            Some(Some(Feature::Avx2))
        } else if BMI_ADX.contains(&m) {
            Some(Some(Feature::AdxBmi2))
        } else {
            SHA.contains(&m).then_some(Some(Feature::ShaNi))
        }
    };
    let suffixed = |m: &str| {
        let stem = m.strip_suffix(['b', 'w', 'l', 'q'])?;
        (syntax == AsmSyntax::Gas).then(|| lookup(stem)).flatten()
    };
    lookup(&m).or_else(|| suffixed(&m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mnemonic_has_one_class() {
        let mut seen = std::collections::BTreeSet::new();
        for table in [INTEGER, SIMD, AVX, BMI_ADX, SHA] {
            for m in table {
                assert!(seen.insert(m), "{m} is in two tables");
            }
        }
        let gas = |m| class(m, AsmSyntax::Gas);
        assert_eq!(gas("movl"), Some(None));
        assert_eq!(gas("shrdl"), Some(None));
        assert_eq!(gas("movzbl"), Some(None));
        assert_eq!(gas("pushfl"), Some(None));
        assert_eq!(gas("vpxor"), Some(Some(Feature::Avx2)));
        assert_eq!(gas("vinserti128"), Some(Some(Feature::Avx2)));
        assert_eq!(gas("rorxl"), Some(Some(Feature::AdxBmi2)));
        assert_eq!(gas("andnl"), Some(Some(Feature::AdxBmi2)));
        assert_eq!(gas("sha256rnds2"), Some(Some(Feature::ShaNi)));
        // XOP and AVX-512 have no class on 32-bit x86; nor has a C preprocessor line.
        for unknown in ["vprotd", "vpternlogd", "kmovw", "vaddl", "#ifdef", "movl2"] {
            assert_eq!(gas(unknown), None, "{unknown}");
        }
        let nasm = |m| class(m, AsmSyntax::Nasm);
        assert_eq!(nasm("movzx"), Some(None));
        assert_eq!(nasm("pushfd"), Some(None));
        assert_eq!(nasm("movl"), None, "nasm has no size suffixes");
    }
}
