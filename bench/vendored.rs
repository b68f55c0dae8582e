//! The build script of `cargo xtask bench`'s scratch project for an OpenSSL line other than the
//! default: the harness against that line's openssl-src's own build (OpenSSL's Configure and
//! make), linked as openssl-sys links the openssl-src it takes. A project of its own, as the
//! line's openssl-src is a 300.x, which the workspace's graph holds only as the patch crate.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(openssl_c_api)");
    println!("cargo::rustc-cfg=openssl_c_api");
    openssl_src::Build::new().build().print_cargo_metadata();
}
