//! The committed reports of `cargo xtask update-openssl` (docs/openssl-updates/) say what
//! OpenSSL's own sources say, and read as the tool writes them: a summary first, long lists
//! folded. Each fact below was checked by hand in the releases' trees as cargo unpacks them
//! (`~/.cargo/registry/src/*/openssl-src-<crate>/openssl/`). These read the reports only;
//! the compare and report code itself runs on fixtures in `update_openssl/tests.rs`.

use serde_json::Value;
use std::fs;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/openssl-updates")
}

fn report(name: &str) -> Value {
    let text = fs::read_to_string(dir().join(format!("{name}.json"))).expect("a committed report");
    let markdown = dir().join(format!("{name}.md"));
    assert!(markdown.exists(), "{} is committed beside its JSON", markdown.display());
    serde_json::from_str(&text).expect("the report's JSON")
}

fn find<'a>(list: &'a Value, field: &str, value: &str) -> &'a Value {
    let list = list.as_array().expect("a list");
    let found = list.iter().find(|v| v[field] == value);
    found.unwrap_or_else(|| panic!("no {field} {value}"))
}

fn set<'a>(r: &'a Value, key: &str) -> &'a Value {
    find(&r["sets"], "key", key)
}

/// The change of `path` in a set's asm (`None`: the same in both releases).
fn change<'a>(set: &'a Value, path: &str) -> Option<&'a str> {
    let files = set["files"].as_array().unwrap();
    files.iter().find(|f| f["path"] == path).map(|f| f["change"].as_str().unwrap())
}

fn entry_points(set: &Value, which: &str) -> Vec<String> {
    let list = set["entry_points"][which].as_array().unwrap();
    list.iter().map(|e| e["symbol"].as_str().unwrap().to_string()).collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

fn findings<'a>(r: &'a Value, check: &str) -> Vec<&'a Value> {
    r["findings"].as_array().unwrap().iter().filter(|f| f["check"] == check).collect()
}

/// The summary line that contains `piece`.
fn said<'a>(r: &'a Value, piece: &str) -> &'a str {
    let lines = r["summary"].as_array().unwrap().iter().map(|l| l.as_str().unwrap());
    let mut found = lines.filter(|l| l.contains(piece));
    found
        .next()
        .unwrap_or_else(|| panic!("`{piece}` in no line of the summary:\n{:#}", r["summary"]))
}

/// Both reports compare every configuration of every target row, 3.6.3 generated in scratch
/// space from openssl-src 300.6.1 (`--from`), so they can be made again whatever the pin.
#[test]
fn both_reports_are_whole() {
    for name in ["3.6.3-to-3.5.5", "3.6.3-to-4.0.3"] {
        let r = report(name);
        assert_eq!(r["old_source"]["crate"]["crate_version"], "300.6.1+3.6.3", "{name}");
        assert_eq!(r["old_pinned"], false, "{name}");
        assert!(r["limited_to"].as_array().unwrap().is_empty(), "{name}: every target");
        let targets: Vec<&str> =
            r["sets"].as_array().unwrap().iter().map(|s| s["target"].as_str().unwrap()).collect();
        for t in [
            "linux-x86_64",
            "mingw64",
            "VC-WIN64A",
            "linux-aarch64",
            "linux-ppc64le",
            "linux64-s390x",
            "linux64-riscv64",
            "darwin64-arm64-cc",
            "darwin64-x86_64-cc",
        ] {
            assert!(targets.contains(&t), "{name} has no {t} row");
        }
        let md = fs::read_to_string(dir().join(format!("{name}.md"))).unwrap();
        assert!(md.find("## Summary").unwrap() < md.find("## Asm files").unwrap(), "{name}");
        let longest = md.lines().map(str::len).max().unwrap();
        assert!(longest < 1000, "{name}: a line of {longest} characters");
        assert!(!md.contains("Changed (by hash)"), "{name}: each changed file says what changed");
    }
}

#[test]
fn from_3_6_3_back_to_the_3_5_5_lts() {
    let r = report("3.6.3-to-3.5.5");
    assert_eq!((r["from"].as_str(), r["to"].as_str()), (Some("3.6.3"), Some("3.5.5")));
    assert_eq!(r["new_source"]["crate"]["crate_version"], "300.5.5+3.5.5");
    let x86 = set(&r, "asm/linux-x86_64");
    // crypto/aes/asm/aes-cfb-avx512.pl is in 3.6.3's tree, not in 3.5.5's.
    assert_eq!(change(x86, "crypto/aes/aes-cfb-avx512.s"), Some("removed"));
    assert!(entry_points(x86, "removed").contains(&"ossl_aes_cfb128_vaes_eligible".into()));
    // So data::ELIGIBILITIES names a function 3.5.5 lacks: a finding, in each x86_64
    // target's every rendering, which the summary says first.
    let eligibility = findings(&r, "eligibility");
    assert!(eligibility.iter().any(|f| f["config"] == "asm/linux-x86_64"
        && f["file"] == "crypto/aes/aes-cfb-avx512.s"
        && f["message"].as_str().unwrap().contains("ossl_aes_cfb128_vaes_eligible")));
    assert!(eligibility.iter().any(|f| f["file"] == "crypto/aes/aes-cfb-avx512.asm"));
    assert!(
        r["summary"][0].as_str().unwrap().contains("so the command fails"),
        "{:#}",
        r["summary"]
    );
    // 3.6.3's crypto/sm4/build.info has `$SM4DEF_x86_64=SM4_ASM`, 3.5.5's has none (and
    // crypto/sm4/asm/sm4-x86_64.pl and crypto/sm3/asm/sm3-x86_64.pl are 3.6's).
    assert_eq!(change(x86, "crypto/sm4/sm4-x86_64.S"), Some("removed"));
    assert_eq!(change(x86, "crypto/sm3/sm3-x86_64.S"), Some("removed"));
    let defines = &find(&r["configs"], "key", "asm/linux-x86_64")["defines"];
    assert!(strings(&defines["removed"]).contains(&"-DSM4_ASM".into()));
    // 3.5.5's crypto/x86_64cpuid.pl defines OPENSSL_wipe_cpu; 3.6.3's never names it.
    assert_eq!(entry_points(x86, "added"), ["OPENSSL_wipe_cpu"]);
    said(&r, "`crypto/x86_64cpuid.s` gains entry point `OPENSSL_wipe_cpu`");
    // crypto/aes/asm/aes-sha256-armv8.pl (AES-CBC stitched with HMAC-SHA256) is 3.6's.
    let arm = set(&r, "asm/linux-aarch64");
    assert_eq!(change(arm, "crypto/aes/aes-sha256-armv8.S"), Some("removed"));
    assert!(entry_points(arm, "removed").contains(&"asm_aescbc_sha256_hmac".into()));
    said(&r, "`crypto/aes/aes-sha256-armv8.S` removed");
    // include/internal/param_names.h.in is in 3.5.5's tree only.
    let headers = &find(&r["configs"], "key", "no_asm/linux-x86_64")["headers"];
    assert!(strings(&headers["added"]).contains(&"include/internal/param_names.h".into()));
    // 3.5.5's crypto/s390xcpuid.pl still has OPENSSL_wipe_cpu, which zeroes the FP registers
    // with `lzdr` (3.6.3's has neither): a mnemonic scan/s390x.rs has no class for, so
    // asm/linux64-s390x is not generated, a finding with its file and line.
    let scan = findings(&r, "scan");
    assert_eq!(scan.len(), 1, "{scan:#?}");
    assert_eq!(
        (&scan[0]["config"], &scan[0]["file"]),
        (&"asm/linux64-s390x".into(), &"crypto/s390xcpuid.S".into())
    );
    assert!(scan[0]["message"].as_str().unwrap().contains("`lzdr\t%f0`"), "{:#}", scan[0]);
    said(&r, "linux64-s390x: not generated on 3.5.5 (see Findings).");
    // Every other configuration generated, no class moved, the same GNU as for `asm`.
    let sets = r["sets"].as_array().unwrap();
    assert!(sets.iter().all(|s| s["generated"] == (s["key"] != "asm/linux64-s390x")));
    let mut generated = sets.iter().filter(|s| s["generated"] == true);
    assert!(generated.all(|s| s["classes"]["old"] == s["classes"]["new"]));
    let gas = find(&x86["assemblers"], "kind", "gas");
    assert_eq!(
        (gas["old"]["min"].as_str(), gas["new"]["min"].as_str()),
        (Some("2.40"), Some("2.40"))
    );
    said(&r, "Oldest assembler per set: unchanged on every target.");
    assert!(r["variants"].as_array().unwrap().iter().all(|v| v["accepted"] == true));
}

#[test]
fn from_3_6_3_to_4_0_3() {
    let r = report("3.6.3-to-4.0.3");
    assert_eq!((r["from"].as_str(), r["to"].as_str()), (Some("3.6.3"), Some("4.0.3")));
    said(&r, "No finding: every configuration generated");
    let x86 = set(&r, "asm/linux-x86_64");
    // 4.0 removed the engines: engines/asm/e_padlock-x86_64.pl is in 3.6.3's tree only.
    assert_eq!(change(x86, "engines/e_padlock-x86_64.s"), Some("removed"));
    assert!(entry_points(x86, "removed").contains(&"padlock_xstore".into()));
    let padlock = said(&r, "`engines/e_padlock-x86_64.{s,asm}` removed (16 entry points");
    assert!(padlock.starts_with("linux-x86_64, mingw64, VC-WIN64A and darwin64-x86_64-cc: "));
    let defines = &find(&r["configs"], "key", "asm/linux-x86_64")["defines"];
    assert!(strings(&defines["removed"]).contains(&"-DPADLOCK_ASM".into()));
    // 4.0.3's crypto/poly1305/build.info: `$POLY1305ASM_aarch64=poly1305-armv8.S
    // poly1305-armv9-sve2.S`. Its .pl encodes the SVE2 instructions as `.inst` words
    // (sve_pred, sve_unpred), so the file is NEON to the assembler.
    let arm = set(&r, "asm/linux-aarch64");
    assert_eq!(change(arm, "crypto/poly1305/poly1305-armv9-sve2.S"), Some("added"));
    let file = find(&arm["files"], "path", "crypto/poly1305/poly1305-armv9-sve2.S");
    assert_eq!(strings(&file["classes"]["new"]), ["neon"]);
    assert!(file["text"]["inst_words"]["new"].as_u64().unwrap() > 0, "{file:#}");
    let sve2 = said(&r, "`crypto/poly1305/poly1305-armv9-sve2.S` added (1 entry point: `poly1305_blocks_sve2`; classes: neon;");
    assert!(sve2.starts_with("linux-aarch64 and darwin64-arm64-cc: "), "{sve2}");
    // arm-xlate.pl writes them as `.long` on Mach-O: the count is Linux's. 4.0.3's
    // poly1305-armv9-sve2.pl: 322 `.inst` lines in the linux64 flavour's output.
    let inst = "322 of its instructions written as `.inst` words on linux-aarch64, which any \
                assembler takes";
    assert!(sve2.contains(inst), "{sve2}");
    // 4.0.3's crypto/ec/build.info: `$ECASM_riscv64=ecp_sm2p256.c ecp_sm2p256-riscv64.S`;
    // 3.6.3's has no riscv64 line and no asm/ecp_sm2p256-riscv64.pl. Its `//` comments and
    // `negw`/`zext.w` are read as the base ISA: no class.
    let riscv = set(&r, "asm/linux64-riscv64");
    assert_eq!(change(riscv, "crypto/ec/ecp_sm2p256-riscv64.S"), Some("added"));
    let file = find(&riscv["files"], "path", "crypto/ec/ecp_sm2p256-riscv64.S");
    assert!(strings(&file["classes"]["new"]).is_empty(), "{file:#}");
    assert!(entry_points(riscv, "added").contains(&"ecp_sm2p256_mul".into()));
    let sm2 = said(&r, "`crypto/ec/ecp_sm2p256-riscv64.S` added (10 entry points: ");
    assert!(
        sm2.starts_with("linux64-riscv64: ") && sm2.contains("no class an assembler may lack"),
        "{sm2}"
    );
    // ppc64le and s390x: the same 21 and 13 asm files in both releases.
    for (key, same) in [("asm/linux-ppc64le", 21), ("asm/linux64-s390x", 13)] {
        let s = set(&r, key);
        assert!(s["files"].as_array().unwrap().is_empty(), "{key}: {s:#}");
        assert_eq!(s["unchanged"].as_u64(), Some(same), "{key}");
    }
    said(&r, "linux-ppc64le's 21 and linux64-s390x's 13 asm files are unchanged.");
    // crypto/arm64cpuid.pl: `_armv8_sve_get_vl_bytes` is 4.0.3's.
    let added = entry_points(arm, "added");
    assert!(added.contains(&"poly1305_blocks_sve2".into()), "{added:?}");
    assert!(added.contains(&"_armv8_sve_get_vl_bytes".into()), "{added:?}");
    said(&r, "`crypto/arm64cpuid.S` gains entry point `_armv8_sve_get_vl_bytes`");
    // 4.0.3's crypto/aes/asm/aes-cfb-avx512.pl also asks `$CC -dM -E` for __clang_major__
    // (>= 11 takes the AVX-512 code) when the banners enabled nothing: the faked
    // darwin64-x86_64-cc compiler answers asm_avx2's 10, so it stays free of AVX-512, as
    // every 3.6.3 set is.
    assert!(r["findings"].as_array().unwrap().is_empty(), "{:#}", r["findings"]);
    let darwin = set(&r, "asm_avx2/darwin64-x86_64-cc");
    assert_eq!(darwin["generated"], true);
    assert_eq!(darwin["classes"]["old"], darwin["classes"]["new"]);
    assert!(!strings(&darwin["classes"]["new"]).contains(&"avx512".into()));
    assert_eq!(change(darwin, "crypto/aes/aes-cfb-avx512.s"), None);
    said(&r, "Oldest assembler per set: unchanged on every target.");
    // 4.0.3's Configure has `"ssl3" => undef` in %deprecated_disablables, so
    // data::CONFIGURE_COMMON gives it no `no-ssl3`, and ssl3 is no longer in %disabled.
    let disabled = &find(&r["configs"], "key", "asm/linux-x86_64")["disabled"];
    let no_longer = disabled["removed"].as_array().unwrap();
    assert!(no_longer.iter().any(|d| d["feature"] == "ssl3"), "{disabled:#}");
    // ... and its %disabled turns `engine` off by default (Configure, `"engine" => "default"`).
    assert!(disabled["added"].as_array().unwrap().iter().any(|d| d["feature"] == "engine"));
    said(&r, "Configure, on every configuration: ");
}

fn lib<'a>(r: &'a Value, name: &str) -> &'a Value {
    find(&r["api"]["libs"], "lib", name)
}

fn removed<'a>(lib: &'a Value, name: &str) -> &'a Value {
    find(&lib["removed"], "name", name)
}

/// Counted by hand: the distinct names of util/lib{crypto,ssl}.num's `EXIST` lines of each
/// tree (`awk '$4 ~ /^EXIST:/ {print $1}' | sort -u`), compared with `comm`.
#[test]
fn the_public_api_from_3_6_3_to_4_0_3() {
    let r = report("3.6.3-to-4.0.3");
    assert_eq!(r["api"]["openssl_sys"], "0.9.118");
    assert_eq!(r["api"]["built_in"], "asm/linux-x86_64");
    let crypto = lib(&r, "libcrypto");
    assert_eq!((crypto["old"].as_u64(), crypto["new"].as_u64()), (Some(5941), Some(5717)));
    assert_eq!(crypto["removed"].as_array().unwrap().len(), 257);
    assert_eq!(crypto["added"].as_array().unwrap().len(), 33);
    // 3.6.3: `ENGINE_by_id 2934 3_0_0 EXIST::FUNCTION:DEPRECATEDIN_3_0,ENGINE`, built (its
    // Configure leaves engine on); 4.0.3 has no such line. EVP_MD_meth_new likewise.
    let engine = removed(crypto, "ENGINE_by_id");
    assert_eq!(strings(&engine["features"]), ["DEPRECATEDIN_3_0", "ENGINE"]);
    assert_eq!((&engine["built"], &engine["prefix"]), (&Value::Bool(true), &"ENGINE".into()));
    assert_eq!(removed(crypto, "EVP_MD_meth_new")["built"], true);
    // `ENGINE_setup_bsd_cryptodev ... EXIST:__FreeBSD__:FUNCTION:...`: FreeBSD's alone.
    let bsd = removed(crypto, "ENGINE_setup_bsd_cryptodev");
    assert_eq!((&bsd["platforms"], &bsd["built"]), (&"__FreeBSD__".into(), &Value::Bool(false)));
    let built = crypto["removed"].as_array().unwrap().iter().filter(|f| f["built"] == true);
    assert_eq!(built.count(), 256);
    // 4.0.3: `X509_check_certificate_times 4403 4_0_0 EXIST::FUNCTION:`, not in 3.6.3.
    assert!(strings(&crypto["added"]).contains(&"X509_check_certificate_times".into()));
    // openssl-sys 0.9.118 declares one of them, ASN1_STRING_data, and only for LibreSSL
    // (src/handwritten/asn1.rs: `#[cfg(all(libressl, not(libressl430)))]`).
    let bound: Vec<&Value> = crypto["removed"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| !f["openssl_sys"].is_null())
        .collect();
    assert_eq!(bound.len(), 1);
    assert_eq!(bound[0]["name"], "ASN1_STRING_data");
    assert_eq!(bound[0]["openssl_sys"], "#[cfg(all(libressl, not(libressl430)))]");
    let ssl = lib(&r, "libssl");
    assert_eq!((ssl["old"].as_u64(), ssl["new"].as_u64()), (Some(607), Some(628)));
    assert_eq!(ssl["removed"].as_array().unwrap().len(), 19);
    assert_eq!(ssl["added"].as_array().unwrap().len(), 40);
    // `TLSv1_method ... DEPRECATEDIN_1_1_0,TLS1_METHOD` is built in 3.6.3;
    // `SSLv3_method ... DEPRECATEDIN_1_1_0,SSL3_METHOD` is not (`"ssl3-method" => "default"`).
    assert_eq!(removed(ssl, "TLSv1_method")["built"], true);
    assert_eq!(removed(ssl, "SSLv3_method")["built"], false);
    // 4.0.3's libssl.num: `OSSL_ECHSTORE_new 600 4_0_0 EXIST::FUNCTION:ECH`.
    assert!(strings(&ssl["added"]).contains(&"OSSL_ECHSTORE_new".into()));
    said(&r, "Public API: libcrypto loses 257 functions (256 built in 3.6.3; ENGINE 122, EVP 120, ERR 4, …) and gains 33; libssl loses 19 functions (16 built in 3.6.3; TLSv1 9, DTLSv1 6, SSLv3 3, …) and gains 40; openssl-sys 0.9.118 declares `ASN1_STRING_data`");
}

/// 3.5.5 lacks the 23 libcrypto functions 3.6.3's libcrypto.num dates `3_6_0` (among them
/// CRYPTO_calloc, EVP_PKEY_get_security_category), and adds none; libssl is the same.
#[test]
fn the_public_api_from_3_6_3_back_to_3_5_5() {
    let r = report("3.6.3-to-3.5.5");
    let crypto = lib(&r, "libcrypto");
    assert_eq!(crypto["removed"].as_array().unwrap().len(), 23);
    assert!(crypto["added"].as_array().unwrap().is_empty());
    assert_eq!(removed(crypto, "CRYPTO_calloc")["built"], true);
    removed(crypto, "EVP_PKEY_get_security_category");
    let ssl = lib(&r, "libssl");
    assert!(ssl["removed"].as_array().unwrap().is_empty());
    assert!(ssl["added"].as_array().unwrap().is_empty());
    said(&r, "libcrypto loses 23 functions");
    said(&r, "libssl is the same");
}

/// The Markdown says the same: the summary, then the asm, the API table, long lists folded.
#[test]
fn the_markdown_leads_with_the_summary_and_folds_long_lists() {
    let md = fs::read_to_string(dir().join("3.6.3-to-4.0.3.md")).unwrap();
    assert!(md.contains("## Summary\n\n- No finding:"), "no finding, said first");
    assert!(!md.contains("## Findings"));
    let api = md.find("## Public API").expect("an API section");
    assert!(md.contains("| libcrypto | 5941 | 5717 | 33 | 257 | 256 | 1 |"));
    assert!(md.contains("| libssl | 607 | 628 | 40 | 19 | 16 | 0 |"));
    assert!(api < md.find("### libcrypto").unwrap());
    assert!(md.contains("<details><summary>the 257 removed, by prefix"));
    assert!(md.contains("`ENGINE_by_id`"));
    assert!(md.contains(
        "| `crypto/poly1305/poly1305-armv9-sve2.S` | added | `poly1305_blocks_sve2` | neon; "
    ));
    // The oldest assembler is the same on every row: one line, the table folded.
    assert!(md.contains("Unchanged on every target: the same for all "));
    let md = fs::read_to_string(dir().join("3.6.3-to-3.5.5.md")).unwrap();
    assert!(md.contains("## Findings"));
    assert!(md.find("## Summary").unwrap() < md.find("## Findings").unwrap());
}
