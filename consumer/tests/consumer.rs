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
    assert_eq!(crypto_consumer::SEEN_SYMBOL_PREFIX, info.symbol_prefix);
}

/// crypto-sys's symbols carry its prefix, named after its version as its `links` key is; the
/// C above, written for OpenSSL's names, reached them through the exported headers.
#[test]
fn the_symbol_prefix_is_crypto_sys_version() {
    let info = crypto_sys::build_info();
    let version = crypto_sys_version().replace(['.', '-', '+'], "_");
    assert_eq!(info.symbol_prefix, format!("crypto_sys_{version}_"));
}

/// The version of crypto-sys this crate was built against, from cargo's own lock of it.
fn crypto_sys_version() -> &'static str {
    let lock = include_str!("../../Cargo.lock");
    let after =
        lock.split("name = \"crypto-sys\"\nversion = \"").nth(1).expect("crypto-sys in Cargo.lock");
    after.split('"').next().unwrap()
}

/// Every `DEP_CRYPTO_SYS_*` key documented is one a dependent receives, and no other arrives.
#[test]
fn dependents_get_exactly_the_documented_keys() {
    assert_eq!(crypto_consumer::SEEN_KEYS, crypto_consumer::DOCUMENTED_KEYS);
    assert!(crypto_consumer::DOCUMENTED_KEYS.split(',').any(|k| k == "include"));
}
