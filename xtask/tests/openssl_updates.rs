//! The committed reports of `cargo xtask update-openssl` (docs/openssl-updates/) say what
//! OpenSSL's own sources say. Each fact below was checked by hand in the releases' trees as
//! cargo unpacks them (`~/.cargo/registry/src/*/openssl-src-<crate>/openssl/`); the test
//! reads only the reports, never regenerates.

use serde_json::Value;
use std::fs;
use std::path::PathBuf;

fn report(name: &str) -> Value {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/openssl-updates");
    let text = fs::read_to_string(dir.join(format!("{name}.json"))).expect("a committed report");
    let markdown = dir.join(format!("{name}.md"));
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

#[test]
fn from_3_6_3_back_to_the_3_5_5_lts() {
    let r = report("3.6.3-to-3.5.5");
    assert_eq!((r["from"].as_str(), r["to"].as_str()), (Some("3.6.3"), Some("3.5.5")));
    assert_eq!(r["crate_version"], "300.5.5+3.5.5");
    let x86 = set(&r, "asm/linux-x86_64");
    // crypto/aes/asm/aes-cfb-avx512.pl is in 3.6.3's tree, not in 3.5.5's.
    assert_eq!(change(x86, "crypto/aes/aes-cfb-avx512.s"), Some("removed"));
    assert!(entry_points(x86, "removed").contains(&"ossl_aes_cfb128_vaes_eligible".into()));
    // So data::ELIGIBILITIES names a function 3.5.5 lacks: a finding, in each x86_64
    // target's every rendering.
    let eligibility = findings(&r, "eligibility");
    assert!(eligibility.iter().any(|f| f["config"] == "asm/linux-x86_64"
        && f["file"] == "crypto/aes/aes-cfb-avx512.s"
        && f["message"].as_str().unwrap().contains("ossl_aes_cfb128_vaes_eligible")));
    assert!(eligibility.iter().any(|f| f["file"] == "crypto/aes/aes-cfb-avx512.asm"));
    // 3.6.3's crypto/sm4/build.info has `$SM4DEF_x86_64=SM4_ASM`, 3.5.5's has none (and
    // crypto/sm4/asm/sm4-x86_64.pl and crypto/sm3/asm/sm3-x86_64.pl are 3.6's).
    assert_eq!(change(x86, "crypto/sm4/sm4-x86_64.S"), Some("removed"));
    assert_eq!(change(x86, "crypto/sm3/sm3-x86_64.S"), Some("removed"));
    let defines = &find(&r["configs"], "key", "asm/linux-x86_64")["defines"];
    assert!(strings(&defines["removed"]).contains(&"-DSM4_ASM".into()));
    // 3.5.5's crypto/x86_64cpuid.pl defines OPENSSL_wipe_cpu; 3.6.3's never names it.
    assert_eq!(entry_points(x86, "added"), ["OPENSSL_wipe_cpu"]);
    // crypto/aes/asm/aes-sha256-armv8.pl (AES-CBC stitched with HMAC-SHA256) is 3.6's.
    let arm = set(&r, "asm/linux-aarch64");
    assert_eq!(change(arm, "crypto/aes/aes-sha256-armv8.S"), Some("removed"));
    assert!(entry_points(arm, "removed").contains(&"asm_aescbc_sha256_hmac".into()));
    // include/internal/param_names.h.in is in 3.5.5's tree only.
    let headers = &find(&r["configs"], "key", "no_asm/linux-x86_64")["headers"];
    assert!(strings(&headers["added"]).contains(&"include/internal/param_names.h".into()));
    // Every configuration generated, no class moved, the same GNU as for `asm`.
    let sets = r["sets"].as_array().unwrap();
    assert!(sets.iter().all(|s| s["generated"] == true));
    assert!(sets.iter().all(|s| s["classes"]["old"] == s["classes"]["new"]));
    let gas = find(&x86["assemblers"], "kind", "gas");
    assert_eq!(
        (gas["old"]["min"].as_str(), gas["new"]["min"].as_str()),
        (Some("2.40"), Some("2.40"))
    );
    assert!(r["variants"].as_array().unwrap().iter().all(|v| v["accepted"] == true));
}

#[test]
fn from_3_6_3_to_4_0_3() {
    let r = report("3.6.3-to-4.0.3");
    assert_eq!((r["from"].as_str(), r["to"].as_str()), (Some("3.6.3"), Some("4.0.3")));
    let x86 = set(&r, "asm/linux-x86_64");
    // 4.0 removed the engines: engines/asm/e_padlock-x86_64.pl is in 3.6.3's tree only.
    assert_eq!(change(x86, "engines/e_padlock-x86_64.s"), Some("removed"));
    assert!(entry_points(x86, "removed").contains(&"padlock_xstore".into()));
    let defines = &find(&r["configs"], "key", "asm/linux-x86_64")["defines"];
    assert!(strings(&defines["removed"]).contains(&"-DPADLOCK_ASM".into()));
    // 4.0.3's crypto/poly1305/build.info: `$POLY1305ASM_aarch64=poly1305-armv8.S
    // poly1305-armv9-sve2.S`. Its .pl encodes the SVE2 instructions as `.inst` words
    // (sve_pred, sve_unpred), so the file is NEON to the assembler.
    let arm = set(&r, "asm/linux-aarch64");
    assert_eq!(change(arm, "crypto/poly1305/poly1305-armv9-sve2.S"), Some("added"));
    let file = find(&arm["files"], "path", "crypto/poly1305/poly1305-armv9-sve2.S");
    assert_eq!(strings(&file["classes"]["new"]), ["neon"]);
    // crypto/arm64cpuid.pl: `_armv8_sve_get_vl_bytes` is 4.0.3's.
    let added = entry_points(arm, "added");
    assert!(added.contains(&"poly1305_blocks_sve2".into()), "{added:?}");
    assert!(added.contains(&"_armv8_sve_get_vl_bytes".into()), "{added:?}");
    // 4.0.3's crypto/aes/asm/aes-cfb-avx512.pl also asks `$CC -dM -E` for __clang_major__
    // (>= 11 takes the AVX-512 code), which the faked darwin64-x86_64-cc compiler answers
    // with 19 in every identity: asm_avx2 gets AVX-512, refused with its file and line.
    let scan = findings(&r, "scan");
    let darwin = scan.iter().find(|f| f["config"] == "asm_avx2/darwin64-x86_64-cc").unwrap();
    assert_eq!(darwin["file"], "crypto/aes/aes-cfb-avx512.s");
    assert!(darwin["line"].as_u64().is_some());
    assert!(darwin["message"].as_str().unwrap().contains("uses avx512"));
    assert_eq!(set(&r, "asm_avx2/darwin64-x86_64-cc")["generated"], false);
    // 4.0.3's Configure has `"ssl3" => undef` in %deprecated_disablables: it warns of
    // CONFIGURE_COMMON's no-ssl3 and ignores it.
    let options = findings(&r, "configure options");
    assert!(options.iter().any(|f| f["message"].as_str().unwrap().contains("no-ssl3")));
    // ... and its %disabled turns `engine` off by default (Configure, `"engine" => "default"`).
    let disabled = &find(&r["configs"], "key", "asm/linux-x86_64")["disabled"]["added"];
    assert!(disabled.as_array().unwrap().iter().any(|d| d["feature"] == "engine"));
}

/// The Markdown says the same: the findings first, each naming its check and configuration.
#[test]
fn the_markdown_leads_with_the_findings() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/openssl-updates");
    let md = fs::read_to_string(dir.join("3.6.3-to-4.0.3.md")).unwrap();
    let findings = md.find("## Findings").expect("a findings section");
    assert!(findings < md.find("## Summary").unwrap());
    assert!(md.contains("**scan** in `asm_avx2/darwin64-x86_64-cc`, `crypto/aes/aes-cfb-avx512.s:"));
    assert!(md.contains("`crypto/poly1305/poly1305-armv9-sve2.S`"));
}
