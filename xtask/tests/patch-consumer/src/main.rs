//! The `openssl` crate on the patched openssl-src: prints the version lines, then proves a TLS
//! 1.3 handshake between two `openssl` endpoints over a socket pair, with a certificate made
//! here, each end checking the other's data.

use openssl::asn1::Asn1Time;
use openssl::ec::{EcGroup, EcKey};
use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkey::{PKey, Private};
use openssl::ssl::{SslAcceptor, SslConnector, SslMethod, SslVerifyMode, SslVersion};
use openssl::x509::{X509NameBuilder, X509};
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;

fn main() {
    println!("version: {}", openssl::version::version());
    println!("{}", openssl::version::platform());
    let (cert, key) = self_signed().expect("a self-signed certificate");
    let (server, client) = UnixStream::pair().expect("a socket pair");
    let acceptor = {
        let mut b = SslAcceptor::mozilla_modern_v5(SslMethod::tls()).unwrap();
        b.set_private_key(&key).unwrap();
        b.set_certificate(&cert).unwrap();
        b.set_min_proto_version(Some(SslVersion::TLS1_3)).unwrap();
        b.build()
    };
    let served = std::thread::spawn(move || {
        let mut s = acceptor.accept(server).expect("the server's handshake");
        let mut buf = [0u8; 5];
        s.read_exact(&mut buf).unwrap();
        s.write_all(&buf.map(|b| b.to_ascii_uppercase())).unwrap();
    });
    let mut b = SslConnector::builder(SslMethod::tls()).unwrap();
    b.cert_store_mut().add_cert(cert.clone()).unwrap();
    b.set_verify(SslVerifyMode::PEER);
    b.set_min_proto_version(Some(SslVersion::TLS1_3)).unwrap();
    let mut s = b.build().connect("crypto-sys.test", client).expect("the client's handshake");
    s.write_all(b"hello").unwrap();
    let mut buf = [0u8; 5];
    s.read_exact(&mut buf).unwrap();
    served.join().unwrap();
    assert_eq!(&buf, b"HELLO");
    let cipher = s.ssl().current_cipher().map_or("none", |c| c.name());
    println!("tls: {} {cipher} echo ok", s.ssl().version_str());
}

fn self_signed() -> Result<(X509, PKey<Private>), openssl::error::ErrorStack> {
    let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1)?;
    let key = PKey::from_ec_key(EcKey::generate(&group)?)?;
    let mut name = X509NameBuilder::new()?;
    name.append_entry_by_text("CN", "crypto-sys.test")?;
    let name = name.build();
    let mut b = X509::builder()?;
    b.set_version(2)?;
    b.set_subject_name(&name)?;
    b.set_issuer_name(&name)?;
    b.set_pubkey(&key)?;
    b.set_not_before(Asn1Time::days_from_now(0)?.as_ref())?;
    b.set_not_after(Asn1Time::days_from_now(1)?.as_ref())?;
    let san = openssl::x509::extension::SubjectAlternativeName::new()
        .dns("crypto-sys.test")
        .build(&b.x509v3_context(None, None))?;
    b.append_extension(san)?;
    b.sign(&key, MessageDigest::sha256())?;
    Ok((b.build(), key))
}
