//! POWER asm as perlasm's linux64le flavour writes it: every mnemonic is looked up in a table
//! of its ISA level, so one the tables lack stops generation instead of being guessed at.
//! ppc-xlate.pl hand-encodes much of the vector crypto as `.long` words (directives, which any
//! assembler takes); what it leaves as mnemonics, and the files written in plain asm
//! (aes-gcm-ppc, ecp_nistp384/521-ppc64), are what the assembler must know. Every file says
//! `.machine "any"`, so GNU as takes any level it knows.

use crypto_build::data::Feature;

/// The base 64-bit integer, branch, floating-point and cache instructions every ppc64le
/// assembler takes, with the extended mnemonics perlasm writes (record forms and branch hints
/// are read without their `.`, `+` or `-`).
const BASE: &[&str] = &[
    "add", "addc", "adde", "addi", "addic", "addis", "addme", "addze", "and", "andc", "andi", "b",
    "bcl", "bdnz", "bdz", "beq", "bge", "bgt", "bl", "ble", "blr", "blt", "bne", "bnel", "clrldi",
    "cmpd", "cmpdi", "cmpi", "cmpld", "cmpldi", "cmpli", "cmplw", "cmplwi", "cmpw", "cmpwi",
    "cntlzd", "dcbf", "divdu", "extrwi", "extsw", "fadd", "fcfid", "fmadd", "fmr", "fmul", "fsub",
    "insrdi", "insrwi", "lbz", "lbzu", "lbzx", "ld", "ldu", "ldx", "lfd", "li", "lis", "lwarx",
    "lwz", "lwzx", "mcrf", "mfcr", "mffs", "mflr", "mfspr", "mftb", "mr", "mtctr", "mtfsf", "mtlr",
    "mulhdu", "mulld", "mulli", "neg", "nop", "not", "or", "orc", "ori", "oris", "rldicl",
    "rldicr", "rldimi", "rlwimi", "rlwinm", "rotldi", "rotlwi", "rotrdi", "rotrwi", "sld", "sldi",
    "slwi", "sradi", "srd", "srdi", "srwi", "std", "stdu", "stdux", "stdx", "stb", "stbu", "stfd",
    "stw", "stwcx", "stwx", "sub", "subf", "subfc", "subfe", "subfic", "subfze", "subi", "subic",
    "td", "xor", "xori",
];

/// AltiVec (VMX) and VSX up to ISA 2.06 (POWER7).
const ALTIVEC_VSX: &[&str] = &[
    "lvsl", "lvsr", "lvx", "lxvd2x", "lxvw4x", "stvebx", "stvewx", "stvx", "stxvd2x", "stxvw4x",
    "vaddubm", "vadduwm", "vand", "vandc", "vmr", "vnor", "vor", "vperm", "vrlw", "vsel", "vsl",
    "vslb", "vsldoi", "vslo", "vspltb", "vspltisb", "vspltisw", "vspltw", "vsrab", "vsrb",
    "vsububm", "vxor", "xxland", "xxlor", "xxlxor", "xxpermdi",
];

/// ISA 2.07 (POWER8): the in-core crypto and the VSX additions.
const POWER8: &[&str] = &[
    "mfvsrd",
    "mtvsrd",
    "vcipher",
    "vcipherlast",
    "vncipher",
    "vncipherlast",
    "vpermxor",
    "vpmsumb",
    "vpmsumd",
    "vpmsumh",
    "vpmsumw",
    "vsbox",
    "vshasigmad",
    "vshasigmaw",
    "vadduqm",
    "vaddudm",
];

/// ISA 3.0 (POWER9).
const POWER9: &[&str] = &[
    "lxsd", "lxv", "lxvb16x", "lxvx", "maddhdu", "maddld", "mfvsrld", "mtvsrdd", "mtvsrws",
    "stxsd", "stxv", "stxvb16x", "stxvx", "vpermr",
];

/// ISA 3.1 (POWER10).
const POWER10: &[&str] = &["brd", "lxvp", "plxv", "pstxv", "stxvp", "xxeval"];

pub(super) const CLASSES: &[(Option<Feature>, &[&str])] = &[
    (None, BASE),
    (Some(Feature::AltivecVsx), ALTIVEC_VSX),
    (Some(Feature::Power8Crypto), POWER8),
    (Some(Feature::Power9), POWER9),
    (Some(Feature::Power10), POWER10),
];

#[cfg(test)]
mod tests {
    use super::*;

    use crate::generate::scan::{hash_comment_instructions, mnemonic_class, unclassed_mnemonic};

    fn classify(m: &str) -> Option<Feature> {
        mnemonic_class(CLASSES, m).flatten()
    }

    #[test]
    fn classes_each_mnemonic_by_its_isa_level() {
        assert_eq!(classify("addi"), None);
        assert_eq!(classify("andi."), None);
        assert_eq!(classify("beq-"), None);
        assert_eq!(classify("vxor"), Some(Feature::AltivecVsx));
        assert_eq!(classify("vcipherlast"), Some(Feature::Power8Crypto));
        assert_eq!(classify("stxvb16x"), Some(Feature::Power9));
        assert_eq!(classify("lxvp"), Some(Feature::Power10));
        crate::generate::scan::assert_tables_disjoint(CLASSES);
    }

    #[test]
    fn reads_macros_labels_and_refuses_an_unknown_mnemonic() {
        let text = ".macro SHR o\n\tsrdi\t\\o,\\o,1\n.endm\nL1:\tSHR\t9\n\tvpmsumd 0,1,2 # x\n\t.long 0x10000508\n";
        let found: Vec<(usize, &str)> =
            hash_comment_instructions(text).map(|(n, m, _)| (n, m)).collect();
        assert_eq!(found, [(2, "srdi"), (5, "vpmsumd")]);
        assert_eq!(unclassed_mnemonic(CLASSES, text), None);
        assert_eq!(
            unclassed_mnemonic(CLASSES, "\tadd 3,3,4\n\txvf32ger 0,1,2\n"),
            Some((2, "xvf32ger 0,1,2"))
        );
    }
}
