//! Uses the `openssl` crate (through openssl-sys), linked statically against our prefix:
//! a known-answer AES-256-GCM vector, RSA-2048 sign and verify, and a TLS 1.3 handshake over
//! loopback TCP with a certificate made here.

use openssl::asn1::Asn1Time;
use openssl::ec::{EcGroup, EcKey};
use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkey::{PKey, Private};
use openssl::rsa::Rsa;
use openssl::sign::{Signer, Verifier};
use openssl::ssl::{SslAcceptor, SslConnector, SslMethod, SslVerifyMode, SslVersion};
use openssl::symm::{encrypt_aead, Cipher};
use openssl::x509::{X509NameBuilder, X509};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn main() {
    let version = openssl::version::version();
    assert!(version.starts_with("OpenSSL 3.6.3 "), "linked {version}");
    assert_eq!(openssl::version::number(), 0x3060_0030);
    sha256_known_answer();
    aes_256_gcm_known_answer();
    rsa_2048_sign_and_verify();
    tls13_handshake_over_loopback();
    println!("prefix consumer: {version}: SHA-256, AES-256-GCM, RSA-2048 and TLS 1.3 ok");
}

/// FIPS 180-2 "abc", through openssl-sys directly.
fn sha256_known_answer() {
    let mut md = [0u8; 32];
    unsafe { openssl_sys::SHA256(b"abc".as_ptr(), 3, md.as_mut_ptr()) };
    assert_eq!(
        md.to_vec(),
        unhex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    );
}

/// The GCM specification's (McGrew and Viega) test case 16.
fn aes_256_gcm_known_answer() {
    let key = unhex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308");
    let iv = unhex("cafebabefacedbaddecaf888");
    let aad = unhex("feedfacedeadbeeffeedfacedeadbeefabaddad2");
    let pt = unhex(concat!(
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72",
        "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
    ));
    let mut tag = [0u8; 16];
    let ct = encrypt_aead(Cipher::aes_256_gcm(), &key, Some(&iv), &aad, &pt, &mut tag).unwrap();
    let want = concat!(
        "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa",
        "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"
    );
    assert_eq!(ct, unhex(want));
    assert_eq!(tag.to_vec(), unhex("76fc6ece0f4e1768cddf8853bb2d551b"));
}

fn rsa_2048_sign_and_verify() {
    let key = PKey::from_rsa(Rsa::generate(2048).unwrap()).unwrap();
    let mut signer = Signer::new(MessageDigest::sha256(), &key).unwrap();
    signer.update(b"message").unwrap();
    let sig = signer.sign_to_vec().unwrap();
    assert_eq!(sig.len(), 256);
    let verify = |msg: &[u8]| {
        let mut v = Verifier::new(MessageDigest::sha256(), &key).unwrap();
        v.update(msg).unwrap();
        v.verify(&sig).unwrap()
    };
    assert!(verify(b"message"));
    assert!(!verify(b"massage"));
}

/// A self-signed P-256 certificate for `localhost`.
fn certificate() -> (X509, PKey<Private>) {
    let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap();
    let key = PKey::from_ec_key(EcKey::generate(&group).unwrap()).unwrap();
    let mut name = X509NameBuilder::new().unwrap();
    name.append_entry_by_text("CN", "localhost").unwrap();
    let name = name.build();
    let mut cert = X509::builder().unwrap();
    cert.set_version(2).unwrap();
    cert.set_subject_name(&name).unwrap();
    cert.set_issuer_name(&name).unwrap();
    cert.set_pubkey(&key).unwrap();
    cert.set_not_before(&Asn1Time::days_from_now(0).unwrap()).unwrap();
    cert.set_not_after(&Asn1Time::days_from_now(1).unwrap()).unwrap();
    cert.sign(&key, MessageDigest::sha256()).unwrap();
    (cert.build(), key)
}

fn tls13_handshake_over_loopback() {
    let (cert, key) = certificate();
    let mut acceptor = SslAcceptor::mozilla_modern_v5(SslMethod::tls()).unwrap();
    acceptor.set_certificate(&cert).unwrap();
    acceptor.set_private_key(&key).unwrap();
    let acceptor = acceptor.build();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        let (tcp, _) = listener.accept().unwrap();
        tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut tls = acceptor.accept(tcp).unwrap();
        let mut buf = [0u8; 4];
        tls.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"ping");
        tls.write_all(b"pong").unwrap();
    });
    let mut connector = SslConnector::builder(SslMethod::tls()).unwrap();
    connector.set_min_proto_version(Some(SslVersion::TLS1_3)).unwrap();
    connector.cert_store_mut().add_cert(cert).unwrap();
    connector.set_verify(SslVerifyMode::PEER);
    let tcp = TcpStream::connect(addr).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut tls = connector.build().connect("localhost", tcp).unwrap();
    assert_eq!(tls.ssl().version_str(), "TLSv1.3");
    tls.write_all(b"ping").unwrap();
    let mut buf = [0u8; 4];
    tls.read_exact(&mut buf).unwrap();
    assert_eq!(&buf, b"pong");
    server.join().unwrap();
}
