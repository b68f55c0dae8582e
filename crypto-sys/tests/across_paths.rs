//! The same answers on every code path and from every set. Fixed-seed inputs of every length
//! 0..=2048 bytes, plus 16 KiB and 64 KiB, go through each algorithm in one call, so that the
//! widest loops run (ChaCha20_16x beyond 512 bytes, the 16/32/48-block AVX-512 GCM loops);
//! the outputs are hashed into one SHA-256 per algorithm and compared with digests made once
//! from the plain-C `no_asm` set. Published vectors cover AES-XTS (IEEE 1619) and AES-CFB128
//! (NIST SP 800-38A), whose AVX-512 code had no known answer before.
//!
//! To regenerate `tests/data/across_paths_digests.txt` (only when the inputs here change, and
//! driver/digests.c with them), run the plain-C build:
//! `CRYPTO_SYS_ASM_SET=no_asm CRYPTO_SYS_PRINT_DIGESTS=1 cargo test -p crypto-sys
//! --test across_paths -- --nocapture --test-threads=1 digest_of` and paste the printed rows.

use core::ffi::{c_int, c_uint};
use core::ptr;
use crypto_sys as ffi;

mod common;
use common::{clear_errors, ok, Owned};

/// Digests of every algorithm's outputs over `lengths()`, made with the `no_asm` set (and
/// the same from Python's hashlib and `cryptography`, mirroring the inputs in a few lines),
/// as `NAME HEX` lines. The C driver checks the same file (xtask copies it into its vectors),
/// so both implementations answer to one copy.
const DIGESTS: &str = include_str!("data/across_paths_digests.txt");

/// The file's `(name, hex digest)` rows; `#` lines are comments.
fn stored_digests() -> impl Iterator<Item = (&'static str, &'static str)> {
    let rows = DIGESTS.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    rows.map(|l| l.split_once(' ').expect("a `NAME HEX` row")).map(|(n, d)| (n, d.trim()))
}

/// Prints each computed digest as a row of the digests file (see the module comment).
const PRINT_VAR: &str = "CRYPTO_SYS_PRINT_DIGESTS";
const TAG_LEN: usize = 16;

/// SplitMix64 (Steele, Lea, Flood 2014): a fixed stream, identical on every run and machine.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn bytes(seed: u64, n: usize) -> Vec<u8> {
        let mut rng = SplitMix64(seed);
        let mut out: Vec<u8> =
            (0..n.div_ceil(8)).flat_map(|_| rng.next_u64().to_le_bytes()).collect();
        out.truncate(n);
        out
    }
}

const LONGEST: usize = 64 * 1024;

fn lengths() -> impl Iterator<Item = usize> {
    (0..=2048).chain([16 * 1024, LONGEST])
}

/// The message of each length is a prefix of one stream; keys, nonces and AAD are fixed.
fn message() -> Vec<u8> {
    SplitMix64::bytes(1, LONGEST)
}

fn key(bytes: usize) -> Vec<u8> {
    SplitMix64::bytes(2, bytes)
}

/// A static cipher method such as `EVP_aes_128_gcm`.
type Method = unsafe extern "C" fn() -> *const ffi::EVP_CIPHER;

const fn c_len(n: usize) -> c_int {
    assert!(n <= c_int::MAX as usize);
    n as c_int
}

fn cipher_ctx(method: Method, key: &[u8], iv: &[u8], enc: bool) -> Owned<ffi::EVP_CIPHER_CTX> {
    // SAFETY: `method` returns a static cipher; key and IV have exactly the lengths it reads.
    unsafe {
        let cipher = method();
        assert_eq!(c_len(key.len()), ffi::EVP_CIPHER_get_key_length(cipher));
        assert_eq!(c_len(iv.len()), ffi::EVP_CIPHER_get_iv_length(cipher));
        let ctx = Owned::new(ffi::EVP_CIPHER_CTX_new(), ffi::EVP_CIPHER_CTX_free).unwrap();
        let (k, i) = (key.as_ptr(), iv.as_ptr());
        ok(ffi::EVP_CipherInit_ex(ctx.0, cipher, ptr::null_mut(), k, i, c_int::from(enc))).unwrap();
        ctx
    }
}

/// One `EVP_CipherUpdate` over all of `input` (AAD when `out` is `None`), then, for data,
/// `EVP_CipherFinal_ex`; `None` if OpenSSL refuses (XTS under 16 bytes, a bad tag).
fn update_final(ctx: &Owned<ffi::EVP_CIPHER_CTX>, input: &[u8], aad: bool) -> Option<Vec<u8>> {
    let mut out = vec![0u8; input.len() + 32];
    let (mut n, mut m) = (0, 0);
    let out_ptr = if aad { ptr::null_mut() } else { out.as_mut_ptr() };
    // SAFETY: `out` has room for the input plus a block; these modes emit no more.
    unsafe {
        let (i, len) = (input.as_ptr(), c_len(input.len()));
        ok(ffi::EVP_CipherUpdate(ctx.0, out_ptr, &mut n, i, len))?;
        if aad {
            return Some(Vec::new());
        }
        ok(ffi::EVP_CipherFinal_ex(ctx.0, out.as_mut_ptr().add(n as usize), &mut m))?;
    }
    out.truncate((n + m) as usize);
    Some(out)
}

fn crypt(cipher: Method, key: &[u8], iv: &[u8], enc: bool, input: &[u8]) -> Option<Vec<u8>> {
    update_final(&cipher_ctx(cipher, key, iv, enc), input, false)
}

fn aead_tag(ctx: &Owned<ffi::EVP_CIPHER_CTX>, cmd: c_int, tag: &mut [u8]) {
    // SAFETY: `tag` is valid for TAG_LEN bytes of reads and writes.
    let rc =
        unsafe { ffi::EVP_CIPHER_CTX_ctrl(ctx.0, cmd, c_len(TAG_LEN), tag.as_mut_ptr().cast()) };
    ok(rc).unwrap();
}

/// AEAD seal, `ciphertext || tag`, with the cipher's default 12-byte nonce.
fn seal(cipher: Method, key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> Vec<u8> {
    let ctx = cipher_ctx(cipher, key, nonce, true);
    update_final(&ctx, aad, true).unwrap();
    let mut out = update_final(&ctx, pt, false).unwrap();
    let mut tag = [0u8; TAG_LEN];
    aead_tag(&ctx, ffi::EVP_CTRL_AEAD_GET_TAG, &mut tag);
    out.extend_from_slice(&tag);
    out
}

fn open(cipher: Method, key: &[u8], nonce: &[u8], aad: &[u8], sealed: &[u8]) -> Option<Vec<u8>> {
    let (ct, tag) = sealed.split_at(sealed.len() - TAG_LEN);
    let ctx = cipher_ctx(cipher, key, nonce, false);
    update_final(&ctx, aad, true).unwrap();
    aead_tag(&ctx, ffi::EVP_CTRL_AEAD_SET_TAG, &mut tag.to_vec());
    let opened = update_final(&ctx, ct, false);
    clear_errors();
    opened
}

/// Seals, checks that it opens back and that a flipped tag bit does not; returns the seal.
fn aead_round_trip(cipher: Method, key_len: usize, pt: &[u8]) -> Vec<u8> {
    let (key, nonce, aad) = (key(key_len), SplitMix64::bytes(3, 12), SplitMix64::bytes(4, 20));
    let sealed = seal(cipher, &key, &nonce, &aad, pt);
    assert_eq!(open(cipher, &key, &nonce, &aad, &sealed).as_deref(), Some(pt), "len {}", pt.len());
    let mut forged = sealed.clone();
    *forged.last_mut().unwrap() ^= 1;
    assert_eq!(open(cipher, &key, &nonce, &aad, &forged), None, "forged tag, len {}", pt.len());
    sealed
}

/// Encrypts, checks that it decrypts back; `None` where the mode refuses the length.
fn cipher_round_trip(cipher: Method, key_len: usize, pt: &[u8]) -> Option<Vec<u8>> {
    let (key, iv) = (key(key_len), SplitMix64::bytes(5, 16));
    let ct = crypt(cipher, &key, &iv, true, pt);
    clear_errors();
    let back = ct.as_ref().and_then(|ct| crypt(cipher, &key, &iv, false, ct));
    assert_eq!(back.as_deref(), ct.as_ref().map(|_| pt), "len {}", pt.len());
    ct
}

/// A static digest method such as `EVP_sha256`.
type MdMethod = unsafe extern "C" fn() -> *const ffi::EVP_MD;

fn digest(md: MdMethod, data: &[u8]) -> Vec<u8> {
    let mut out = [0u8; ffi::EVP_MAX_MD_SIZE];
    let mut len: c_uint = 0;
    // SAFETY: `md` returns a static method; `out` holds EVP_MAX_MD_SIZE bytes, the most any
    // digest writes.
    let rc = unsafe {
        let (p, n) = (data.as_ptr().cast(), data.len());
        ffi::EVP_Digest(p, n, out.as_mut_ptr(), &mut len, md(), ptr::null_mut())
    };
    ok(rc).unwrap();
    out[..len as usize].to_vec()
}

fn poly1305(data: &[u8]) -> Vec<u8> {
    let key = key(32);
    let mut out = [0u8; 16];
    let mut len = 0usize;
    // SAFETY: every object is owned by an `Owned`; `out` holds the 16-byte tag.
    unsafe {
        let mac = ffi::EVP_MAC_fetch(ptr::null_mut(), c"POLY1305".as_ptr(), ptr::null());
        let mac = Owned::new(mac, ffi::EVP_MAC_free).unwrap();
        let ctx = Owned::new(ffi::EVP_MAC_CTX_new(mac.0), ffi::EVP_MAC_CTX_free).unwrap();
        ok(ffi::EVP_MAC_init(ctx.0, key.as_ptr(), key.len(), ptr::null())).unwrap();
        ok(ffi::EVP_MAC_update(ctx.0, data.as_ptr(), data.len())).unwrap();
        ok(ffi::EVP_MAC_final(ctx.0, out.as_mut_ptr(), &mut len, out.len())).unwrap();
    }
    out[..len].to_vec()
}

/// SHA-256 over `len (u64 LE) || output` for every length (lengths a mode refuses add
/// nothing), compared with the stored row.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn digest_of(name: &str, op: impl Fn(&[u8]) -> Option<Vec<u8>>) {
    assert!(ALGORITHMS.contains(&name), "{name}: add it to ALGORITHMS");
    let msg = message();
    let mut all = Vec::new();
    for len in lengths() {
        if let Some(out) = op(&msg[..len]) {
            all.extend_from_slice(&(len as u64).to_le_bytes());
            all.extend_from_slice(&out);
        }
    }
    let got = hex(&digest(ffi::EVP_sha256, &all));
    if std::env::var_os(PRINT_VAR).is_some() {
        println!("{name} {got}");
    }
    let want = stored_digests().find(|(n, _)| *n == name).map(|(_, d)| d);
    let info = crypto_sys::build_info();
    let mask = std::env::var("OPENSSL_ia32cap").unwrap_or_else(|_| "(unset)".into());
    assert_eq!(
        Some(got.as_str()),
        want,
        "{name}: outputs over lengths 0..=2048, 16 KiB, 64 KiB differ from the no_asm reference \
         (set {}, OPENSSL_ia32cap={mask})",
        info.effective_set,
    );
}

/// The algorithms the `digest_of_*` tests below check, in the digests file's order.
const ALGORITHMS: &[&str] = &[
    "AES-128-GCM",
    "AES-256-GCM",
    "ChaCha20-Poly1305",
    "AES-256-XTS",
    "AES-128-CFB128",
    "AES-256-CFB128",
    "SHA-256",
    "SHA-512",
    "SHA3-256",
    "Poly1305",
];

/// A row the Rust tests do not check would be proved by the C driver alone.
#[test]
fn the_digests_file_has_a_row_for_each_algorithm_and_no_other() {
    let names: Vec<&str> = stored_digests().map(|(name, _)| name).collect();
    assert_eq!(names, ALGORITHMS);
}

#[test]
fn digest_of_aes_128_gcm() {
    digest_of("AES-128-GCM", |m| Some(aead_round_trip(ffi::EVP_aes_128_gcm, 16, m)));
}

#[test]
fn digest_of_aes_256_gcm() {
    digest_of("AES-256-GCM", |m| Some(aead_round_trip(ffi::EVP_aes_256_gcm, 32, m)));
}

#[test]
fn digest_of_chacha20_poly1305() {
    digest_of("ChaCha20-Poly1305", |m| Some(aead_round_trip(ffi::EVP_chacha20_poly1305, 32, m)));
}

#[test]
fn digest_of_aes_256_xts() {
    // XTS refuses data units under one block: those lengths add nothing.
    digest_of("AES-256-XTS", |m| cipher_round_trip(ffi::EVP_aes_256_xts, 64, m));
}

#[test]
fn digest_of_aes_128_cfb128() {
    digest_of("AES-128-CFB128", |m| cipher_round_trip(ffi::EVP_aes_128_cfb128, 16, m));
}

#[test]
fn digest_of_aes_256_cfb128() {
    digest_of("AES-256-CFB128", |m| cipher_round_trip(ffi::EVP_aes_256_cfb128, 32, m));
}

#[test]
fn digest_of_sha256() {
    digest_of("SHA-256", |m| Some(digest(ffi::EVP_sha256, m)));
}

#[test]
fn digest_of_sha512() {
    digest_of("SHA-512", |m| Some(digest(ffi::EVP_sha512, m)));
}

#[test]
fn digest_of_sha3_256() {
    digest_of("SHA3-256", |m| Some(digest(ffi::EVP_sha3_256, m)));
}

#[test]
fn digest_of_poly1305() {
    digest_of("Poly1305", |m| Some(poly1305(m)));
}

// ---------------------------------------------------------------------------
// Published vectors
// ---------------------------------------------------------------------------

fn unhex(s: &str) -> Vec<u8> {
    let s: Vec<u8> = s.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    s.chunks(2).map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap()).collect()
}

/// Encrypts and decrypts one published vector in a single call each way.
fn check_vector(name: &str, cipher: Method, key: &str, iv: &str, pt: &[u8], ct: &str) {
    let (key, iv, ct) = (unhex(key), unhex(iv), unhex(ct));
    assert_eq!(
        crypt(cipher, &key, &iv, true, pt).map(|c| hex(&c)),
        Some(hex(&ct)),
        "{name} encrypt"
    );
    assert_eq!(crypt(cipher, &key, &iv, false, &ct).as_deref(), Some(pt), "{name} decrypt");
}

// IEEE Std 1619-2007, Annex B: the key is Key1 || Key2 and the tweak is the data unit
// sequence number, little-endian in 16 bytes. The standard's data units are at most 512
// bytes; vectors 10 and 14 are its XTS-AES-256 ones of that size (plaintext 00 01 .. ff
// twice), vectors 15-18 its XTS-AES-128 ones of 17-20 bytes (ciphertext stealing).
const XTS_256_KEY: &str = "\
    2718281828459045235360287471352662497757247093699959574966967627\
    3141592653589793238462643383279502884197169399375105820974944592";
const XTS_VECTOR_10_CT: &str = "\
    1c3b3a102f770386e4836c99e370cf9bea00803f5e482357a4ae12d414a3e63b\
    5d31e276f8fe4a8d66b317f9ac683f44680a86ac35adfc3345befecb4bb188fd\
    5776926c49a3095eb108fd1098baec70aaa66999a72a82f27d848b21d4a741b0\
    c5cd4d5fff9dac89aeba122961d03a757123e9870f8acf1000020887891429ca\
    2a3e7a7d7df7b10355165c8b9a6d0a7de8b062c4500dc4cd120c0f7418dae3d0\
    b5781c34803fa75421c790dfe1de1834f280d7667b327f6c8cd7557e12ac3a0f\
    93ec05c52e0493ef31a12d3d9260f79a289d6a379bc70c50841473d1a8cc81ec\
    583e9645e07b8d9670655ba5bbcfecc6dc3966380ad8fecb17b6ba02469a020a\
    84e18e8f84252070c13e9f1f289be54fbc481457778f616015e1327a02b140f1\
    505eb309326d68378f8374595c849d84f4c333ec4423885143cb47bd71c5edae\
    9be69a2ffeceb1bec9de244fbe15992b11b77c040f12bd8f6a975a44a0f90c29\
    a9abc3d4d893927284c58754cce294529f8614dcd2aba991925fedc4ae74ffac\
    6e333b93eb4aff0479da9a410e4450e0dd7ae4c6e2910900575da401fc07059f\
    645e8b7e9bfdef33943054ff84011493c27b3429eaedb4ed5376441a77ed4385\
    1ad77f16f541dfd269d50d6a5f14fb0aab1cbb4c1550be97f7ab4066193c4caa\
    773dad38014bd2092fa755c824bb5e54c4f36ffda9fcea70b9c6e693e148c151";
const XTS_VECTOR_14_CT: &str = "\
    64497e5a831e4a932c09be3e5393376daa599548b816031d224bbf50a818ed23\
    50eae7e96087c8a0db51ad290bd00c1ac1620857635bf246c176ab463be30b80\
    8da548081ac847b158e1264be25bb0910bbc92647108089415d45fab1b3d2604\
    e8a8eff1ae4020cfa39936b66827b23f371b92200be90251e6d73c5f86de5fd4\
    a950781933d79a28272b782a2ec313efdfcc0628f43d744c2dc2ff3dcb66999b\
    50c7ca895b0c64791eeaa5f29499fb1c026f84ce5b5c72ba1083cddb5ce45434\
    631665c333b60b11593fb253c5179a2c8db813782a004856a1653011e93fb6d8\
    76c18366dd8683f53412c0c180f9c848592d593f8609ca736317d356e13e2bff\
    3a9f59cd9aeb19cd482593d8c46128bb32423b37a9adfb482b99453fbe25a41b\
    f6feb4aa0bef5ed24bf73c762978025482c13115e4015aac992e5613a3b5c2f6\
    85b84795cb6e9b2656d8c88157e52c42f978d8634c43d06fea928f2822e465aa\
    6576e9bf419384506cc3ce3c54ac1a6f67dc66f3b30191e698380bc999b05abc\
    e19dc0c6dcc2dd001ec535ba18deb2df1a101023108318c75dc98611a09dc48a\
    0acdec676fabdf222f07e026f059b672b56e5cbc8e1d21bbd867dd9272120546\
    81d70ea737134cdfce93b6f82ae22423274e58a0821cc5502e2d0ab4585e94de\
    6975be5e0b4efce51cd3e70c25a1fbbbd609d273ad5b0d59631c531f6a0a57b9";

#[test]
fn aes_256_xts_ieee1619_vectors_10_and_14() {
    let pt: Vec<u8> = (0..512).map(|i| i as u8).collect();
    let v10_tweak = "ff000000000000000000000000000000";
    check_vector("vector 10", ffi::EVP_aes_256_xts, XTS_256_KEY, v10_tweak, &pt, XTS_VECTOR_10_CT);
    let v14_tweak = "ffffffffff0000000000000000000000";
    check_vector("vector 14", ffi::EVP_aes_256_xts, XTS_256_KEY, v14_tweak, &pt, XTS_VECTOR_14_CT);
}

#[test]
fn aes_128_xts_ieee1619_vectors_15_to_18_ciphertext_stealing() {
    let key = "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0";
    let tweak = "9a785634120000000000000000000000";
    let vectors = [
        (15, "6c1625db4671522d3d7599601de7ca09ed"),
        (16, "d069444b7a7e0cab09e24447d24deb1fedbf"),
        (17, "e5df1351c0544ba1350b3363cd8ef4beedbf9d"),
        (18, "9d84c813f719aa2c7be3f66171c7c5c2edbf9dac"),
    ];
    for (number, ct) in vectors {
        let pt: Vec<u8> = (0..ct.len() as u8 / 2).collect();
        let name = format!("vector {number}");
        check_vector(&name, ffi::EVP_aes_128_xts, key, tweak, &pt, ct);
    }
}

// NIST SP 800-38A, F.3.13-F.3.18: CFB128-AES128, -AES192 and -AES256, encrypt and decrypt.
const SP800_38A_PT: &str = "\
    6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51\
    30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
const SP800_38A_IV: &str = "000102030405060708090a0b0c0d0e0f";

#[test]
fn aes_cfb128_sp800_38a_f3_13_to_f3_18() {
    let pt = unhex(SP800_38A_PT);
    #[rustfmt::skip]
    let vectors: [(&str, Method, &str, &str); 3] = [
        ("F.3.13/F.3.14", ffi::EVP_aes_128_cfb128, "2b7e151628aed2a6abf7158809cf4f3c",
         "3b3fd92eb72dad20333449f8e83cfb4ac8a64537a0b3a93fcde3cdad9f1ce58b\
          26751f67a3cbb140b1808cf187a4f4dfc04b05357c5d1c0eeac4c66f9ff7f2e6"),
        ("F.3.15/F.3.16", ffi::EVP_aes_192_cfb128, "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
         "cdc80d6fddf18cab34c25909c99a417467ce7f7f81173621961a2b70171d3d7a\
          2e1e8a1dd59b88b1c8e60fed1efac4c9c05f9f9ca9834fa042ae8fba584b09ff"),
        ("F.3.17/F.3.18", ffi::EVP_aes_256_cfb128,
         "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
         "dc7e84bfda79164b7ecd8486985d386039ffed143b28b1c832113c6331e5407b\
          df10132415e54b92a13ed0a8267ae2f975a385741ab9cef82031623d55b1e471"),
    ];
    for (name, cipher, key, ct) in vectors {
        check_vector(name, cipher, key, SP800_38A_IV, &pt, ct);
    }
}

// ---------------------------------------------------------------------------
// RSAZ: BN_mod_exp_mont_consttime_x2, where RSA's CRT runs the AVX-512 (or AVX-IFMA) code
// ---------------------------------------------------------------------------

// RSA signing cannot catch a wrong RSAZ result: OpenSSL checks each CRT result and quietly
// recomputes a wrong one without CRT. So the two exponentiations are checked directly.

/// SHA-256 of `a1^p1 mod m1 || a2^p2 mod m2` (each padded to the modulus) for the operands
/// of `x2_operands`, computed once with Python's `pow` (an implementation unrelated to
/// OpenSSL), mirroring SplitMix64 and the operand rules in a few lines.
const X2_KNOWN_ANSWERS: &[(usize, &str)] = &[
    (1024, "4f45aa7fdedeecab6ee327aae27da2649298c0077e9d62a5f59dc70691fc810c"),
    (1536, "65c910e654ebbf66c741c560b250b1a7418932966524e25d185ae42e39782900"),
    (2048, "e17cdcbe1f412fcd5b76ce84903ab51cdf8b7a6bf0a50cc57e2af81fd64313ca"),
];

fn bn(bytes: &[u8]) -> Owned<ffi::BIGNUM> {
    // SAFETY: `bytes` is readable for its length; a null `ret` asks for a new BIGNUM.
    let p = unsafe { ffi::BN_bin2bn(bytes.as_ptr(), c_len(bytes.len()), ptr::null_mut()) };
    Owned::new(p, ffi::BN_free).unwrap()
}

fn bn_bytes(n: &Owned<ffi::BIGNUM>, len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    // SAFETY: `out` has `len` bytes; BN_bn2binpad fails rather than overflow.
    assert_eq!(unsafe { ffi::BN_bn2binpad(n.0, out.as_mut_ptr(), c_len(len)) }, c_len(len));
    out
}

/// Modulus (odd, top bit set), base (below it, yet with its top word non-zero) and exponent
/// (top bit set): RSAZ takes only operands of the modulus's full width.
fn x2_operands(bits: usize, pair: u64) -> [Vec<u8>; 3] {
    let seed = bits as u64 * 10 + pair;
    let mut m = SplitMix64::bytes(seed, bits / 8);
    m[0] |= 0x80;
    *m.last_mut().unwrap() |= 1;
    let mut a = SplitMix64::bytes(seed + 2, bits / 8);
    a[0] = (a[0] & 0x7f) | 0x40;
    let mut p = SplitMix64::bytes(seed + 4, bits / 8);
    p[0] |= 0x80;
    [m, a, p]
}

/// The RSAZ code `BN_mod_exp_mont_consttime_x2` takes here, as its eligibility checks say.
fn rsaz_path() -> &'static str {
    let eligible = crypto_sys::asm_eligibility();
    let on = |name: &str| eligible.iter().any(|&(n, v)| n == name && v);
    if on("ossl_rsaz_avx512ifma_eligible") {
        "RSAZ AVX-512"
    } else if on("ossl_rsaz_avxifma_eligible") {
        "RSAZ AVX-IFMA"
    } else {
        "two BN_mod_exp_mont_consttime calls (no RSAZ)"
    }
}

/// One loud line when this CPU cannot run an RSAZ path at all, whatever the mask.
#[cfg(target_arch = "x86_64")]
fn report_rsaz_paths_this_cpu_lacks() {
    let loud = |line: String| {
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "{line}");
    };
    let avx512 = ["avx512f", "avx512dq", "avx512vl", "avx512ifma"];
    let has = |f: &str| match f {
        "avx512f" => std::is_x86_feature_detected!("avx512f"),
        "avx512dq" => std::is_x86_feature_detected!("avx512dq"),
        "avx512vl" => std::is_x86_feature_detected!("avx512vl"),
        _ => std::is_x86_feature_detected!("avx512ifma"),
    };
    if let Some(f) = avx512.into_iter().find(|f| !has(f)) {
        loud(format!("skipped: RSA AVX-512 path: this CPU lacks {f}"));
    }
    // CPUID.(7,1):EAX bit 23; std does not detect AVX-IFMA on stable Rust.
    let avx_ifma = std::arch::x86_64::__cpuid_count(7, 1).eax & (1 << 23) != 0;
    if !(avx_ifma && std::is_x86_feature_detected!("avx2")) {
        loud("skipped: RSA AVX-IFMA path: this CPU lacks AVX-IFMA".into());
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn report_rsaz_paths_this_cpu_lacks() {}

#[test]
fn rsaz_x2_matches_bn_mod_exp_and_known_answers() {
    report_rsaz_paths_this_cpu_lacks();
    let path = rsaz_path();
    // SAFETY: BN_CTX is freed by `Owned`.
    let ctx = Owned::new(unsafe { ffi::BN_CTX_new() }, ffi::BN_CTX_free).unwrap();
    for &(bits, want) in X2_KNOWN_ANSWERS {
        let [m1, a1, p1] = x2_operands(bits, 1).map(|v| bn(&v));
        let [m2, a2, p2] = x2_operands(bits, 2).map(|v| bn(&v));
        let (r1, r2, s1, s2) = (bn(&[]), bn(&[]), bn(&[]), bn(&[]));
        let no_mont = ptr::null_mut();
        // SAFETY: every BIGNUM is live and owned here; the Montgomery contexts are computed.
        unsafe {
            let rc = ffi::BN_mod_exp_mont_consttime_x2(
                r1.0, a1.0, p1.0, m1.0, no_mont, r2.0, a2.0, p2.0, m2.0, no_mont, ctx.0,
            );
            ok(rc).unwrap();
            ok(ffi::BN_mod_exp(s1.0, a1.0, p1.0, m1.0, ctx.0)).unwrap();
            ok(ffi::BN_mod_exp(s2.0, a2.0, p2.0, m2.0, ctx.0)).unwrap();
        }
        let len = bits / 8;
        let (x1, x2) = (bn_bytes(&r1, len), bn_bytes(&r2, len));
        let (y1, y2) = (bn_bytes(&s1, len), bn_bytes(&s2, len));
        assert_eq!(
            hex(&x1),
            hex(&y1),
            "{bits}-bit: x2's first result differs from BN_mod_exp ({path})"
        );
        assert_eq!(
            hex(&x2),
            hex(&y2),
            "{bits}-bit: x2's second result differs from BN_mod_exp ({path})"
        );
        let got = hex(&digest(ffi::EVP_sha256, &[x1, x2].concat()));
        assert_eq!(got, want, "{bits}-bit: x2's results are not the known answer ({path})");
    }
}

// RSA-3072 and RSA-4096 keys made once with `openssl genpkey` (two primes of equal size,
// so CRT runs BN_mod_exp_mont_consttime_x2 on 1536- and 2048-bit factors), and PKCS#1 v1.5
// SHA-256 signatures of RSA_MESSAGE made with Python's `cryptography`.
const RSA_MESSAGE: &[u8] = b"crypto-sys: RSA CRT through BN_mod_exp_mont_consttime_x2";
const RSA3072_PEM: &str = include_str!("data/rsa3072.pem");
const RSA4096_PEM: &str = include_str!("data/rsa4096.pem");

const RSA3072_SIG: &str = "\
    5bab8eaf18f58ad10d300ba4155ea8e82a958ffdc4cba14c4c9c0d160c497fee\
    7f73bfd835c1b288d74d3a7c57ec80c45a5ae211b63c011ba41c9140eba3ee8f\
    1e7b228bbfcd69b492438e7926a54ddabad84b86df0883e40d694379e59888df\
    edbac0574808676c5e31473168bd1f3fcb65ce4b9989e9e2332f86ea82e04cb7\
    20c103058e1bd3d19e293c626b14ea94588f757deb64bbeee4df96f92913b192\
    a93dd5b7f286c93d5343b39effb026817be5ade743021923bc710db526e782f9\
    8d7ff47828ca1260bf7a171a8828a82e2a682a8003a511f1c765c016b670437e\
    6d80a5108f7b3b4f6750ddb35a521ae11b80a694f46ee14f66889e35b0d83ec3\
    f8aa8be2c9b370df2fb000a7918f2c502d8a31a8b646893b67c225fbec4af4a8\
    e0fa8b72e25b2d4505b3f193734cdf2e5ed989286083086c2b6d201b62edf1d5\
    91f61ffae89da9fda7c904b504d54478f9368750883ce20afc07beb71da6e494\
    05e18b47cdaaf9574dd5bbd37df5947c46f04b22e69bea006f2eababf827d5a3";

const RSA4096_SIG: &str = "\
    79c68753484290446c23590425c7fb90012fd364143d01b58d8a1808ecdfae76\
    a71d11bf408d310c676bb2c6fab78965145c46f6d76813e6d4283724e32659bc\
    ea7a7d6a1002cff0d04e30774ac993d2e8b9975dcd3787ff4e4102a63c8ed53c\
    e5f7e732cc8919fda13e34a5499d97332f46167338ca79a074c3d6b528fdd4a7\
    4253617b22922efc9573aa1229f85216f4b8fa2354479cec87b0e68cef1f57e0\
    d4073f61f123c8741380415d7cf9fb8727236097ecf04030f21c8a0db3f51915\
    1c9d2250111f066205d0bc36556c5f930c717da57a1a0cf626b62692c8104fc7\
    5aaef2b6c3b23dbb3a4d094b4d0d74f417ae2099328ad3f7c9d47466119b4a57\
    ce8a78e90037cd1eaa141c541958a0157006b5baeb80f217cbe922644c162e57\
    0c87120da6dd63df23a5bd663d83791b7df1090b3e96f84b68edcd811e504c6c\
    2559d696967096c8952a601e47ec0f08aef63dade6951af40694d03d72831408\
    56176e8784058c377c9285f4ee366e6324bd939b3e9b9d568a63516f131d24f9\
    8360065df443514df842c866b58d52d10e8b9d9276589e3c1b0a07db06f7cb30\
    33777847487279668dfe7fac1431229ad64d7b19e0f1322bba431a672e5a3b4a\
    f0f2ddd0b95beec6d99ca07217faeaf04a084a46913a960bff583ced9d13c457\
    646c5a1942c0fb917686d7c9dc8e667ef45cd687caf17c9ba2e0ca1f01b520ca";

fn private_key(pem: &str) -> Owned<ffi::EVP_PKEY> {
    // SAFETY: the BIO reads `pem` for its length; both objects are freed by `Owned`.
    unsafe {
        let bio = ffi::BIO_new_mem_buf(pem.as_ptr().cast(), c_len(pem.len()));
        let bio = Owned::new(bio, ffi::BIO_free_all).unwrap();
        let key = ffi::PEM_read_bio_PrivateKey(bio.0, ptr::null_mut(), None, ptr::null_mut());
        Owned::new(key, ffi::EVP_PKEY_free).unwrap()
    }
}

fn sign_sha256(key: &Owned<ffi::EVP_PKEY>, msg: &[u8]) -> Vec<u8> {
    let (no_pctx, no_engine) = (ptr::null_mut(), ptr::null_mut());
    // SAFETY: the first EVP_DigestSign (null output) reports the size the second may write.
    unsafe {
        let ctx = Owned::new(ffi::EVP_MD_CTX_new(), ffi::EVP_MD_CTX_free).unwrap();
        ok(ffi::EVP_DigestSignInit(ctx.0, no_pctx, ffi::EVP_sha256(), no_engine, key.0)).unwrap();
        let mut len = 0usize;
        let (m, n) = (msg.as_ptr(), msg.len());
        ok(ffi::EVP_DigestSign(ctx.0, ptr::null_mut(), &mut len, m, n)).unwrap();
        let mut sig = vec![0u8; len];
        ok(ffi::EVP_DigestSign(ctx.0, sig.as_mut_ptr(), &mut len, m, n)).unwrap();
        sig.truncate(len);
        sig
    }
}

#[test]
fn rsa_3072_and_4096_pkcs1v15_signatures_are_the_known_ones() {
    let path = rsaz_path();
    for (bits, pem, want) in [(3072, RSA3072_PEM, RSA3072_SIG), (4096, RSA4096_PEM, RSA4096_SIG)] {
        let key = private_key(pem);
        // SAFETY: `key` is a live EVP_PKEY.
        assert_eq!(unsafe { ffi::EVP_PKEY_get_bits(key.0) }, bits);
        let sig = hex(&sign_sha256(&key, RSA_MESSAGE));
        assert_eq!(sig, want, "RSA-{bits}: PKCS#1 v1.5 is deterministic ({path})");
    }
}
