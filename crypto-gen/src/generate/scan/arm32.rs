//! 32-bit ARM asm as perlasm's linux32 flavour writes it (`.S`, read as the C preprocessor
//! leaves it for the target): NEON written as mnemonics under `.fpu neon`, and the ARMv8
//! crypto extensions in AArch32 (AES, PMULL, SHA-1, SHA-256) hand-encoded as `INST(a,b,c,d)`,
//! a `#define` of `.byte`s in each file, which any ARMv7 assembler takes. A crypto mnemonic is
//! classed too, should a release write one; an extension with no class stops generation.

use crypto_build::data::Feature;

/// Instruction lines: `@` and `//` comments, labels and directives dropped, and the
/// `INST(...)` words, which are data. Each with its 1-based number, mnemonic and text.
pub fn instructions(text: &str) -> impl Iterator<Item = (usize, &str, &str)> {
    text.lines().enumerate().filter_map(|(n, raw)| {
        let line = raw.split('@').next().unwrap_or("");
        let line = super::after_label(line.split("//").next().unwrap_or("").trim());
        let mnemonic = line.split_whitespace().next()?;
        let data = mnemonic.starts_with('.') || mnemonic.starts_with("INST(");
        (!data).then_some((n + 1, mnemonic, line))
    })
}

/// AArch32 extensions after ARMv8.0's crypto (dot product, matrix multiply, FP16 multiply
/// long, complex numbers, CRC32) that OpenSSL's asm does not use: met as mnemonics they would
/// need a class and a probe of their own.
const UNCLASSED: &[&str] = &[
    "vsdot", "vudot", "vusdot", "vsudot", "vsmmla", "vummla", "vusmmla", "vfmal", "vfmsl", "vcmla",
    "vcadd", "vjcvt", "crc32b", "crc32h", "crc32w", "crc32cb", "crc32ch", "crc32cw",
];

/// A mnemonic without its data type or size (`vld1.8`, `aese.8`, `vmull.p64`).
fn base(mnemonic: &str) -> String {
    mnemonic.split('.').next().unwrap_or(mnemonic).to_ascii_lowercase()
}

/// The classes an instruction needs: every VFP/NEON mnemonic (`v…`) is NEON's (the files that
/// write them say `.fpu neon`; VFP's register saves appear only in their NEON functions), the
/// crypto instructions and PMULL's 64-bit form ARMv8 crypto's too.
pub fn classify(mnemonic: &str) -> Vec<Feature> {
    let m = base(mnemonic);
    // The ARMv8 crypto mnemonics, without AArch32's `.8`/`.32` data type, are AArch64's.
    let crypto =
        super::ARM_CRYPTO.contains(&m.as_str()) || mnemonic.eq_ignore_ascii_case("vmull.p64");
    let mut out = Vec::new();
    if m.starts_with('v') || crypto {
        out.push(Feature::Neon);
    }
    if crypto {
        out.push(Feature::ArmCrypto);
    }
    out
}

pub fn is_unclassed(mnemonic: &str) -> bool {
    UNCLASSED.contains(&base(mnemonic).as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_neon_and_crypto_and_skips_their_words() {
        let text = ".fpu\tneon\n.Loop:\n\tvld1.8\t{q3},[r0]!\n\tINST(0x00,0x43,0xf0,0xf3)\t@ aese q10,q0\n\tldrb\tr4,[r1],#1 @ vld1\n\taese.8\tq0,q1\n\tvmull.p64\tq0,d0,d1\n\tvmull.p8\tq0,d0,d1\n";
        let got: Vec<(usize, &str, Vec<Feature>)> =
            instructions(text).map(|(n, m, _)| (n, m, classify(m))).collect();
        let neon = vec![Feature::Neon];
        let crypto = vec![Feature::Neon, Feature::ArmCrypto];
        assert_eq!(
            got,
            [
                (3, "vld1.8", neon.clone()),
                (5, "ldrb", vec![]),
                (6, "aese.8", crypto.clone()),
                (7, "vmull.p64", crypto),
                (8, "vmull.p8", neon)
            ]
        );
        assert!(is_unclassed("vsdot.s8") && is_unclassed("CRC32W") && !is_unclassed("vld1.8"));
    }
}
