//! Hand-written `extern "C"` bindings to the OpenSSL 3 libcrypto APIs this crate exposes.
//!
//! Covered: version/init, the error queue, random bytes, ciphers and AEADs
//! (AES-GCM/CTR/CBC/XTS/CFB128, ChaCha20-Poly1305, fetched ciphers), message digests (SHA-2,
//! SHA-3, SHAKE), `EVP_MAC`, BIGNUM exponentiation (plain and RSA's two-at-once),
//! `EVP_KDF` and `OSSL_PARAM` construction, `EVP_PKEY` key generation, signing,
//! verification and key agreement (RSA, EC, Ed25519, X25519), key and certificate
//! DER/PEM encoding through `BIO`s, a minimal `X509` API (enough to build a self-signed
//! certificate), and the core of libssl (contexts, connections, handshakes over BIO pairs),
//! library contexts and providers (the built-in `legacy` one), PKCS#12 parsing and CMS.
//!
//! Every signature mirrors the C prototype in the line's OpenSSL release's `include/openssl/*.h`
//! (`crypto.h.in`, `err.h.in`, `evp.h`, `bn.h`, `param_build.h`, `params.h`, `core.h`,
//! `kdf.h`, `rsa.h`, `ec.h`, `rand.h`, `bio.h.in`, `pem.h`, `asn1.h.in`, `x509.h.in`,
//! `ssl.h.in`, `provider.h`, `pkcs12.h.in`, `stack.h`, `cms.h.in`); `tests/signatures.rs`
//! checks each one, and each constant, against those headers with a C compiler. C type
//! mapping: `int` -> `c_int`, `unsigned int` -> `c_uint`, `long` -> `c_long`, `unsigned long`
//! -> `c_ulong`, `size_t` -> `usize`, `uint64_t` -> `u64`, `unsigned char` -> `c_uchar`.
//! Macros in the C API (`OPENSSL_free`, `EVP_PKEY_size`, ...) are not symbols;
//! bind the function they expand to instead (`CRYPTO_free`, `EVP_PKEY_get_size`).
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]
#![allow(missing_docs)]

use core::ffi::{c_char, c_int, c_long, c_uchar, c_uint, c_ulong, c_void};

macro_rules! opaque {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[repr(C)]
        pub struct $name {
            _p: [u8; 0],
            _m: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
        }
    )*};
}

opaque! {
    /// `EVP_CIPHER_CTX`: symmetric cipher context (`EVP_CIPHER_CTX_new`/`_free`).
    EVP_CIPHER_CTX;
    /// `EVP_CIPHER`: cipher method, e.g. from `EVP_aes_256_gcm()` (static, never freed).
    EVP_CIPHER;
    /// `EVP_MD_CTX`: message digest / DigestSign / DigestVerify context.
    EVP_MD_CTX;
    /// `EVP_MD`: digest method, e.g. from `EVP_sha256()` (static, never freed).
    EVP_MD;
    /// `EVP_PKEY`: public or private key (`EVP_PKEY_free`).
    EVP_PKEY;
    /// `EVP_PKEY_CTX`: public key algorithm context (`EVP_PKEY_CTX_free`).
    EVP_PKEY_CTX;
    /// `ENGINE`: legacy engine handle; always pass null.
    ENGINE;
    /// `BIGNUM`: arbitrary-precision integer (`BN_free`).
    BIGNUM;
    /// `BN_CTX`: scratch space for BIGNUM arithmetic (`BN_CTX_new`/`BN_CTX_free`).
    BN_CTX;
    /// `BN_MONT_CTX`: precomputed Montgomery constants; pass null to have them computed.
    BN_MONT_CTX;
    /// `OSSL_PARAM_BLD`: parameter array builder (`OSSL_PARAM_BLD_free`).
    OSSL_PARAM_BLD;
    /// `OSSL_LIB_CTX`: library context; null means the default one.
    OSSL_LIB_CTX;
    /// `OPENSSL_INIT_SETTINGS`: settings for `OPENSSL_init_crypto`; may be null.
    OPENSSL_INIT_SETTINGS;
    /// `EVP_MAC`: MAC algorithm from `EVP_MAC_fetch` (`EVP_MAC_free`).
    EVP_MAC;
    /// `EVP_MAC_CTX`: MAC computation context (`EVP_MAC_CTX_free`).
    EVP_MAC_CTX;
    /// `EVP_KDF`: KDF algorithm from `EVP_KDF_fetch` (`EVP_KDF_free`).
    EVP_KDF;
    /// `EVP_KDF_CTX`: KDF derivation context (`EVP_KDF_CTX_free`).
    EVP_KDF_CTX;
    /// `BIO`: I/O abstraction (memory buffers, BIO pairs; `BIO_free`).
    BIO;
    /// `BIO_METHOD`: BIO type, e.g. from `BIO_s_mem()` (static, never freed).
    BIO_METHOD;
    /// `X509`: certificate (`X509_free`).
    X509;
    /// `X509_NAME`: distinguished name, owned by its certificate when from `X509_get_*_name`.
    X509_NAME;
    /// `ASN1_INTEGER` (`struct asn1_string_st`): e.g. a certificate's serial number.
    ASN1_INTEGER;
    /// `ASN1_TIME` (`struct asn1_string_st`): e.g. a certificate's validity bounds.
    ASN1_TIME;
    /// `SSL_METHOD`: TLS method, e.g. from `TLS_method()` (static, never freed).
    SSL_METHOD;
    /// `SSL_CTX`: TLS context shared by connections (`SSL_CTX_free`).
    SSL_CTX;
    /// `SSL`: one TLS connection (`SSL_free`, which also frees its BIOs).
    SSL;
    /// `OSSL_PROVIDER`: a loaded provider (`OSSL_PROVIDER_unload`).
    OSSL_PROVIDER;
    /// `PKCS12`: a parsed PKCS#12 file (`PKCS12_free`).
    PKCS12;
    /// `STACK_OF(X509)` (`struct stack_st_X509`): a list of certificates.
    stack_st_X509;
    /// `OPENSSL_STACK`: the untyped stack behind every `STACK_OF(T)` (`OPENSSL_sk_free`).
    OPENSSL_STACK;
    /// `CMS_ContentInfo`: a CMS (PKCS#7) structure (`CMS_ContentInfo_free`).
    CMS_ContentInfo;
    /// `X509_STORE`: trusted certificates for verification; null where trust is not checked.
    X509_STORE;
}

/// `OSSL_PARAM` (`struct ossl_param_st`, core.h): one element of a parameter array; an
/// array ends with an element whose `key` is null (`OSSL_PARAM_construct_end()`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct OSSL_PARAM {
    /// Name of the parameter (NUL-terminated).
    pub key: *const c_char,
    /// One of the `OSSL_PARAM_*` data types (`OSSL_PARAM_INTEGER`, ...).
    pub data_type: c_uint,
    /// The value being passed in or out.
    pub data: *mut c_void,
    /// Size of the buffer `data` points to.
    pub data_size: usize,
    /// Size of the returned content (`OSSL_PARAM_UNMODIFIED` if untouched).
    pub return_size: usize,
}

/// `pem_password_cb` (pem.h): supplies a passphrase; writes at most `size` bytes to `buf` and
/// returns their number, or -1 on error. `rwflag` is 1 when encrypting (writing).
pub type pem_password_cb = unsafe extern "C" fn(
    buf: *mut c_char,
    size: c_int,
    rwflag: c_int,
    userdata: *mut c_void,
) -> c_int;

// ---- crypto.h: `OpenSSL_version` types ----
pub const OPENSSL_VERSION: c_int = 0;
pub const OPENSSL_CFLAGS: c_int = 1;
pub const OPENSSL_BUILT_ON: c_int = 2;
pub const OPENSSL_PLATFORM: c_int = 3;
pub const OPENSSL_DIR: c_int = 4;
pub const OPENSSL_ENGINES_DIR: c_int = 5;
pub const OPENSSL_VERSION_STRING: c_int = 6;
pub const OPENSSL_FULL_VERSION_STRING: c_int = 7;
pub const OPENSSL_MODULES_DIR: c_int = 8;

// ---- crypto.h: `OPENSSL_init_crypto` options (uint64_t) ----
pub const OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS: u64 = 0x0000_0001;
pub const OPENSSL_INIT_LOAD_CRYPTO_STRINGS: u64 = 0x0000_0002;
pub const OPENSSL_INIT_ADD_ALL_CIPHERS: u64 = 0x0000_0004;
pub const OPENSSL_INIT_ADD_ALL_DIGESTS: u64 = 0x0000_0008;
pub const OPENSSL_INIT_NO_ADD_ALL_CIPHERS: u64 = 0x0000_0010;
pub const OPENSSL_INIT_NO_ADD_ALL_DIGESTS: u64 = 0x0000_0020;
pub const OPENSSL_INIT_LOAD_CONFIG: u64 = 0x0000_0040;
pub const OPENSSL_INIT_NO_LOAD_CONFIG: u64 = 0x0000_0080;

// ---- evp.h: sizes ----
pub const EVP_MAX_MD_SIZE: usize = 64;
pub const EVP_MAX_KEY_LENGTH: usize = 64;
pub const EVP_MAX_IV_LENGTH: usize = 16;
pub const EVP_GCM_TLS_TAG_LEN: usize = 16;
pub const EVP_CHACHAPOLY_TLS_TAG_LEN: usize = 16;

// ---- evp.h: `EVP_CIPHER_CTX_ctrl` commands for AEAD modes ----
pub const EVP_CTRL_AEAD_SET_IVLEN: c_int = 0x9;
pub const EVP_CTRL_AEAD_GET_TAG: c_int = 0x10;
pub const EVP_CTRL_AEAD_SET_TAG: c_int = 0x11;
pub const EVP_CTRL_AEAD_SET_IV_FIXED: c_int = 0x12;
pub const EVP_CTRL_GCM_SET_IVLEN: c_int = EVP_CTRL_AEAD_SET_IVLEN;
pub const EVP_CTRL_GCM_GET_TAG: c_int = EVP_CTRL_AEAD_GET_TAG;
pub const EVP_CTRL_GCM_SET_TAG: c_int = EVP_CTRL_AEAD_SET_TAG;

// ---- core_dispatch.h / evp.h: key selections for `EVP_PKEY_fromdata` ----
pub const OSSL_KEYMGMT_SELECT_PRIVATE_KEY: c_int = 0x01;
pub const OSSL_KEYMGMT_SELECT_PUBLIC_KEY: c_int = 0x02;
pub const OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS: c_int = 0x04;
pub const OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS: c_int = 0x80;
/// `EVP_PKEY_KEY_PARAMETERS` = `OSSL_KEYMGMT_SELECT_ALL_PARAMETERS` = 0x84.
pub const EVP_PKEY_KEY_PARAMETERS: c_int =
    OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS;
/// 0x85.
pub const EVP_PKEY_PRIVATE_KEY: c_int = EVP_PKEY_KEY_PARAMETERS | OSSL_KEYMGMT_SELECT_PRIVATE_KEY;
/// 0x86.
pub const EVP_PKEY_PUBLIC_KEY: c_int = EVP_PKEY_KEY_PARAMETERS | OSSL_KEYMGMT_SELECT_PUBLIC_KEY;
/// 0x87.
pub const EVP_PKEY_KEYPAIR: c_int = EVP_PKEY_PUBLIC_KEY | OSSL_KEYMGMT_SELECT_PRIVATE_KEY;

// ---- evp.h / obj_mac.h: key type ids (for `d2i_PrivateKey`) ----
/// `EVP_PKEY_RSA` = `NID_rsaEncryption`.
pub const EVP_PKEY_RSA: c_int = 6;

// ---- rsa.h: padding modes (for `EVP_PKEY_CTX_set_rsa_padding`) ----
pub const RSA_PKCS1_PADDING: c_int = 1;
pub const RSA_NO_PADDING: c_int = 3;
pub const RSA_PKCS1_OAEP_PADDING: c_int = 4;
pub const RSA_PKCS1_PSS_PADDING: c_int = 6;

// ---- core_names.h: RSA `OSSL_PARAM` key names (NUL-terminated) ----
pub const OSSL_PKEY_PARAM_RSA_N: &core::ffi::CStr = c"n";
pub const OSSL_PKEY_PARAM_RSA_E: &core::ffi::CStr = c"e";
pub const OSSL_PKEY_PARAM_RSA_D: &core::ffi::CStr = c"d";
pub const OSSL_PKEY_PARAM_RSA_FACTOR1: &core::ffi::CStr = c"rsa-factor1";
pub const OSSL_PKEY_PARAM_RSA_FACTOR2: &core::ffi::CStr = c"rsa-factor2";
pub const OSSL_PKEY_PARAM_RSA_EXPONENT1: &core::ffi::CStr = c"rsa-exponent1";
pub const OSSL_PKEY_PARAM_RSA_EXPONENT2: &core::ffi::CStr = c"rsa-exponent2";
pub const OSSL_PKEY_PARAM_RSA_COEFFICIENT1: &core::ffi::CStr = c"rsa-coefficient1";

// ---- evp.h: more sizes ----
pub const EVP_MAX_BLOCK_LENGTH: usize = 32;

// ---- obj_mac.h: object ids ----
pub const NID_undef: c_int = 0;
pub const NID_rsaEncryption: c_int = 6;
pub const NID_commonName: c_int = 13;
pub const NID_X9_62_id_ecPublicKey: c_int = 408;
pub const NID_secp224r1: c_int = 713;
pub const NID_X9_62_prime256v1: c_int = 415;
pub const NID_secp384r1: c_int = 715;
pub const NID_secp521r1: c_int = 716;
pub const NID_X25519: c_int = 1034;
pub const NID_X448: c_int = 1035;
pub const NID_ED25519: c_int = 1087;
pub const NID_ED448: c_int = 1088;

// ---- evp.h: more key type ids (`EVP_PKEY_CTX_new_id`, `EVP_PKEY_new_raw_*_key`) ----
/// `EVP_PKEY_EC` = `NID_X9_62_id_ecPublicKey`.
pub const EVP_PKEY_EC: c_int = NID_X9_62_id_ecPublicKey;
/// `EVP_PKEY_X25519` = `NID_X25519`.
pub const EVP_PKEY_X25519: c_int = NID_X25519;
/// `EVP_PKEY_ED25519` = `NID_ED25519`.
pub const EVP_PKEY_ED25519: c_int = NID_ED25519;
/// `EVP_PKEY_X448` = `NID_X448`.
pub const EVP_PKEY_X448: c_int = NID_X448;
/// `EVP_PKEY_ED448` = `NID_ED448`.
pub const EVP_PKEY_ED448: c_int = NID_ED448;

// ---- core.h / params.h: `OSSL_PARAM` data types ----
pub const OSSL_PARAM_INTEGER: c_uint = 1;
pub const OSSL_PARAM_UNSIGNED_INTEGER: c_uint = 2;
pub const OSSL_PARAM_REAL: c_uint = 3;
pub const OSSL_PARAM_UTF8_STRING: c_uint = 4;
pub const OSSL_PARAM_OCTET_STRING: c_uint = 5;
pub const OSSL_PARAM_UTF8_PTR: c_uint = 6;
pub const OSSL_PARAM_OCTET_PTR: c_uint = 7;
/// `return_size` of a parameter nothing was written to: `(size_t)-1`.
pub const OSSL_PARAM_UNMODIFIED: usize = usize::MAX;

// ---- core_names.h: algorithm and parameter names (NUL-terminated) ----
pub const OSSL_MAC_NAME_HMAC: &core::ffi::CStr = c"HMAC";
pub const OSSL_KDF_NAME_HKDF: &core::ffi::CStr = c"HKDF";
pub const OSSL_DIGEST_NAME_SHA2_256: &core::ffi::CStr = c"SHA2-256";
pub const OSSL_MAC_PARAM_DIGEST: &core::ffi::CStr = c"digest";
pub const OSSL_KDF_PARAM_DIGEST: &core::ffi::CStr = c"digest";
pub const OSSL_KDF_PARAM_KEY: &core::ffi::CStr = c"key";
pub const OSSL_KDF_PARAM_SALT: &core::ffi::CStr = c"salt";
pub const OSSL_KDF_PARAM_INFO: &core::ffi::CStr = c"info";
pub const OSSL_KDF_PARAM_MODE: &core::ffi::CStr = c"mode";
pub const OSSL_PKEY_PARAM_GROUP_NAME: &core::ffi::CStr = c"group";
/// The public key; for EC an encoded point (octet string).
pub const OSSL_PKEY_PARAM_PUB_KEY: &core::ffi::CStr = c"pub";
/// The private key; for EC the scalar as an unsigned integer (`OSSL_PARAM_BLD_push_BN`).
pub const OSSL_PKEY_PARAM_PRIV_KEY: &core::ffi::CStr = c"priv";

// ---- asn1.h: string types for `X509_NAME_add_entry_by_txt` ----
pub const MBSTRING_FLAG: c_int = 0x1000;
pub const MBSTRING_UTF8: c_int = MBSTRING_FLAG;
pub const MBSTRING_ASC: c_int = MBSTRING_FLAG | 1;

// ---- cms.h: flags ----
/// Content is binary: no MIME canonical line endings.
pub const CMS_BINARY: c_uint = 0x80;
/// Do not verify the signer's certificate chain (the tests check the signature only).
pub const CMS_NO_SIGNER_CERT_VERIFY: c_uint = 0x20;
/// Sign without embedding the content; verification is given it separately.
pub const CMS_DETACHED: c_uint = 0x40;

// ---- x509.h: `X509_set_version` values ----
pub const X509_VERSION_1: c_long = 0;
pub const X509_VERSION_2: c_long = 1;
pub const X509_VERSION_3: c_long = 2;

// ---- bio.h: `BIO_ctrl` commands ----
pub const BIO_CTRL_RESET: c_int = 1;
/// `BIO_get_mem_data(b, pp)` is `BIO_ctrl(b, BIO_CTRL_INFO, 0, pp)`.
pub const BIO_CTRL_INFO: c_int = 3;
pub const BIO_CTRL_PENDING: c_int = 10;

// ---- ssl.h: `OPENSSL_init_ssl` options (uint64_t) ----
pub const OPENSSL_INIT_NO_LOAD_SSL_STRINGS: u64 = 0x0010_0000;
pub const OPENSSL_INIT_LOAD_SSL_STRINGS: u64 = 0x0020_0000;

// ---- prov_ssl.h: protocol versions ----
pub const TLS1_VERSION: c_int = 0x0301;
pub const TLS1_1_VERSION: c_int = 0x0302;
pub const TLS1_2_VERSION: c_int = 0x0303;
pub const TLS1_3_VERSION: c_int = 0x0304;

// ---- ssl.h: `SSL_CTX_ctrl` / `SSL_ctrl` commands ----
pub const SSL_CTRL_SET_MIN_PROTO_VERSION: c_int = 123;
pub const SSL_CTRL_SET_MAX_PROTO_VERSION: c_int = 124;
pub const SSL_CTRL_GET_MIN_PROTO_VERSION: c_int = 130;
pub const SSL_CTRL_GET_MAX_PROTO_VERSION: c_int = 131;

// ---- ssl.h: verify modes, file types ----
pub const SSL_VERIFY_NONE: c_int = 0x00;
pub const SSL_VERIFY_PEER: c_int = 0x01;
pub const SSL_FILETYPE_PEM: c_int = 1;
pub const SSL_FILETYPE_ASN1: c_int = 2;

// ---- ssl.h: `SSL_get_error` results ----
pub const SSL_ERROR_NONE: c_int = 0;
pub const SSL_ERROR_SSL: c_int = 1;
pub const SSL_ERROR_WANT_READ: c_int = 2;
pub const SSL_ERROR_WANT_WRITE: c_int = 3;
pub const SSL_ERROR_WANT_X509_LOOKUP: c_int = 4;
pub const SSL_ERROR_SYSCALL: c_int = 5;
pub const SSL_ERROR_ZERO_RETURN: c_int = 6;
pub const SSL_ERROR_WANT_CONNECT: c_int = 7;
pub const SSL_ERROR_WANT_ACCEPT: c_int = 8;
pub const SSL_ERROR_WANT_ASYNC: c_int = 9;
pub const SSL_ERROR_WANT_ASYNC_JOB: c_int = 10;
pub const SSL_ERROR_WANT_CLIENT_HELLO_CB: c_int = 11;
pub const SSL_ERROR_WANT_RETRY_VERIFY: c_int = 12;

prefixed_extern! {
    // ---- crypto.h ----
    pub fn OpenSSL_version_num() -> c_ulong;
    pub fn OpenSSL_version(type_: c_int) -> *const c_char;
    pub fn OPENSSL_init_crypto(opts: u64, settings: *const OPENSSL_INIT_SETTINGS) -> c_int;
    /// What the `OPENSSL_free(ptr)` macro expands to (`file` may be null, `line` 0).
    pub fn CRYPTO_free(ptr: *mut c_void, file: *const c_char, line: c_int);
    pub fn OPENSSL_cleanse(ptr: *mut c_void, len: usize);

    // ---- err.h ----
    pub fn ERR_get_error() -> c_ulong;
    pub fn ERR_peek_error() -> c_ulong;
    pub fn ERR_error_string_n(e: c_ulong, buf: *mut c_char, len: usize);
    pub fn ERR_clear_error();

    // ---- rand.h ----
    pub fn RAND_bytes(buf: *mut c_uchar, num: c_int) -> c_int;

    // ---- evp.h: cipher contexts ----
    pub fn EVP_CIPHER_CTX_new() -> *mut EVP_CIPHER_CTX;
    pub fn EVP_CIPHER_CTX_reset(c: *mut EVP_CIPHER_CTX) -> c_int;
    pub fn EVP_CIPHER_CTX_free(c: *mut EVP_CIPHER_CTX);
    pub fn EVP_CIPHER_CTX_set_padding(c: *mut EVP_CIPHER_CTX, pad: c_int) -> c_int;
    pub fn EVP_CIPHER_CTX_ctrl(
        ctx: *mut EVP_CIPHER_CTX,
        type_: c_int,
        arg: c_int,
        ptr: *mut c_void,
    ) -> c_int;
    pub fn EVP_CIPHER_get_key_length(cipher: *const EVP_CIPHER) -> c_int;
    pub fn EVP_CIPHER_get_iv_length(cipher: *const EVP_CIPHER) -> c_int;

    // ---- evp.h: AEAD ciphers ----
    pub fn EVP_aes_128_gcm() -> *const EVP_CIPHER;
    pub fn EVP_aes_192_gcm() -> *const EVP_CIPHER;
    pub fn EVP_aes_256_gcm() -> *const EVP_CIPHER;
    pub fn EVP_chacha20_poly1305() -> *const EVP_CIPHER;

    // ---- evp.h: encrypt / decrypt ----
    pub fn EVP_EncryptInit_ex(
        ctx: *mut EVP_CIPHER_CTX,
        cipher: *const EVP_CIPHER,
        impl_: *mut ENGINE,
        key: *const c_uchar,
        iv: *const c_uchar,
    ) -> c_int;
    pub fn EVP_EncryptUpdate(
        ctx: *mut EVP_CIPHER_CTX,
        out: *mut c_uchar,
        outl: *mut c_int,
        in_: *const c_uchar,
        inl: c_int,
    ) -> c_int;
    pub fn EVP_EncryptFinal_ex(
        ctx: *mut EVP_CIPHER_CTX,
        out: *mut c_uchar,
        outl: *mut c_int,
    ) -> c_int;
    pub fn EVP_DecryptInit_ex(
        ctx: *mut EVP_CIPHER_CTX,
        cipher: *const EVP_CIPHER,
        impl_: *mut ENGINE,
        key: *const c_uchar,
        iv: *const c_uchar,
    ) -> c_int;
    pub fn EVP_DecryptUpdate(
        ctx: *mut EVP_CIPHER_CTX,
        out: *mut c_uchar,
        outl: *mut c_int,
        in_: *const c_uchar,
        inl: c_int,
    ) -> c_int;
    pub fn EVP_DecryptFinal_ex(
        ctx: *mut EVP_CIPHER_CTX,
        outm: *mut c_uchar,
        outl: *mut c_int,
    ) -> c_int;
    pub fn EVP_CipherInit_ex(
        ctx: *mut EVP_CIPHER_CTX,
        cipher: *const EVP_CIPHER,
        impl_: *mut ENGINE,
        key: *const c_uchar,
        iv: *const c_uchar,
        enc: c_int,
    ) -> c_int;
    pub fn EVP_CipherUpdate(
        ctx: *mut EVP_CIPHER_CTX,
        out: *mut c_uchar,
        outl: *mut c_int,
        in_: *const c_uchar,
        inl: c_int,
    ) -> c_int;
    pub fn EVP_CipherFinal_ex(
        ctx: *mut EVP_CIPHER_CTX,
        outm: *mut c_uchar,
        outl: *mut c_int,
    ) -> c_int;

    // ---- evp.h: digests ----
    pub fn EVP_sha1() -> *const EVP_MD;
    pub fn EVP_sha224() -> *const EVP_MD;
    pub fn EVP_sha256() -> *const EVP_MD;
    pub fn EVP_sha384() -> *const EVP_MD;
    pub fn EVP_sha512() -> *const EVP_MD;
    pub fn EVP_MD_get_size(md: *const EVP_MD) -> c_int;
    pub fn EVP_MD_CTX_new() -> *mut EVP_MD_CTX;
    pub fn EVP_MD_CTX_reset(ctx: *mut EVP_MD_CTX) -> c_int;
    pub fn EVP_MD_CTX_free(ctx: *mut EVP_MD_CTX);
    pub fn EVP_DigestInit_ex(
        ctx: *mut EVP_MD_CTX,
        type_: *const EVP_MD,
        impl_: *mut ENGINE,
    ) -> c_int;
    pub fn EVP_DigestUpdate(ctx: *mut EVP_MD_CTX, d: *const c_void, cnt: usize) -> c_int;
    pub fn EVP_DigestFinal_ex(ctx: *mut EVP_MD_CTX, md: *mut c_uchar, s: *mut c_uint) -> c_int;
    pub fn EVP_Digest(
        data: *const c_void,
        count: usize,
        md: *mut c_uchar,
        size: *mut c_uint,
        type_: *const EVP_MD,
        impl_: *mut ENGINE,
    ) -> c_int;

    // ---- evp.h: signatures ----
    pub fn EVP_DigestSignInit(
        ctx: *mut EVP_MD_CTX,
        pctx: *mut *mut EVP_PKEY_CTX,
        type_: *const EVP_MD,
        e: *mut ENGINE,
        pkey: *mut EVP_PKEY,
    ) -> c_int;
    pub fn EVP_DigestSignUpdate(ctx: *mut EVP_MD_CTX, data: *const c_void, dsize: usize) -> c_int;
    pub fn EVP_DigestSignFinal(
        ctx: *mut EVP_MD_CTX,
        sigret: *mut c_uchar,
        siglen: *mut usize,
    ) -> c_int;
    pub fn EVP_DigestSign(
        ctx: *mut EVP_MD_CTX,
        sigret: *mut c_uchar,
        siglen: *mut usize,
        tbs: *const c_uchar,
        tbslen: usize,
    ) -> c_int;
    pub fn EVP_DigestVerifyInit(
        ctx: *mut EVP_MD_CTX,
        pctx: *mut *mut EVP_PKEY_CTX,
        type_: *const EVP_MD,
        e: *mut ENGINE,
        pkey: *mut EVP_PKEY,
    ) -> c_int;
    pub fn EVP_DigestVerifyUpdate(ctx: *mut EVP_MD_CTX, data: *const c_void, dsize: usize)
        -> c_int;
    pub fn EVP_DigestVerifyFinal(ctx: *mut EVP_MD_CTX, sig: *const c_uchar, siglen: usize)
        -> c_int;
    pub fn EVP_DigestVerify(
        ctx: *mut EVP_MD_CTX,
        sigret: *const c_uchar,
        siglen: usize,
        tbs: *const c_uchar,
        tbslen: usize,
    ) -> c_int;

    // ---- evp.h: keys ----
    pub fn EVP_PKEY_up_ref(pkey: *mut EVP_PKEY) -> c_int;
    pub fn EVP_PKEY_free(pkey: *mut EVP_PKEY);
    pub fn EVP_PKEY_get_bits(pkey: *const EVP_PKEY) -> c_int;
    pub fn EVP_PKEY_get_size(pkey: *const EVP_PKEY) -> c_int;
    pub fn d2i_PrivateKey(
        type_: c_int,
        a: *mut *mut EVP_PKEY,
        pp: *mut *const c_uchar,
        length: c_long,
    ) -> *mut EVP_PKEY;
    pub fn d2i_AutoPrivateKey(
        a: *mut *mut EVP_PKEY,
        pp: *mut *const c_uchar,
        length: c_long,
    ) -> *mut EVP_PKEY;
    pub fn i2d_PrivateKey(a: *const EVP_PKEY, pp: *mut *mut c_uchar) -> c_int;
    // x509.h: DECLARE_ASN1_ENCODE_FUNCTIONS_only(EVP_PKEY, PUBKEY)
    pub fn d2i_PUBKEY(
        a: *mut *mut EVP_PKEY,
        in_: *mut *const c_uchar,
        len: c_long,
    ) -> *mut EVP_PKEY;
    pub fn i2d_PUBKEY(a: *const EVP_PKEY, out: *mut *mut c_uchar) -> c_int;

    // ---- evp.h: key contexts and import from parameters ----
    pub fn EVP_PKEY_CTX_new(pkey: *mut EVP_PKEY, e: *mut ENGINE) -> *mut EVP_PKEY_CTX;
    pub fn EVP_PKEY_CTX_new_from_name(
        libctx: *mut OSSL_LIB_CTX,
        name: *const c_char,
        propquery: *const c_char,
    ) -> *mut EVP_PKEY_CTX;
    pub fn EVP_PKEY_CTX_free(ctx: *mut EVP_PKEY_CTX);
    pub fn EVP_PKEY_fromdata_init(ctx: *mut EVP_PKEY_CTX) -> c_int;
    pub fn EVP_PKEY_fromdata(
        ctx: *mut EVP_PKEY_CTX,
        ppkey: *mut *mut EVP_PKEY,
        selection: c_int,
        param: *mut OSSL_PARAM,
    ) -> c_int;
    // rsa.h
    pub fn EVP_PKEY_CTX_set_rsa_padding(ctx: *mut EVP_PKEY_CTX, pad_mode: c_int) -> c_int;
    pub fn EVP_PKEY_CTX_set_signature_md(ctx: *mut EVP_PKEY_CTX, md: *const EVP_MD) -> c_int;

    // ---- bn.h ----
    pub fn BN_new() -> *mut BIGNUM;
    pub fn BN_free(a: *mut BIGNUM);
    pub fn BN_clear_free(a: *mut BIGNUM);
    pub fn BN_bin2bn(s: *const c_uchar, len: c_int, ret: *mut BIGNUM) -> *mut BIGNUM;
    pub fn BN_bn2bin(a: *const BIGNUM, to: *mut c_uchar) -> c_int;
    pub fn BN_bn2binpad(a: *const BIGNUM, to: *mut c_uchar, tolen: c_int) -> c_int;
    pub fn BN_num_bits(a: *const BIGNUM) -> c_int;
    pub fn BN_cmp(a: *const BIGNUM, b: *const BIGNUM) -> c_int;
    pub fn BN_CTX_new() -> *mut BN_CTX;
    pub fn BN_CTX_free(c: *mut BN_CTX);
    pub fn BN_mod_exp(
        r: *mut BIGNUM,
        a: *const BIGNUM,
        p: *const BIGNUM,
        m: *const BIGNUM,
        ctx: *mut BN_CTX,
    ) -> c_int;
    /// Two exponentiations at once; RSA's CRT calls it, and it is where the RSAZ AVX-512
    /// and AVX-IFMA code runs (1024-, 1536- and 2048-bit moduli, full-width operands).
    pub fn BN_mod_exp_mont_consttime_x2(
        rr1: *mut BIGNUM,
        a1: *const BIGNUM,
        p1: *const BIGNUM,
        m1: *const BIGNUM,
        in_mont1: *mut BN_MONT_CTX,
        rr2: *mut BIGNUM,
        a2: *const BIGNUM,
        p2: *const BIGNUM,
        m2: *const BIGNUM,
        in_mont2: *mut BN_MONT_CTX,
        ctx: *mut BN_CTX,
    ) -> c_int;

    // ---- param_build.h / params.h ----
    pub fn OSSL_PARAM_BLD_new() -> *mut OSSL_PARAM_BLD;
    pub fn OSSL_PARAM_BLD_to_param(bld: *mut OSSL_PARAM_BLD) -> *mut OSSL_PARAM;
    pub fn OSSL_PARAM_BLD_free(bld: *mut OSSL_PARAM_BLD);
    pub fn OSSL_PARAM_BLD_push_int(
        bld: *mut OSSL_PARAM_BLD,
        key: *const c_char,
        val: c_int,
    ) -> c_int;
    pub fn OSSL_PARAM_BLD_push_BN(
        bld: *mut OSSL_PARAM_BLD,
        key: *const c_char,
        bn: *const BIGNUM,
    ) -> c_int;
    pub fn OSSL_PARAM_BLD_push_utf8_string(
        bld: *mut OSSL_PARAM_BLD,
        key: *const c_char,
        buf: *const c_char,
        bsize: usize,
    ) -> c_int;
    pub fn OSSL_PARAM_BLD_push_octet_string(
        bld: *mut OSSL_PARAM_BLD,
        key: *const c_char,
        buf: *const c_void,
        bsize: usize,
    ) -> c_int;
    pub fn OSSL_PARAM_free(p: *mut OSSL_PARAM);
}

prefixed_extern! {
    // ---- rand.h ----
    pub fn RAND_priv_bytes(buf: *mut c_uchar, num: c_int) -> c_int;

    // ---- evp.h: more ciphers ----
    pub fn EVP_aes_128_cbc() -> *const EVP_CIPHER;
    pub fn EVP_aes_256_cbc() -> *const EVP_CIPHER;
    pub fn EVP_aes_128_ctr() -> *const EVP_CIPHER;
    pub fn EVP_aes_256_ctr() -> *const EVP_CIPHER;
    pub fn EVP_aes_128_xts() -> *const EVP_CIPHER;
    pub fn EVP_aes_256_xts() -> *const EVP_CIPHER;
    pub fn EVP_aes_128_cfb128() -> *const EVP_CIPHER;
    pub fn EVP_aes_192_cfb128() -> *const EVP_CIPHER;
    pub fn EVP_aes_256_cfb128() -> *const EVP_CIPHER;
    /// Returns a new reference; release it with `EVP_CIPHER_free`.
    pub fn EVP_CIPHER_fetch(
        ctx: *mut OSSL_LIB_CTX,
        algorithm: *const c_char,
        properties: *const c_char,
    ) -> *mut EVP_CIPHER;
    pub fn EVP_CIPHER_free(cipher: *mut EVP_CIPHER);
    pub fn EVP_CIPHER_get_block_size(cipher: *const EVP_CIPHER) -> c_int;
    pub fn EVP_CIPHER_CTX_get_block_size(ctx: *const EVP_CIPHER_CTX) -> c_int;
    /// `params` is an `OSSL_PARAM` array ending with `OSSL_PARAM_construct_end()`, or null.
    pub fn EVP_CipherInit_ex2(
        ctx: *mut EVP_CIPHER_CTX,
        cipher: *const EVP_CIPHER,
        key: *const c_uchar,
        iv: *const c_uchar,
        enc: c_int,
        params: *const OSSL_PARAM,
    ) -> c_int;
    pub fn EVP_EncryptInit_ex2(
        ctx: *mut EVP_CIPHER_CTX,
        cipher: *const EVP_CIPHER,
        key: *const c_uchar,
        iv: *const c_uchar,
        params: *const OSSL_PARAM,
    ) -> c_int;
    pub fn EVP_DecryptInit_ex2(
        ctx: *mut EVP_CIPHER_CTX,
        cipher: *const EVP_CIPHER,
        key: *const c_uchar,
        iv: *const c_uchar,
        params: *const OSSL_PARAM,
    ) -> c_int;

    // ---- evp.h: more digests ----
    pub fn EVP_sha3_224() -> *const EVP_MD;
    pub fn EVP_sha3_256() -> *const EVP_MD;
    pub fn EVP_sha3_384() -> *const EVP_MD;
    pub fn EVP_sha3_512() -> *const EVP_MD;
    /// XOFs: finish with `EVP_DigestFinalXOF`, which takes the output length.
    pub fn EVP_shake128() -> *const EVP_MD;
    pub fn EVP_shake256() -> *const EVP_MD;
    pub fn EVP_DigestFinalXOF(ctx: *mut EVP_MD_CTX, out: *mut c_uchar, outlen: usize) -> c_int;
    /// Returns a new reference; release it with `EVP_MD_free`.
    pub fn EVP_MD_fetch(
        ctx: *mut OSSL_LIB_CTX,
        algorithm: *const c_char,
        properties: *const c_char,
    ) -> *mut EVP_MD;
    pub fn EVP_MD_free(md: *mut EVP_MD);
    pub fn EVP_MD_get_block_size(md: *const EVP_MD) -> c_int;
    pub fn EVP_DigestInit_ex2(
        ctx: *mut EVP_MD_CTX,
        type_: *const EVP_MD,
        params: *const OSSL_PARAM,
    ) -> c_int;

    // ---- evp.h: EVP_MAC ----
    pub fn EVP_MAC_fetch(
        libctx: *mut OSSL_LIB_CTX,
        algorithm: *const c_char,
        properties: *const c_char,
    ) -> *mut EVP_MAC;
    pub fn EVP_MAC_free(mac: *mut EVP_MAC);
    pub fn EVP_MAC_CTX_new(mac: *mut EVP_MAC) -> *mut EVP_MAC_CTX;
    pub fn EVP_MAC_CTX_free(ctx: *mut EVP_MAC_CTX);
    pub fn EVP_MAC_CTX_get_mac_size(ctx: *mut EVP_MAC_CTX) -> usize;
    pub fn EVP_MAC_init(
        ctx: *mut EVP_MAC_CTX,
        key: *const c_uchar,
        keylen: usize,
        params: *const OSSL_PARAM,
    ) -> c_int;
    pub fn EVP_MAC_update(ctx: *mut EVP_MAC_CTX, data: *const c_uchar, datalen: usize) -> c_int;
    pub fn EVP_MAC_final(
        ctx: *mut EVP_MAC_CTX,
        out: *mut c_uchar,
        outl: *mut usize,
        outsize: usize,
    ) -> c_int;

    // ---- kdf.h: EVP_KDF ----
    pub fn EVP_KDF_fetch(
        libctx: *mut OSSL_LIB_CTX,
        algorithm: *const c_char,
        properties: *const c_char,
    ) -> *mut EVP_KDF;
    pub fn EVP_KDF_free(kdf: *mut EVP_KDF);
    pub fn EVP_KDF_CTX_new(kdf: *mut EVP_KDF) -> *mut EVP_KDF_CTX;
    pub fn EVP_KDF_CTX_free(ctx: *mut EVP_KDF_CTX);
    pub fn EVP_KDF_derive(
        ctx: *mut EVP_KDF_CTX,
        key: *mut c_uchar,
        keylen: usize,
        params: *const OSSL_PARAM,
    ) -> c_int;

    // ---- params.h: `OSSL_PARAM` constructors (the result points at `key` and `buf`) ----
    pub fn OSSL_PARAM_construct_int(key: *const c_char, buf: *mut c_int) -> OSSL_PARAM;
    pub fn OSSL_PARAM_construct_uint(key: *const c_char, buf: *mut c_uint) -> OSSL_PARAM;
    pub fn OSSL_PARAM_construct_size_t(key: *const c_char, buf: *mut usize) -> OSSL_PARAM;
    pub fn OSSL_PARAM_construct_utf8_string(
        key: *const c_char,
        buf: *mut c_char,
        bsize: usize,
    ) -> OSSL_PARAM;
    pub fn OSSL_PARAM_construct_octet_string(
        key: *const c_char,
        buf: *mut c_void,
        bsize: usize,
    ) -> OSSL_PARAM;
    pub fn OSSL_PARAM_construct_end() -> OSSL_PARAM;

    // ---- evp.h: key objects ----
    pub fn EVP_PKEY_new() -> *mut EVP_PKEY;
    pub fn EVP_PKEY_get_id(pkey: *const EVP_PKEY) -> c_int;
    pub fn EVP_PKEY_eq(a: *const EVP_PKEY, b: *const EVP_PKEY) -> c_int;
    pub fn EVP_PKEY_new_raw_private_key(
        type_: c_int,
        e: *mut ENGINE,
        priv_: *const c_uchar,
        len: usize,
    ) -> *mut EVP_PKEY;
    pub fn EVP_PKEY_new_raw_public_key(
        type_: c_int,
        e: *mut ENGINE,
        pub_: *const c_uchar,
        len: usize,
    ) -> *mut EVP_PKEY;
    pub fn EVP_PKEY_get_raw_private_key(
        pkey: *const EVP_PKEY,
        priv_: *mut c_uchar,
        len: *mut usize,
    ) -> c_int;
    pub fn EVP_PKEY_get_raw_public_key(
        pkey: *const EVP_PKEY,
        pub_: *mut c_uchar,
        len: *mut usize,
    ) -> c_int;

    // ---- evp.h / rsa.h / ec.h: key generation ----
    pub fn EVP_PKEY_CTX_new_id(id: c_int, e: *mut ENGINE) -> *mut EVP_PKEY_CTX;
    pub fn EVP_PKEY_paramgen_init(ctx: *mut EVP_PKEY_CTX) -> c_int;
    pub fn EVP_PKEY_keygen_init(ctx: *mut EVP_PKEY_CTX) -> c_int;
    pub fn EVP_PKEY_keygen(ctx: *mut EVP_PKEY_CTX, ppkey: *mut *mut EVP_PKEY) -> c_int;
    pub fn EVP_PKEY_generate(ctx: *mut EVP_PKEY_CTX, ppkey: *mut *mut EVP_PKEY) -> c_int;
    pub fn EVP_PKEY_CTX_set_rsa_keygen_bits(ctx: *mut EVP_PKEY_CTX, bits: c_int) -> c_int;
    pub fn EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx: *mut EVP_PKEY_CTX, nid: c_int) -> c_int;

    // ---- evp.h: one-shot sign / verify on a key context ----
    pub fn EVP_PKEY_sign_init(ctx: *mut EVP_PKEY_CTX) -> c_int;
    pub fn EVP_PKEY_sign(
        ctx: *mut EVP_PKEY_CTX,
        sig: *mut c_uchar,
        siglen: *mut usize,
        tbs: *const c_uchar,
        tbslen: usize,
    ) -> c_int;
    pub fn EVP_PKEY_verify_init(ctx: *mut EVP_PKEY_CTX) -> c_int;
    pub fn EVP_PKEY_verify(
        ctx: *mut EVP_PKEY_CTX,
        sig: *const c_uchar,
        siglen: usize,
        tbs: *const c_uchar,
        tbslen: usize,
    ) -> c_int;

    // ---- evp.h: key agreement ----
    pub fn EVP_PKEY_derive_init(ctx: *mut EVP_PKEY_CTX) -> c_int;
    pub fn EVP_PKEY_derive_set_peer(ctx: *mut EVP_PKEY_CTX, peer: *mut EVP_PKEY) -> c_int;
    pub fn EVP_PKEY_derive(ctx: *mut EVP_PKEY_CTX, key: *mut c_uchar, keylen: *mut usize) -> c_int;

    // ---- bio.h ----
    pub fn BIO_new(type_: *const BIO_METHOD) -> *mut BIO;
    pub fn BIO_s_mem() -> *const BIO_METHOD;
    /// A read-only memory BIO over `buf` (not copied: `buf` must outlive the BIO);
    /// `len` -1 means `strlen(buf)`.
    pub fn BIO_new_mem_buf(buf: *const c_void, len: c_int) -> *mut BIO;
    pub fn BIO_free(a: *mut BIO) -> c_int;
    pub fn BIO_free_all(a: *mut BIO);
    pub fn BIO_read(b: *mut BIO, data: *mut c_void, dlen: c_int) -> c_int;
    pub fn BIO_write(b: *mut BIO, data: *const c_void, dlen: c_int) -> c_int;
    pub fn BIO_ctrl(bp: *mut BIO, cmd: c_int, larg: c_long, parg: *mut c_void) -> c_long;
    pub fn BIO_ctrl_pending(b: *mut BIO) -> usize;
    /// Two connected BIOs: what is written to one is read from the other (0 = default size).
    pub fn BIO_new_bio_pair(
        bio1: *mut *mut BIO,
        writebuf1: usize,
        bio2: *mut *mut BIO,
        writebuf2: usize,
    ) -> c_int;

    // ---- pem.h (`DECLARE_PEM_rw*` expansions) ----
    pub fn PEM_read_bio_PrivateKey(
        out: *mut BIO,
        x: *mut *mut EVP_PKEY,
        cb: Option<pem_password_cb>,
        u: *mut c_void,
    ) -> *mut EVP_PKEY;
    /// `enc` null writes an unencrypted PKCS#8 key.
    pub fn PEM_write_bio_PrivateKey(
        out: *mut BIO,
        x: *const EVP_PKEY,
        enc: *const EVP_CIPHER,
        kstr: *const c_uchar,
        klen: c_int,
        cb: Option<pem_password_cb>,
        u: *mut c_void,
    ) -> c_int;
    pub fn PEM_read_bio_PUBKEY(
        out: *mut BIO,
        x: *mut *mut EVP_PKEY,
        cb: Option<pem_password_cb>,
        u: *mut c_void,
    ) -> *mut EVP_PKEY;
    pub fn PEM_write_bio_PUBKEY(out: *mut BIO, x: *const EVP_PKEY) -> c_int;
    pub fn PEM_read_bio_X509(
        out: *mut BIO,
        x: *mut *mut X509,
        cb: Option<pem_password_cb>,
        u: *mut c_void,
    ) -> *mut X509;
    pub fn PEM_write_bio_X509(out: *mut BIO, x: *const X509) -> c_int;

    // ---- x509.h / asn1.h ----
    pub fn X509_new() -> *mut X509;
    pub fn X509_free(a: *mut X509);
    pub fn d2i_X509(a: *mut *mut X509, in_: *mut *const c_uchar, len: c_long) -> *mut X509;
    pub fn i2d_X509(a: *const X509, out: *mut *mut c_uchar) -> c_int;
    pub fn X509_set_version(x: *mut X509, version: c_long) -> c_int;
    /// The certificate's own serial number object (not a copy).
    pub fn X509_get_serialNumber(x: *mut X509) -> *mut ASN1_INTEGER;
    pub fn ASN1_INTEGER_set(a: *mut ASN1_INTEGER, v: c_long) -> c_int;
    /// Sets `s` to now + `adj` seconds.
    pub fn X509_gmtime_adj(s: *mut ASN1_TIME, adj: c_long) -> *mut ASN1_TIME;
    // OpenSSL 4.0 changed the constness of a few prototypes: each such function has its
    // declaration per major, 3.x's where the line built is a 3.x (the build script's cfg).
    #[cfg(crypto_sys_openssl_major = "3")]
    pub fn X509_getm_notBefore(x: *const X509) -> *mut ASN1_TIME;
    #[cfg(not(crypto_sys_openssl_major = "3"))]
    pub fn X509_getm_notBefore(x: *mut X509) -> *mut ASN1_TIME;
    #[cfg(crypto_sys_openssl_major = "3")]
    pub fn X509_getm_notAfter(x: *const X509) -> *mut ASN1_TIME;
    #[cfg(not(crypto_sys_openssl_major = "3"))]
    pub fn X509_getm_notAfter(x: *mut X509) -> *mut ASN1_TIME;
    pub fn X509_set_pubkey(x: *mut X509, pkey: *mut EVP_PKEY) -> c_int;
    /// Returns a new reference (`EVP_PKEY_free`).
    #[cfg(crypto_sys_openssl_major = "3")]
    pub fn X509_get_pubkey(x: *mut X509) -> *mut EVP_PKEY;
    /// Returns a new reference (`EVP_PKEY_free`).
    #[cfg(not(crypto_sys_openssl_major = "3"))]
    pub fn X509_get_pubkey(x: *const X509) -> *mut EVP_PKEY;
    /// The certificate's own name object (not a copy).
    #[cfg(crypto_sys_openssl_major = "3")]
    pub fn X509_get_subject_name(a: *const X509) -> *mut X509_NAME;
    /// The certificate's own name object (not a copy); read-only since 4.0.
    #[cfg(not(crypto_sys_openssl_major = "3"))]
    pub fn X509_get_subject_name(a: *const X509) -> *const X509_NAME;
    #[cfg(crypto_sys_openssl_major = "3")]
    pub fn X509_get_issuer_name(a: *const X509) -> *mut X509_NAME;
    #[cfg(not(crypto_sys_openssl_major = "3"))]
    pub fn X509_get_issuer_name(a: *const X509) -> *const X509_NAME;
    pub fn X509_set_subject_name(x: *mut X509, name: *const X509_NAME) -> c_int;
    pub fn X509_set_issuer_name(x: *mut X509, name: *const X509_NAME) -> c_int;
    pub fn X509_NAME_new() -> *mut X509_NAME;
    pub fn X509_NAME_free(a: *mut X509_NAME);
    /// `type_` is e.g. `MBSTRING_ASC`; `len` -1 means `strlen(bytes)`; `loc` -1 appends.
    pub fn X509_NAME_add_entry_by_txt(
        name: *mut X509_NAME,
        field: *const c_char,
        type_: c_int,
        bytes: *const c_uchar,
        len: c_int,
        loc: c_int,
        set: c_int,
    ) -> c_int;
    /// Returns the signature size, 0 on error; `md` null for Ed25519/Ed448 keys.
    pub fn X509_sign(x: *mut X509, pkey: *mut EVP_PKEY, md: *const EVP_MD) -> c_int;
    #[cfg(crypto_sys_openssl_major = "3")]
    pub fn X509_verify(a: *mut X509, r: *mut EVP_PKEY) -> c_int;
    #[cfg(not(crypto_sys_openssl_major = "3"))]
    pub fn X509_verify(a: *const X509, r: *mut EVP_PKEY) -> c_int;

    // ---- ssl.h: library, methods, contexts ----
    pub fn OPENSSL_init_ssl(opts: u64, settings: *const OPENSSL_INIT_SETTINGS) -> c_int;
    pub fn TLS_method() -> *const SSL_METHOD;
    pub fn TLS_client_method() -> *const SSL_METHOD;
    pub fn TLS_server_method() -> *const SSL_METHOD;
    pub fn SSL_CTX_new(meth: *const SSL_METHOD) -> *mut SSL_CTX;
    pub fn SSL_CTX_free(ctx: *mut SSL_CTX);
    /// `SSL_CTX_set_min_proto_version` and friends are macros over this; see the wrappers
    /// below.
    pub fn SSL_CTX_ctrl(ctx: *mut SSL_CTX, cmd: c_int, larg: c_long, parg: *mut c_void) -> c_long;
    /// Takes its own reference to `x`.
    pub fn SSL_CTX_use_certificate(ctx: *mut SSL_CTX, x: *mut X509) -> c_int;
    /// Takes its own reference to `pkey`.
    pub fn SSL_CTX_use_PrivateKey(ctx: *mut SSL_CTX, pkey: *mut EVP_PKEY) -> c_int;
    pub fn SSL_CTX_check_private_key(ctx: *const SSL_CTX) -> c_int;

    // ---- ssl.h: connections ----
    pub fn SSL_new(ctx: *mut SSL_CTX) -> *mut SSL;
    /// `SSL_free` frees the BIOs; the SSL takes ownership of them here.
    pub fn SSL_free(ssl: *mut SSL);
    pub fn SSL_ctrl(ssl: *mut SSL, cmd: c_int, larg: c_long, parg: *mut c_void) -> c_long;
    pub fn SSL_set_bio(s: *mut SSL, rbio: *mut BIO, wbio: *mut BIO);
    pub fn SSL_set_connect_state(s: *mut SSL);
    pub fn SSL_set_accept_state(s: *mut SSL);
    pub fn SSL_connect(ssl: *mut SSL) -> c_int;
    pub fn SSL_accept(ssl: *mut SSL) -> c_int;
    pub fn SSL_do_handshake(s: *mut SSL) -> c_int;
    pub fn SSL_is_init_finished(s: *const SSL) -> c_int;
    pub fn SSL_read(ssl: *mut SSL, buf: *mut c_void, num: c_int) -> c_int;
    pub fn SSL_write(ssl: *mut SSL, buf: *const c_void, num: c_int) -> c_int;
    pub fn SSL_read_ex(ssl: *mut SSL, buf: *mut c_void, num: usize, readbytes: *mut usize)
        -> c_int;
    pub fn SSL_write_ex(s: *mut SSL, buf: *const c_void, num: usize, written: *mut usize) -> c_int;
    pub fn SSL_pending(s: *const SSL) -> c_int;
    pub fn SSL_shutdown(s: *mut SSL) -> c_int;
    pub fn SSL_get_error(s: *const SSL, ret_code: c_int) -> c_int;
    pub fn SSL_version(ssl: *const SSL) -> c_int;
    pub fn SSL_get_version(s: *const SSL) -> *const c_char;
    /// Returns a new reference (`X509_free`), or null if the peer sent no certificate.
    pub fn SSL_get1_peer_certificate(s: *const SSL) -> *mut X509;
}

prefixed_extern! {
    // ---- crypto.h: library contexts ----
    pub fn OSSL_LIB_CTX_new() -> *mut OSSL_LIB_CTX;
    pub fn OSSL_LIB_CTX_free(ctx: *mut OSSL_LIB_CTX);
    /// Makes `libctx` this thread's default context and returns the previous one; null
    /// restores the global default.
    pub fn OSSL_LIB_CTX_set0_default(libctx: *mut OSSL_LIB_CTX) -> *mut OSSL_LIB_CTX;

    // ---- provider.h ----
    /// Activates a provider (the built-in `default`, `legacy`, `base` or `null`) in `libctx`.
    /// Loading any provider explicitly stops `default` from being loaded implicitly.
    pub fn OSSL_PROVIDER_load(libctx: *mut OSSL_LIB_CTX, name: *const c_char)
        -> *mut OSSL_PROVIDER;
    pub fn OSSL_PROVIDER_unload(prov: *mut OSSL_PROVIDER) -> c_int;
    pub fn OSSL_PROVIDER_available(libctx: *mut OSSL_LIB_CTX, name: *const c_char) -> c_int;

    // ---- pkcs12.h ----
    pub fn d2i_PKCS12(a: *mut *mut PKCS12, in_: *mut *const c_uchar, len: c_long) -> *mut PKCS12;
    pub fn PKCS12_free(a: *mut PKCS12);
    /// `ca` may be null; `*pkey` and `*cert` are new references.
    pub fn PKCS12_parse(
        p12: *mut PKCS12,
        pass: *const c_char,
        pkey: *mut *mut EVP_PKEY,
        cert: *mut *mut X509,
        ca: *mut *mut stack_st_X509,
    ) -> c_int;
    pub fn X509_check_private_key(cert: *const X509, pkey: *const EVP_PKEY) -> c_int;

    // ---- stack.h: what `sk_X509_new_null`/`sk_X509_push` expand to ----
    pub fn OPENSSL_sk_new_null() -> *mut OPENSSL_STACK;
    pub fn OPENSSL_sk_push(st: *mut OPENSSL_STACK, data: *const c_void) -> c_int;
    pub fn OPENSSL_sk_free(st: *mut OPENSSL_STACK);

    // ---- cms.h ----
    pub fn CMS_ContentInfo_free(a: *mut CMS_ContentInfo);
    #[cfg(crypto_sys_openssl_major = "3")]
    pub fn CMS_encrypt(
        certs: *mut stack_st_X509,
        in_: *mut BIO,
        cipher: *const EVP_CIPHER,
        flags: c_uint,
    ) -> *mut CMS_ContentInfo;
    #[cfg(not(crypto_sys_openssl_major = "3"))]
    pub fn CMS_encrypt(
        certs: *const stack_st_X509,
        in_: *mut BIO,
        cipher: *const EVP_CIPHER,
        flags: c_uint,
    ) -> *mut CMS_ContentInfo;
    pub fn CMS_decrypt(
        cms: *mut CMS_ContentInfo,
        pkey: *mut EVP_PKEY,
        cert: *mut X509,
        dcont: *mut BIO,
        out: *mut BIO,
        flags: c_uint,
    ) -> c_int;
    #[cfg(crypto_sys_openssl_major = "3")]
    pub fn CMS_sign(
        signcert: *mut X509,
        pkey: *mut EVP_PKEY,
        certs: *mut stack_st_X509,
        data: *mut BIO,
        flags: c_uint,
    ) -> *mut CMS_ContentInfo;
    #[cfg(not(crypto_sys_openssl_major = "3"))]
    pub fn CMS_sign(
        signcert: *mut X509,
        pkey: *mut EVP_PKEY,
        certs: *const stack_st_X509,
        data: *mut BIO,
        flags: c_uint,
    ) -> *mut CMS_ContentInfo;
    #[cfg(crypto_sys_openssl_major = "3")]
    pub fn CMS_verify(
        cms: *mut CMS_ContentInfo,
        certs: *mut stack_st_X509,
        store: *mut X509_STORE,
        dcont: *mut BIO,
        out: *mut BIO,
        flags: c_uint,
    ) -> c_int;
    #[cfg(not(crypto_sys_openssl_major = "3"))]
    pub fn CMS_verify(
        cms: *mut CMS_ContentInfo,
        certs: *const stack_st_X509,
        store: *mut X509_STORE,
        dcont: *mut BIO,
        out: *mut BIO,
        flags: c_uint,
    ) -> c_int;
    pub fn i2d_CMS_ContentInfo(a: *const CMS_ContentInfo, out: *mut *mut c_uchar) -> c_int;
    pub fn d2i_CMS_ContentInfo(
        a: *mut *mut CMS_ContentInfo,
        in_: *mut *const c_uchar,
        len: c_long,
    ) -> *mut CMS_ContentInfo;
}

/// The `SSL_CTX_set_min_proto_version(ctx, version)` macro: 1 on success, 0 on error.
///
/// # Safety
/// `ctx` must be a valid `SSL_CTX`.
#[inline]
pub unsafe fn SSL_CTX_set_min_proto_version(ctx: *mut SSL_CTX, version: c_int) -> c_int {
    SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, c_long::from(version), core::ptr::null_mut())
        as c_int
}

/// The `SSL_CTX_set_max_proto_version(ctx, version)` macro: 1 on success, 0 on error.
///
/// # Safety
/// `ctx` must be a valid `SSL_CTX`.
#[inline]
pub unsafe fn SSL_CTX_set_max_proto_version(ctx: *mut SSL_CTX, version: c_int) -> c_int {
    SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MAX_PROTO_VERSION, c_long::from(version), core::ptr::null_mut())
        as c_int
}

/// The `BIO_get_mem_data(b, pp)` macro: points `*pp` at a memory BIO's contents and returns
/// their length.
///
/// # Safety
/// `b` must be a valid memory BIO and `pp` writable.
#[inline]
pub unsafe fn BIO_get_mem_data(b: *mut BIO, pp: *mut *mut c_char) -> c_long {
    BIO_ctrl(b, BIO_CTRL_INFO, 0, pp.cast())
}
