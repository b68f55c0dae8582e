//! What a source crate leaves out of OpenSSL's release tree, and why: nothing a build reads.
//! The registry's openssl-src crates leave out the same (their trees pass through unchanged),
//! so that a crate made from a release tarball and one made from openssl-src hold the same
//! files for one release.

/// A part of the release's tree that no build reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// A directory, whole but for its `build.info` files: Configure reads every one it is
    /// pointed to, even in directories no enabled part builds.
    Tree(&'static str),
    /// A file, or a directory whole, at this path.
    Path(&'static str),
    /// Files of this kind anywhere (a `build.info` is never one).
    Ext(&'static str),
    /// Files of this kind under `dir`, but the named ones.
    ExtUnder { dir: &'static str, ext: &'static str, but: &'static [&'static str] },
}

/// A rule and the reason no build reads what it leaves out.
#[derive(Debug, Clone, Copy)]
pub struct Trim {
    pub rule: Rule,
    pub why: &'static str,
}

const TESTS: &str =
    "tests, demos, documentation and fuzzers: no library or program is made from them";
const SUBMODULES: &str =
    "other projects' test suites, which OpenSSL's repository holds as submodules";
const REPOSITORY: &str = "the repository's own files";
const KINDS: &str = "kinds of file no build reads: prose, shell scripts (the build's own are \
                     `.sh.in` templates), test keys and certificates, config files (a prefix \
                     gets crypto-sys's own openssl.cnf), diagrams";
const MAINTAINERS: &str = "maintainers' scripts and data (error tables, doc and format checks, \
                           symbol lists); the scripts a build's recipes run stay";
const FIPS: &str = "the FIPS module's validation data (its sources' checksums, for OpenSSL's \
                    own `make update`): a build of the module reads none of it";
const TABLES: &str = "the inputs of tables the tree holds made (`make update`, never a build)";
const OTHER: &str =
    "VMS's build file, a demo's data, the bundled Text::Template's distribution files";

/// The scripts under `util/` that a build's recipes run.
const BUILD_SCRIPTS: &[&str] = &[
    "add-depends.pl",
    "copy.pl",
    "dofile.pl",
    "echo.pl",
    "mkbuildinf.pl",
    "mkdir-p.pl",
    "mkinstallvars.pl",
    "mkrc.pl",
];

/// Every rule. A file is kept unless one of them leaves it out.
#[rustfmt::skip]
pub const TRIM: &[Trim] = &[
    Trim { rule: Rule::Tree("test"), why: TESTS },
    Trim { rule: Rule::Tree("demos"), why: TESTS },
    Trim { rule: Rule::Tree("doc"), why: TESTS },
    Trim { rule: Rule::Tree("fuzz"), why: TESTS },
    Trim { rule: Rule::Tree("dev"), why: TESTS },
    Trim { rule: Rule::Path("boringssl"), why: SUBMODULES },
    Trim { rule: Rule::Path("cloudflare-quiche"), why: SUBMODULES },
    Trim { rule: Rule::Path("gost-engine"), why: SUBMODULES },
    Trim { rule: Rule::Path("krb5"), why: SUBMODULES },
    Trim { rule: Rule::Path("oqs-provider"), why: SUBMODULES },
    Trim { rule: Rule::Path("pkcs11-provider"), why: SUBMODULES },
    Trim { rule: Rule::Path("pyca-cryptography"), why: SUBMODULES },
    Trim { rule: Rule::Path("python-ecdsa"), why: SUBMODULES },
    Trim { rule: Rule::Path("tlsfuzzer"), why: SUBMODULES },
    Trim { rule: Rule::Path("tlslite-ng"), why: SUBMODULES },
    Trim { rule: Rule::Path("wycheproof"), why: SUBMODULES },
    Trim { rule: Rule::Path(".github"), why: REPOSITORY },
    Trim { rule: Rule::Path(".ctags.d"), why: REPOSITORY },
    Trim { rule: Rule::Path(".git-blame-ignore-revs"), why: REPOSITORY },
    Trim { rule: Rule::Path(".gitattributes"), why: REPOSITORY },
    Trim { rule: Rule::Path(".gitignore"), why: REPOSITORY },
    Trim { rule: Rule::Path(".gitmodules"), why: REPOSITORY },
    Trim { rule: Rule::Path("funding.json"), why: REPOSITORY },
    Trim { rule: Rule::Ext("md"), why: KINDS },
    Trim { rule: Rule::Ext("sh"), why: KINDS },
    Trim { rule: Rule::Ext("pem"), why: KINDS },
    Trim { rule: Rule::Ext("srl"), why: KINDS },
    Trim { rule: Rule::Ext("crt"), why: KINDS },
    Trim { rule: Rule::Ext("cnf"), why: KINDS },
    Trim { rule: Rule::Ext("plantuml"), why: KINDS },
    Trim { rule: Rule::ExtUnder { dir: "util", ext: "pl", but: BUILD_SCRIPTS }, why: MAINTAINERS },
    Trim { rule: Rule::ExtUnder { dir: "util", ext: "txt", but: &[] }, why: MAINTAINERS },
    Trim { rule: Rule::ExtUnder { dir: "util", ext: "sed", but: &[] }, why: MAINTAINERS },
    Trim { rule: Rule::ExtUnder { dir: "util", ext: "rb", but: &[] }, why: MAINTAINERS },
    Trim { rule: Rule::ExtUnder { dir: "util", ext: "syms", but: &[] }, why: MAINTAINERS },
    Trim { rule: Rule::Path("util/check-format-test-negatives.c"), why: MAINTAINERS },
    Trim { rule: Rule::Path("util/check-format-test-positives.c"), why: MAINTAINERS },
    Trim { rule: Rule::Path("util/check-malloc-errs"), why: MAINTAINERS },
    Trim { rule: Rule::Path("util/err-to-raise"), why: MAINTAINERS },
    Trim { rule: Rule::Path("util/find-doc-nits"), why: MAINTAINERS },
    Trim { rule: Rule::Path("util/find-unused-errs"), why: MAINTAINERS },
    Trim { rule: Rule::Path("util/fix-deprecation"), why: MAINTAINERS },
    Trim { rule: Rule::Path("util/fix-includes"), why: MAINTAINERS },
    Trim { rule: Rule::Path("util/indent.pro"), why: MAINTAINERS },
    Trim { rule: Rule::Path("util/merge-err-lines"), why: MAINTAINERS },
    Trim { rule: Rule::Path("util/platform_symbols"), why: MAINTAINERS },
    Trim { rule: Rule::Path("util/providers.num"), why: MAINTAINERS },
    Trim { rule: Rule::Path("util/write-man-symlinks"), why: MAINTAINERS },
    Trim { rule: Rule::Path("util/perl/OpenSSL/Test"), why: MAINTAINERS },
    Trim { rule: Rule::Path("util/perl/TLSProxy"), why: MAINTAINERS },
    Trim { rule: Rule::Path("util/perl/checkhandshake.pm"), why: MAINTAINERS },
    Trim { rule: Rule::Path("providers/fips-sources.checksums"), why: FIPS },
    Trim { rule: Rule::Path("providers/fips.checksum"), why: FIPS },
    Trim { rule: Rule::Path("providers/fips.module.sources"), why: FIPS },
    Trim { rule: Rule::Path("crypto/err/openssl.txt"), why: TABLES },
    Trim { rule: Rule::Path("crypto/objects/obj_xref.txt"), why: TABLES },
    Trim { rule: Rule::Path("crypto/objects/objects.txt"), why: TABLES },
    Trim { rule: Rule::Path("engines/e_afalg.txt"), why: TABLES },
    Trim { rule: Rule::Path("engines/e_capi.txt"), why: TABLES },
    Trim { rule: Rule::Path("engines/e_dasync.txt"), why: TABLES },
    Trim { rule: Rule::Path("engines/e_loader_attic.txt"), why: TABLES },
    Trim { rule: Rule::Path("engines/e_ossltest.txt"), why: TABLES },
    Trim { rule: Rule::Path("Configurations/descrip.mms.tmpl"), why: OTHER },
    Trim { rule: Rule::Path("apps/demoSRP/srp_verifier.txt"), why: OTHER },
    Trim { rule: Rule::Path("apps/demoSRP/srp_verifier.txt.attr"), why: OTHER },
    Trim { rule: Rule::Path("external/perl/Downloaded.txt"), why: OTHER },
    Trim { rule: Rule::Path("external/perl/Text-Template-1.56/Changes"), why: OTHER },
    Trim { rule: Rule::Path("external/perl/Text-Template-1.56/INSTALL"), why: OTHER },
    Trim { rule: Rule::Path("external/perl/Text-Template-1.56/MANIFEST"), why: OTHER },
    Trim { rule: Rule::Path("external/perl/Text-Template-1.56/META.json"), why: OTHER },
    Trim { rule: Rule::Path("external/perl/Text-Template-1.56/META.yml"), why: OTHER },
    Trim { rule: Rule::Path("external/perl/Text-Template-1.56/Makefile.PL"), why: OTHER },
    Trim { rule: Rule::Path("external/perl/Text-Template-1.56/README"), why: OTHER },
    Trim { rule: Rule::Path("external/perl/Text-Template-1.56/SIGNATURE"), why: OTHER },
];

/// Whether a source crate keeps the file at `rel` (relative to the release's top directory,
/// `/`-separated).
pub fn keeps(rel: &str) -> bool {
    !TRIM.iter().any(|t| t.rule.leaves_out(rel))
}

/// Whether no file under the directory `rel` can be kept: a directory a copy need not enter.
pub fn leaves_out_dir(rel: &str) -> bool {
    TRIM.iter().any(|t| matches!(t.rule, Rule::Path(p) if p == rel))
}

/// [`keeps`] for a file, [`leaves_out_dir`] for a directory: the trim as a walk's filter.
pub fn keeps_entry(rel: &str, is_dir: bool) -> bool {
    match is_dir {
        true => !leaves_out_dir(rel),
        false => keeps(rel),
    }
}

impl Rule {
    fn leaves_out(&self, rel: &str) -> bool {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let ext = name.rsplit_once('.').map(|(_, e)| e);
        match *self {
            Rule::Tree(dir) => under(rel, dir) && name != "build.info",
            Rule::Path(p) => rel == p || under(rel, p),
            Rule::Ext(e) => ext == Some(e) && name != "build.info",
            Rule::ExtUnder { dir, ext: e, but } => {
                under(rel, dir)
                    && ext == Some(e)
                    && !but.iter().any(|b| rel == format!("{dir}/{b}"))
            }
        }
    }
}

/// Whether `rel` lies below the directory `dir`.
fn under(rel: &str, dir: &str) -> bool {
    rel.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A release tarball's files the trim leaves out, and its files a build reads, kept.
    #[test]
    fn the_trim_leaves_out_what_no_build_reads() {
        let out = [
            "test/recipes/01-test_abort.t",
            "test/certs/root-cert.pem",
            "doc/man1/openssl.pod",
            "fuzz/corpora/asn1/0a1b",
            "demos/bio/saccept.c",
            "wycheproof/testvectors/aes_gcm_test.json",
            ".github/workflows/ci.yml",
            ".gitignore",
            "README.md",
            "crypto/aes/README.md",
            "util/find-doc-nits",
            "util/mkerr.pl",
            "util/perl/TLSProxy/Proxy.pm",
            "util/perl/OpenSSL/Test/Utils.pm",
            "util/other.syms",
            "apps/openssl.cnf",
            "providers/fips.checksum",
            "crypto/objects/objects.txt",
            "Configurations/descrip.mms.tmpl",
        ];
        for rel in out {
            assert!(!keeps(rel), "{rel} kept");
        }
        let kept = [
            "Configure",
            "VERSION.dat",
            "build.info",
            "test/build.info",
            "doc/build.info",
            "crypto/aes/aes_core.c",
            "crypto/aes/asm/aesni-x86_64.pl",
            "include/openssl/opensslv.h.in",
            "util/dofile.pl",
            "util/mkbuildinf.pl",
            "util/libcrypto.num",
            "util/perl/OpenSSL/Util.pm",
            "util/shlib_wrap.sh.in",
            "Configurations/unix-Makefile.tmpl",
            "providers/common/der/der_rsa_gen.c.in",
            "testing.c",
            "doctor/x.c",
        ];
        for rel in kept {
            assert!(keeps(rel), "{rel} left out");
        }
        assert!(leaves_out_dir("wycheproof") && !leaves_out_dir("test") && !leaves_out_dir("util"));
    }

    /// Every rule has its reason, and leaves out what it names.
    #[test]
    fn every_rule_is_explained() {
        for t in TRIM {
            assert!(!t.why.is_empty(), "{:?}", t.rule);
        }
        assert_eq!(TRIM.iter().filter(|t| matches!(t.rule, Rule::Tree(_))).count(), 5);
    }
}
