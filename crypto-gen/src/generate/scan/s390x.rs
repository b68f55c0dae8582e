//! z/Architecture asm as perlasm's "64" flavour writes it: every mnemonic is looked up in a
//! table of the facility that brought it, so one the tables lack stops generation instead of
//! being guessed at. s390x.pm hand-encodes each facility instruction it knows (the vector
//! facility, the message-security assists, risbg) as `.word`/`.long` with the mnemonic in a
//! comment, and the older scripts write CPACF's KM/KIMD as `.long` too: directives, which any
//! assembler takes. What stays a mnemonic is what the assembler must know.

use anyhow::{bail, Result};
use crypto_build::data::Feature;

/// z/Architecture's base (z900) integer, branch and storage instructions, with the extended
/// mnemonics (`jz`, `bzr`) and the extended-immediate facility (z9) perlasm writes, and the
/// base floating-point `lzdr` (load zero, long) with which OpenSSL 3.5's OPENSSL_wipe_cpu
/// clears the FPRs.
#[rustfmt::skip]
const BASE: &[&str] = &[
    "a", "aghi", "ahi", "al", "alc", "alcg", "alcgr", "alcr", "alg", "algr", "alr", "ar", "bcr",
    "bhr", "bler", "blr", "bnzr", "br", "bras", "brasl", "brc", "brct", "brctg", "bzr", "cghi", "cl",
    "clg", "clgr", "clr", "cr", "cs", "csg", "dlgr", "ex", "ic", "icm", "ipm", "j", "je", "jh", "jhe",
    "jl", "jle", "jne", "jnz", "jz", "l", "la", "larl", "lcgr", "ld", "lg", "lgf", "lgfr",
    "lghi", "lgr", "lhi", "llgc", "llgf", "llgfr", "llihh", "llilh", "llill", "lm", "lmg", "lnr", "lzdr",
    "lr", "lrvg", "lrvgr", "lrvr", "ltgfr", "ltgr", "ltr", "mlg", "mlgr", "msgr", "mvc", "n", "ng", "ngr",
    "nihh", "nihl", "nill", "nr", "o", "og", "ogr", "oill", "or", "rll", "rllg", "s", "sla",
    "slbg", "slbgr", "sll", "sllg", "slgr", "slr", "sra", "srag", "srl", "srlg", "st", "stc", "stck",
    "std", "stg", "sth", "stm", "stmg", "strvg", "tm", "tmhh", "tmhl", "tml", "tmll", "x", "xc",
    "xg", "xgr", "xr",
];

/// z10's general-instructions-extension facility (compare and branch, rotate then insert),
/// which keccak1600-s390x writes under `.machine "z10"`.
const Z10: &[&str] = &["cgij", "cgrj", "cij", "cijne", "clgij", "clij", "crj", "risbg"];

/// The vector facility (z13), as far as OpenSSL's s390x.pm knows it.
#[rustfmt::skip]
const VECTOR: &[&str] = &[
    "va", "vaf", "vag", "vaq", "verllf", "vesrlg", "vgbm", "vgmg", "vl", "vlm", "vlr", "vlrepf",
    "vlvgf", "vlvgg", "vmalf", "vmlef", "vmlof", "vmrhf", "vmrhg", "vmrlf", "vmrlg", "vn", "vo",
    "vperm", "vpdi", "vrepf", "vrepg", "vrepig", "vsldb", "vsrlb", "vst", "vstm", "vx", "vzero",
];

/// The message-security assists and their extensions 3-9: CPACF.
const MSA: &[&str] =
    &["kdsa", "kimd", "klmd", "km", "kma", "kmac", "kmc", "kmctr", "kmf", "kmo", "pcc", "prno"];

pub(super) const CLASSES: &[(Option<Feature>, &[&str])] = &[
    (None, BASE),
    (Some(Feature::Z10), Z10),
    (Some(Feature::S390xVector), VECTOR),
    (Some(Feature::S390xMsa), MSA),
];

/// The text of an s390x file as the scan reads it, a line for each line: `//` comments
/// dropped (crypto/bn/asm/s390x.S is hand-written for the C preprocessor), a function-like
/// `#define`'s body read as the instructions it expands to (one per `;`-separated statement,
/// on its own line; a line of several is refused), and the lines invoking such a macro blanked. Every branch of a `#if` is
/// read, which can only add classes.
pub fn preprocessed(text: &str) -> Result<String> {
    let mut macros: Vec<&str> = Vec::new();
    let mut in_body = false;
    let mut out = String::with_capacity(text.len());
    for (n, raw) in (1..).zip(text.lines()) {
        let line = raw.split("//").next().unwrap_or("");
        let continued = line.trim_end().ends_with('\\');
        let line = line.trim_end().trim_end_matches('\\');
        if let Some(def) = line.trim_start().strip_prefix("#define") {
            let name = def.split_whitespace().next().unwrap_or("");
            if let Some((name, _)) = name.split_once('(') {
                macros.push(name);
            }
        } else if in_body {
            let statement = line.trim().trim_end_matches(';');
            if statement.contains(';') {
                bail!("line {n}: a macro body line of several statements: `{raw}`");
            }
            out.push_str(statement);
        } else {
            let word = line.trim_start().split(|c: char| c == '(' || c.is_whitespace()).next();
            if !word.is_some_and(|w| macros.contains(&w) && line.contains('(')) {
                out.push_str(line);
            }
        }
        in_body = continued;
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::generate::scan::{hash_comment_instructions, mnemonic_class, unclassed_mnemonic};

    fn classify(m: &str) -> Option<Feature> {
        mnemonic_class(CLASSES, m).flatten()
    }

    #[test]
    fn classes_each_mnemonic_by_its_facility() {
        assert_eq!(classify("algr"), None);
        assert_eq!(classify("jz"), None);
        assert_eq!(classify("cijne"), Some(Feature::Z10));
        assert_eq!(classify("vperm"), Some(Feature::S390xVector));
        assert_eq!(classify("KMA"), Some(Feature::S390xMsa));
        crate::generate::scan::assert_tables_disjoint(CLASSES);
    }

    #[test]
    fn hand_encoded_words_are_directives_and_an_unknown_mnemonic_is_refused() {
        let text =
            ".machine\t\"z10\"\n.Lx:\tcijne\t%r6,0,.Lx\n\t.word\t0xe700,0x0000,0x0036\t# vlm\n";
        let found: Vec<(usize, &str)> =
            hash_comment_instructions(text).map(|(n, m, _)| (n, m)).collect();
        assert_eq!(found, [(2, "cijne")]);
        assert_eq!(unclassed_mnemonic(CLASSES, text), None);
        let vector = "\tlgr %r1,%r2\n\tvfmadb %v1,%v2,%v3,%v4\n";
        assert_eq!(unclassed_mnemonic(CLASSES, vector), Some((2, "vfmadb %v1,%v2,%v3,%v4")));
    }

    /// crypto/bn/asm/s390x.S's shape: its macro bodies are read, its invocations are not.
    #[test]
    fn reads_a_c_preprocessor_macro_body_once() {
        let text = "// c\n#define zero\t%r0\n#define m(a,c1)\t\\\n\tlg\t%r7,a*8(%r3);\t\\\n\tcijne\tc1,0,1f\n\tm(0,%r1);\tm(1,%r2)\n\talgr\tzero,zero\t// x\n";
        let text = preprocessed(text).unwrap();
        let found: Vec<(usize, &str)> =
            hash_comment_instructions(&text).map(|(n, m, _)| (n, m)).collect();
        assert_eq!(found, [(4, "lg"), (5, "cijne"), (7, "algr")]);
        let two = "#define m(a)\t\\\n\tlg %r7,0(%r3); lg %r8,0(%r3)\n";
        assert!(preprocessed(two).unwrap_err().to_string().contains("line 2"));
    }
}
