//! The consumer's own tests: published answers through both paths, and the links metadata.

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

// FIPS 180-2, appendix B.1.
const ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

#[test]
fn rust_and_c_paths_give_the_published_digest() {
    assert_eq!(hex(&crypto_consumer::sha256(b"abc")), ABC);
    assert_eq!(hex(&crypto_consumer::sha256_via_c(b"abc")), ABC);
}

#[test]
fn links_metadata_matches_build_info() {
    let info = crypto_sys::build_info();
    assert_eq!(crypto_consumer::SEEN_VERSION, info.openssl_version);
    assert_eq!(crypto_consumer::SEEN_ASM_SET, info.effective_set);
    assert_eq!(crypto_consumer::SEEN_C_VARIANT, info.c_variant.unwrap_or("none"));
    assert_eq!(crypto_consumer::SEEN_LEGACY, if info.legacy_provider { "1" } else { "0" });
}

/// Every `DEP_CRYPTO_SYS_*` key documented is one a dependent receives, and no other arrives.
#[test]
fn dependents_get_exactly_the_documented_keys() {
    assert_eq!(crypto_consumer::SEEN_KEYS, crypto_consumer::DOCUMENTED_KEYS);
    assert!(crypto_consumer::DOCUMENTED_KEYS.split(',').any(|k| k == "include"));
}
