//! `openssl_c_api` when a backend measures OpenSSL through its C API; with an OpenSSL line's
//! `vendored-default` or `vendored-openssl-X-Y`, that OpenSSL is the line's openssl-src's own
//! build, linked as openssl-sys links the openssl-src it takes.

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
    openssl_src::Build::new().build().print_cargo_metadata();
    #[cfg(feature = "vendored-openssl-3-5")]
    openssl_src_3_5::Build::new().build().print_cargo_metadata();
}
