//! `openssl_c_api` when a backend measures OpenSSL through its C API; with `vendored-default`,
//! that OpenSSL is the default line's openssl-src's own build, linked as openssl-sys links the
//! openssl-src it takes (another line's: `vendored.rs`, a scratch project's build script).

fn main() {
    println!("cargo::rustc-check-cfg=cfg(openssl_c_api)");
    let on = |prefix: &str| {
        std::env::vars_os().any(|(k, _)| k.to_str().is_some_and(|k| k.starts_with(prefix)))
    };
    let ours = std::env::var_os("CARGO_FEATURE_OURS").is_some();
    if ours || on("CARGO_FEATURE_VENDORED") {
        println!("cargo::rustc-cfg=openssl_c_api");
    }
    // Linked into this crate itself, beside crypto-sys's libcrypto it would clash.
    if ours && on("CARGO_FEATURE_VENDORED_") {
        eprintln!("vendored-* measures openssl-src's build: add --no-default-features");
        std::process::exit(1);
    }
    #[cfg(feature = "vendored-default")]
    openssl_src_4_0::Build::new().build().print_cargo_metadata();
}
