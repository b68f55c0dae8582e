//! The C driver's report: what it printed, parsed (`path`, `count`, `FAIL` and `result`
//! lines).

use anyhow::{bail, Context, Result};
use crypto_build::data::{Arch, CapVar};
use std::collections::BTreeMap;

/// Which code paths the driver saw live: its `path` lines.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PathReport {
    /// Whose asm symbols it was built with (`path asm <Arch::name>`, or `path asm none`).
    pub asm: Option<Arch>,
    /// The asm's capability symbol after OPENSSL_init_crypto, so with its variable applied
    /// (`path ia32cap_P 0x… …`, `path armcap_P 0x…`): its name and words. This and the
    /// eligibility answers are `None` without asm.
    pub cap_p: Option<(String, Vec<u32>)>,
    pub vaes_vpclmulqdq_capable: Option<bool>,
    pub rsaz_avx512ifma_eligible: Option<bool>,
    pub rsaz_avxifma_eligible: Option<bool>,
    pub aesni_xts_avx512_eligible: Option<bool>,
    pub aes_cfb128_vaes_eligible: Option<bool>,
    /// For P-224, P-384 and P-521: whether the curve got nistp code, not generic Montgomery.
    pub nistp: BTreeMap<String, bool>,
}

impl PathReport {
    /// The words of an architecture's capability symbol; an error where the driver reported
    /// another symbol, another count of words, or none.
    pub fn cap_words(&self, var: &CapVar) -> Result<&[u32]> {
        match &self.cap_p {
            Some((symbol, words)) if symbol == var.symbol && words.len() == var.words => Ok(words),
            other => bail!(
                "the driver reported {other:?}, not the {} words of {}",
                var.words,
                var.symbol
            ),
        }
    }

    /// What an eligibility function (named as in `data::Eligibility`) answered.
    pub fn eligible(&self, symbol: &str) -> Option<bool> {
        match symbol {
            "ossl_vaes_vpclmulqdq_capable" => self.vaes_vpclmulqdq_capable,
            "ossl_rsaz_avx512ifma_eligible" => self.rsaz_avx512ifma_eligible,
            "ossl_rsaz_avxifma_eligible" => self.rsaz_avxifma_eligible,
            "aesni_xts_avx512_eligible" => self.aesni_xts_avx512_eligible,
            "ossl_aes_cfb128_vaes_eligible" => self.aes_cfb128_vaes_eligible,
            _ => None,
        }
    }
}

/// Everything the driver printed, parsed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Report {
    /// OpenSSL_version(OPENSSL_VERSION_STRING), e.g. `3.6.3`.
    pub openssl: String,
    pub path: PathReport,
    /// Each `count` line: check family -> (field -> value), its `ms=` apart.
    pub counts: BTreeMap<String, BTreeMap<String, u64>>,
    /// The `ms=` field of a `count` line: processor time the family took, in milliseconds
    /// (wall time under wine, whose clock() is Windows').
    pub ms: BTreeMap<String, u64>,
    /// The `FAIL` and `FATAL` lines, verbatim.
    pub failures: Vec<String>,
    /// The last line was `result ok`.
    pub passed: bool,
}

/// Capability words as the driver prints them: `0x%08x`, space-separated.
pub fn hex_words(words: &[u32]) -> String {
    words.iter().map(|w| format!("{w:#010x}")).collect::<Vec<_>>().join(" ")
}

fn flag(v: &str) -> Result<bool> {
    match v {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => bail!("expected 0 or 1, got `{v}`"),
    }
}

fn parse_path(p: &mut PathReport, words: &[&str]) -> Result<()> {
    match words {
        ["asm", "none"] => p.asm = None,
        ["asm", name] => {
            let arch = Arch::ALL.iter().find(|a| a.name() == *name);
            p.asm = Some(*arch.with_context(|| format!("asm of no known architecture: {name}"))?);
        }
        [symbol, words @ ..] if symbol.ends_with("cap_P") && !words.is_empty() => {
            let words = words.iter().map(|w| {
                let digits =
                    w.strip_prefix("0x").with_context(|| format!("{symbol} without 0x"))?;
                u32::from_str_radix(digits, 16).with_context(|| format!("a word of {symbol}"))
            });
            p.cap_p = Some((symbol.to_string(), words.collect::<Result<_>>()?));
        }
        ["vaes_vpclmulqdq_capable", v] => p.vaes_vpclmulqdq_capable = Some(flag(v)?),
        ["rsaz_avx512ifma_eligible", v] => p.rsaz_avx512ifma_eligible = Some(flag(v)?),
        ["rsaz_avxifma_eligible", v] => p.rsaz_avxifma_eligible = Some(flag(v)?),
        ["aesni_xts_avx512_eligible", v] => p.aesni_xts_avx512_eligible = Some(flag(v)?),
        ["ossl_aes_cfb128_vaes_eligible", v] => p.aes_cfb128_vaes_eligible = Some(flag(v)?),
        ["nistp", curve, v] => {
            p.nistp.insert(curve.to_string(), flag(v)?);
        }
        _ => bail!("unknown path line"),
    }
    Ok(())
}

fn parse_count(words: &[&str]) -> Result<(String, BTreeMap<String, u64>)> {
    let (name, fields) = words.split_first().context("a count line without a name")?;
    let mut map = BTreeMap::new();
    for f in fields {
        let (k, v) = f.split_once('=').context("a count field without `=`")?;
        map.insert(k.to_string(), v.parse().with_context(|| format!("count `{f}`"))?);
    }
    Ok((name.to_string(), map))
}

/// Parses the driver's standard output; an error if a line is unknown or `result` is missing.
pub fn parse_report(stdout: &str) -> Result<Report> {
    let mut r = Report::default();
    let mut result = None;
    for line in stdout.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let parsed = match words.as_slice() {
            ["openssl", v] => {
                r.openssl = v.to_string();
                Ok(())
            }
            ["path", rest @ ..] => parse_path(&mut r.path, rest),
            ["count", rest @ ..] => parse_count(rest).and_then(|(k, mut v)| {
                if let Some(ms) = v.remove("ms") {
                    r.ms.insert(k.clone(), ms);
                }
                match r.counts.insert(k, v) {
                    Some(_) => bail!("a second count line for one family"),
                    None => Ok(()),
                }
            }),
            ["FAIL" | "FATAL", ..] => {
                r.failures.push(line.to_string());
                Ok(())
            }
            ["result", "ok"] => {
                result = Some(true);
                Ok(())
            }
            ["result", "FAIL", ..] => {
                result = Some(false);
                Ok(())
            }
            _ => Err(anyhow::anyhow!("unknown line")),
        };
        parsed.with_context(|| format!("driver report line `{line}`"))?;
    }
    r.passed = result.context("the driver printed no `result` line (did it crash?)")?;
    Ok(r)
}

/// The last 20 lines of a program's output.
pub fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

/// A sanitizer's report lines (what went wrong, and its summary), which its stack trace and
/// shadow-memory dump push out of the tail; then the tail.
pub fn diagnostics(stderr: &str) -> String {
    let report = stderr.lines().filter(|l| {
        l.contains("ERROR: AddressSanitizer")
            || l.contains("ERROR: LeakSanitizer")
            || l.contains("runtime error:")
            || l.starts_with("SUMMARY: ")
    });
    let mut out: Vec<String> = report.map(String::from).collect();
    out.push(tail(stderr));
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
openssl 3.6.3
path asm x86_64
path ia32cap_P 0x7ffaf3bf 0x00000000 0xd1ffa7eb 0x00405fce 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000
path vaes_vpclmulqdq_capable 1
path rsaz_avx512ifma_eligible 1
path rsaz_avxifma_eligible 0
path nistp P-224 1
path nistp P-384 1
path nistp P-521 0
count kat_sha2 checked=8 failures=0
count hmac valid=132 invalid=216 acceptable_accepted=0 acceptable_rejected=0 skipped=0 errors=0 failures=1
FAIL hmac: HmacSha256 tcId 7: expected valid, got rejected
result FAIL 1
";

    #[test]
    fn parses_a_report() {
        let r = parse_report(SAMPLE).unwrap();
        assert_eq!(r.openssl, "3.6.3");
        assert_eq!(r.path.asm, Some(Arch::X86_64));
        use crypto_build::data::{ARMCAP, IA32CAP};
        assert_eq!(r.path.cap_words(&IA32CAP).unwrap()[2], 0xd1ff_a7eb);
        let e = r.path.cap_words(&ARMCAP).unwrap_err().to_string();
        assert!(e.contains("not the 1 words of armcap_P"), "{e}");
        assert_eq!(r.path.vaes_vpclmulqdq_capable, Some(true));
        assert_eq!(r.path.rsaz_avxifma_eligible, Some(false));
        assert_eq!(r.path.nistp.get("P-521"), Some(&false));
        assert_eq!(r.counts["hmac"]["invalid"], 216);
        assert_eq!(r.failures, ["FAIL hmac: HmacSha256 tcId 7: expected valid, got rejected"]);
        assert!(!r.passed);
    }

    /// What an asm build printed under qemu's `max` CPU.
    #[test]
    fn parses_an_aarch64_report() {
        let aarch64 = "openssl 3.6.3\npath asm aarch64\npath armcap_P 0x00006ffd\n\
                       path nistp P-224 1\nresult ok\n";
        let r = parse_report(aarch64).unwrap();
        assert_eq!(r.path.asm, Some(Arch::Aarch64));
        use crypto_build::data::{ARMCAP, IA32CAP};
        assert_eq!(r.path.cap_words(&ARMCAP).unwrap(), [0x6ffd]);
        assert!(r.path.cap_words(&IA32CAP).is_err());
        assert!(r.passed);
        let none = parse_report("path asm none\nresult ok\n").unwrap();
        assert_eq!((none.path.asm, none.path.cap_p), (None, None));
        let e = format!("{:#}", parse_report("path armcap_P 6ffd\nresult ok\n").unwrap_err());
        assert!(e.contains("armcap_P without 0x"), "{e}");
    }

    /// `ms=` is kept apart from the counts; a family counted twice is refused.
    #[test]
    fn keeps_times_apart_and_refuses_a_repeated_count() {
        let r = parse_report("count digests checked=10 failures=0 ms=42\nresult ok\n").unwrap();
        assert_eq!(r.counts["digests"].keys().collect::<Vec<_>>(), ["checked", "failures"]);
        assert_eq!(r.ms["digests"], 42);
        let twice = "count kat_aes checked=6 failures=0\ncount kat_aes checked=6 failures=0\n";
        let e = format!("{:#}", parse_report(&format!("{twice}result ok\n")).unwrap_err());
        assert!(e.contains("a second count line"), "{e}");
        let e = format!("{:#}", parse_report("count hmac ms=fast\nresult ok\n").unwrap_err());
        assert!(e.contains("count `ms=fast`"), "{e}");
    }

    #[test]
    fn refuses_a_truncated_or_unknown_report() {
        let truncated = SAMPLE.replace("result FAIL 1\n", "");
        let e = parse_report(&truncated).unwrap_err().to_string();
        assert!(e.contains("no `result` line"), "{e}");
        let e = format!("{:#}", parse_report("path vaes 2\nresult ok\n").unwrap_err());
        assert!(e.contains("path vaes 2"), "{e}");
    }
}
