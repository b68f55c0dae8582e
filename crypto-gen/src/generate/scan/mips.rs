//! MIPS64 asm as perlasm's "64" flavour writes it (`.S`, read as the C preprocessor leaves it
//! for the target, `#` starting the assembler's comments): every mnemonic is looked up in one
//! table, as none needs a class. OpenSSL's MIPS asm has no capability dispatch: where MIPS III
//! and releases 2 and 6 differ, the compile's `-mips3` (Configure's) chooses at compile time,
//! and the assembler the same compiler drives takes what it chose. A mnemonic of an extension
//! (MSA, DSP) would stop generation instead of passing unnoticed.

use crypto_build::data::Feature;

/// MIPS III (64-bit) as OpenSSL's files write it, with `mips_arch.h`'s multiply macros
/// (`dmultu (rs,rt)`, `mflo (rd,rs,rt)`: one spelling for release 2 and release 6) and
/// bn-mips's own `mfqt`/`mfrm` (the quotient and remainder of `ddivu`).
#[rustfmt::skip]
const BASE: &[&str] = &[
    "addu", "and", "andi", "b", "bal", "beq", "beqz", "bgtz", "bltz", "bne", "bnez", "break",
    "daddiu", "daddu", "ddivu", "dins", "dla", "dmultu", "drotr", "dsll", "dsrl", "dsubu", "ext",
    "ins", "jr", "lbu", "ld", "ldl", "ldr", "li", "lui", "lw", "lwl", "lwr", "lwu", "mfhi",
    "mflo", "mfqt", "mfrm", "move", "negu", "nop", "nor", "not", "or", "ori", "rotr", "sb", "sd",
    "seq", "sgeu", "sgtu", "sll", "slt", "sltiu", "sltu", "srl", "subu", "sw", "swl", "swr",
    "xor",
];

pub const CLASSES: &[(Option<Feature>, &[&str])] = &[(None, BASE)];

#[cfg(test)]
mod tests {
    use super::super::{unclassed, AsmSyntax};
    use crypto_build::data::Arch;

    #[test]
    fn every_mnemonic_is_known_or_refused_with_its_line() {
        super::super::assert_tables_disjoint(super::CLASSES);
        let text = "#include \"mips_arch.h\"\n.set\tnoat\nbn_mul_mont:\n\tslt\t$1,$9,4 # on in-order CPU\n1:\tjr\t$31\n\tdmultu\t($12,$13)\n";
        assert_eq!(unclassed(text, AsmSyntax::Gas, Arch::Mips64), None);
        let msa = "\tld\t$8,0($8)\n\tld.d\t$w0,0($4)\n";
        assert_eq!(unclassed(msa, AsmSyntax::Gas, Arch::Mips64), Some((2, "ld.d\t$w0,0($4)")));
    }
}
