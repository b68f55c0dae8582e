//! `openssl_c_api` when a backend measures OpenSSL through its C API; with
//! `vendored-openssl-4`, that OpenSSL is openssl-src 400's own build, linked as openssl-sys
//! links openssl-src 300's.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(openssl_c_api)");
    let c_api = ["OURS", "VENDORED", "VENDORED_OPENSSL_4"];
    if c_api.iter().any(|f| std::env::var_os(format!("CARGO_FEATURE_{f}")).is_some()) {
        println!("cargo::rustc-cfg=openssl_c_api");
    }
    #[cfg(feature = "vendored-openssl-4")]
    {
        // Linked into this crate itself, beside crypto-sys's libcrypto it would clash.
        if std::env::var_os("CARGO_FEATURE_OURS").is_some() {
            eprintln!("vendored-openssl-4 measures openssl-src's build: add --no-default-features");
            std::process::exit(1);
        }
        openssl_src_4::Build::new().build().print_cargo_metadata();
    }
}
