//! RISC-V asm as perlasm's linux64 flavour writes it: every mnemonic is looked up in a table
//! of the extension that brought it, so one the tables lack stops generation instead of being
//! guessed at. riscv.pm hand-encodes every instruction beyond RV64I/M (Zbb, Zbc, Zbkb, the
//! scalar crypto Zkn, V and the vector crypto Zvk*) as `.word`: directives, which any
//! assembler takes. What stays a mnemonic is what the assembler must know; the vector crypto
//! has no class, as no assembler is asked for it.

use crypto_build::data::Feature;

/// The text of a RISC-V `.S` file as the scan reads it, a line for each line: `//` comments,
/// which the C preprocessor removes, dropped (4.0's ecp_sm2p256-riscv64.pl writes them; `#`
/// starts the assembler's own). A `.s` file is read as it is.
pub fn preprocessed(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        out.push_str(line.split("//").next().unwrap_or(""));
        out.push('\n');
    }
    out
}

/// RV64I with M, Zicsr and the pseudo-instructions perlasm writes. `zext.w` (4.0's
/// ecp_sm2p256-riscv64.pl) is Zba's `add.uw` only where Zba is on: for rv64gc, GNU as and
/// clang 14 to 19 expand it to `slli` and `srli`.
#[rustfmt::skip]
const BASE: &[&str] = &[
    "add", "addi", "addiw", "addw", "and", "andi", "beq", "beqz", "bge", "bgeu", "bgez", "bgtz",
    "blt", "bltu", "bnez", "bne", "csrr", "div", "divu", "j", "jal", "jalr", "la", "lb", "lbu",
    "ld", "lh", "lhu", "li", "lui", "lw", "lwu", "mul", "mulh", "mulhu", "mv", "neg", "negw",
    "nop", "not", "or", "ori", "ret", "sb", "sd", "seqz", "sh", "sll", "slli", "slliw", "sllw",
    "slt", "sltu", "snez", "sra", "srai", "sraiw", "srl", "srli", "srliw", "srlw", "sub", "subw",
    "sw", "xor", "xori", "zext.w",
];

/// Zbb, the basic bit manipulation.
const ZBB: &[&str] = &[
    "andn", "clz", "cpop", "ctz", "max", "maxu", "min", "minu", "orc.b", "orn", "rev8", "rol",
    "rolw", "ror", "rori", "roriw", "rorw", "sext.b", "sext.h", "xnor", "zext.h",
];

/// Zbc, carry-less multiplication.
const ZBC: &[&str] = &["clmul", "clmulh", "clmulr"];

/// Zbkb, the bit manipulation for cryptography beyond Zbb.
const ZBKB: &[&str] = &["brev8", "pack", "packh", "packw", "unzip", "zip"];

/// Zkne, Zknd and Zknh, the scalar AES and SHA-2.
#[rustfmt::skip]
const ZKN: &[&str] = &[
    "aes64ds", "aes64dsm", "aes64es", "aes64esm", "aes64im", "aes64ks1i", "aes64ks2",
    "sha256sig0", "sha256sig1", "sha256sum0", "sha256sum1", "sha512sig0", "sha512sig1",
    "sha512sum0", "sha512sum1",
];

/// The vector extension V 1.0, as far as OpenSSL's riscv.pm knows it.
#[rustfmt::skip]
const V: &[&str] = &[
    "vadd.vi", "vadd.vv", "vadd.vx", "vand.vi", "vand.vv", "vid.v", "vle32.v", "vle64.v",
    "vle8.v", "vlse32.v", "vlse64.v", "vmerge.vim", "vmv.v.i", "vmv.v.v", "vmv.v.x", "vmv.x.s",
    "vor.vv", "vrgather.vv", "vse32.v", "vse64.v", "vse8.v", "vsetivli", "vsetvli", "vsll.vi",
    "vsrl.vi", "vsrl.vx", "vsse32.v", "vsse64.v", "vxor.vv",
];

pub(super) const CLASSES: &[(Option<Feature>, &[&str])] = &[
    (None, BASE),
    (Some(Feature::Zbb), ZBB),
    (Some(Feature::Zbc), ZBC),
    (Some(Feature::Zbkb), ZBKB),
    (Some(Feature::Zkn), ZKN),
    (Some(Feature::RiscvV), V),
];

#[cfg(test)]
mod tests {
    use super::*;

    use crate::generate::scan::{hash_comment_instructions, mnemonic_class, unclassed_mnemonic};

    fn classify(m: &str) -> Option<Feature> {
        mnemonic_class(CLASSES, m).flatten()
    }

    #[test]
    fn a_dot_capital_s_files_slash_slash_comments_are_not_read() {
        let text = "\t// Load inputs\n\tld a0, 0(a1)  //carry\n";
        let read = preprocessed(text);
        assert_eq!(read, "\t\n\tld a0, 0(a1)  \n");
        assert_eq!(unclassed_mnemonic(CLASSES, &read), None);
        assert_eq!(unclassed_mnemonic(CLASSES, text).map(|(n, _)| n), Some(1));
    }

    #[test]
    fn classes_each_mnemonic_by_its_extension() {
        assert_eq!(classify("addw"), None);
        assert_eq!(classify("rev8"), Some(Feature::Zbb));
        assert_eq!(classify("clmulh"), Some(Feature::Zbc));
        assert_eq!(classify("packh"), Some(Feature::Zbkb));
        assert_eq!(classify("aes64esm"), Some(Feature::Zkn));
        assert_eq!(classify("vsetivli"), Some(Feature::RiscvV));
        crate::generate::scan::assert_tables_disjoint(CLASSES);
    }

    #[test]
    fn words_are_directives_and_vector_crypto_as_a_mnemonic_is_refused() {
        // riscv.pm's vaesem.vs, as it writes it, then as a mnemonic.
        let text = "\t.word 0xa6012077\n\tvaesem.vs v1, v2\n";
        let found: Vec<&str> = hash_comment_instructions(text).map(|i| i.1).collect();
        assert_eq!(found, ["vaesem.vs"]);
        assert_eq!(unclassed_mnemonic(CLASSES, text), Some((2, "vaesem.vs v1, v2")));
        assert_eq!(unclassed_mnemonic(CLASSES, "\tandn a0,a1,a2\n\tvle32.v v1,(a0)\n"), None);
    }
}
