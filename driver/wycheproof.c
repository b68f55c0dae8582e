/*
 * Wycheproof families, with the rules of crypto-sys/tests/wycheproof.rs and kat.rs: a valid
 * vector must pass and an invalid one fail; an acceptable one may go either way (counted
 * apart) unless a family says otherwise; every family has lower bounds on what it checked.
 */
#include "driver.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <stdlib.h>
#include <string.h>

#define TAG_LEN 16

/* The EVP_MD for a Wycheproof digest name, or NULL. */
const EVP_MD *md_by_name(const char *name)
{
    static const struct {
        const char *name;
        const EVP_MD *(*md)(void);
    } mds[] = {
        { "SHA-224", EVP_sha224 },     { "SHA-256", EVP_sha256 },
        { "SHA-384", EVP_sha384 },     { "SHA-512", EVP_sha512 },
        { "SHA3-224", EVP_sha3_224 },  { "SHA3-256", EVP_sha3_256 },
        { "SHA3-384", EVP_sha3_384 },  { "SHA3-512", EVP_sha3_512 },
        { "SHAKE128", EVP_shake128 },  { "SHAKE256", EVP_shake256 },
    };
    size_t i;
    for (i = 0; i < sizeof mds / sizeof mds[0]; i++)
        if (strcmp(mds[i].name, name) == 0)
            return mds[i].md();
    return NULL;
}

static const EVP_MD *group_md(const struct record *g, const char *key)
{
    const EVP_MD *md = md_by_name(field(g, key));
    if (md == NULL)
        die("unknown digest `%s` in: %.80s", field(g, key), g->line);
    return md;
}

/* ---------------------------------------------------------------------------------------- */
/* AEAD: AES-GCM and ChaCha20-Poly1305                                                       */
/* ---------------------------------------------------------------------------------------- */

struct aead_test {
    struct bytes key, nonce, aad, pt, ct, tag;
};

/* A context keyed for `cipher` with a nonce of any length it accepts; NULL if refused. */
static EVP_CIPHER_CTX *aead_ctx(const EVP_CIPHER *cipher, int enc, const struct aead_test *v)
{
    EVP_CIPHER_CTX *ctx;
    if ((long)v->key.n != EVP_CIPHER_get_key_length(cipher))
        return NULL;
    if ((ctx = EVP_CIPHER_CTX_new()) == NULL)
        return NULL;
    if (EVP_CipherInit_ex(ctx, cipher, NULL, NULL, NULL, enc) == 1 &&
        EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, (int)v->nonce.n, NULL) == 1 &&
        EVP_CipherInit_ex(ctx, NULL, NULL, v->key.p, v->nonce.p, enc) == 1)
        return ctx;
    EVP_CIPHER_CTX_free(ctx);
    return NULL;
}

/* Encrypts into `out` (pt.n + TAG_LEN bytes): ciphertext then tag. Returns 1 on success. */
static int seal(const EVP_CIPHER *cipher, const struct aead_test *v, unsigned char *out)
{
    EVP_CIPHER_CTX *ctx = aead_ctx(cipher, 1, v);
    int n = 0, m = 0, ok;
    if (ctx == NULL)
        return 0;
    ok = EVP_EncryptUpdate(ctx, NULL, &n, v->aad.p, (int)v->aad.n) == 1 &&
         EVP_EncryptUpdate(ctx, out, &n, v->pt.p, (int)v->pt.n) == 1 &&
         EVP_EncryptFinal_ex(ctx, out + n, &m) == 1 && (size_t)(n + m) == v->pt.n &&
         EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, TAG_LEN, out + v->pt.n) == 1;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

/* Decrypts and authenticates into `out` (ct.n + TAG_LEN bytes); returns the plaintext
 * length, or -1 if the tag (or anything else) does not check out. */
static long open_(const EVP_CIPHER *cipher, const struct aead_test *v, unsigned char *out)
{
    EVP_CIPHER_CTX *ctx = aead_ctx(cipher, 0, v);
    int n = 0, m = 0, ok;
    if (ctx == NULL)
        return -1;
    ok = EVP_DecryptUpdate(ctx, NULL, &n, v->aad.p, (int)v->aad.n) == 1 &&
         EVP_DecryptUpdate(ctx, out, &n, v->ct.p, (int)v->ct.n) == 1 &&
         EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)v->tag.n, v->tag.p) == 1 &&
         EVP_DecryptFinal_ex(ctx, out + n, &m) == 1;
    EVP_CIPHER_CTX_free(ctx);
    return ok ? n + m : -1;
}

/* kat.rs's check_aead_vector: an invalid vector must not open; any other must seal to
 * exactly ct || tag and open back to the message. Acceptable vectors are held to that too. */
static void check_aead(struct run *run, const EVP_CIPHER *cipher, const struct record *t)
{
    struct aead_test v;
    unsigned char *sealed, *opened;
    long len;
    v.key = field_hex(t, "key");
    v.nonce = field_hex(t, "iv");
    v.aad = field_hex(t, "aad");
    v.pt = field_hex(t, "msg");
    v.ct = field_hex(t, "ct");
    v.tag = field_hex(t, "tag");
    sealed = malloc(v.pt.n + TAG_LEN);
    opened = malloc(v.ct.n + TAG_LEN);
    if (sealed == NULL || opened == NULL)
        die("out of memory");
    len = open_(cipher, &v, opened);
    clear_errors();
    record_outcome(run, t, len >= 0);
    if (t->result != INVALID) {
        if (t->result == ACCEPTABLE && len < 0)
            fail(run, t->tc_id, "acceptable vector did not open");
        if (len >= 0 && !bytes_eq(&v.pt, opened, (size_t)len))
            fail(run, t->tc_id, "open gave a different plaintext");
        if (!seal(cipher, &v, sealed))
            fail(run, t->tc_id, "seal failed");
        else if (v.ct.n != v.pt.n || memcmp(sealed, v.ct.p, v.pt.n) != 0)
            fail(run, t->tc_id, "seal gave a different ciphertext");
        else if (!bytes_eq(&v.tag, sealed + v.pt.n, TAG_LEN))
            fail(run, t->tc_id, "seal gave a different tag");
    }
    free(sealed);
    free(opened);
    bytes_free(&v.key), bytes_free(&v.nonce), bytes_free(&v.aad);
    bytes_free(&v.pt), bytes_free(&v.ct), bytes_free(&v.tag);
}

static void aes_gcm_test(struct run *run, const struct record *g, const struct record *t)
{
    long key_bits = field_num(g, "key_bits"), iv_bits = field_num(g, "iv_bits");
    const EVP_CIPHER *cipher = key_bits == 128   ? EVP_aes_128_gcm()
                               : key_bits == 192 ? EVP_aes_192_gcm()
                               : key_bits == 256 ? EVP_aes_256_gcm()
                                                 : NULL;
    /* As kat.rs: only 128-bit tags; IVs up to 1024 bits (the 2056-bit ones exceed
     * OpenSSL's limit). */
    if (field_num(g, "tag_bits") != 128 || iv_bits > 1024) {
        skip(run);
        return;
    }
    if (cipher == NULL)
        die("no AES-GCM with a %ld-bit key", key_bits);
    check_aead(run, cipher, t);
}

static void chacha_test(struct run *run, const struct record *g, const struct record *t)
{
    /* As kat.rs: RFC 8439 defines only 96-bit nonces; OpenSSL also takes shorter ones. */
    if (field_num(g, "iv_bits") != 96) {
        skip(run);
        return;
    }
    if (field_num(g, "key_bits") != 256 || field_num(g, "tag_bits") != 128) {
        set_up_failed(run, t, "a 256-bit key and 128-bit tag (group parameters)");
        return;
    }
    check_aead(run, EVP_chacha20_poly1305(), t);
}

/* ---------------------------------------------------------------------------------------- */
/* Signatures: RSA PKCS#1 v1.5, RSA-PSS, ECDSA (DER), Ed25519                                */
/* ---------------------------------------------------------------------------------------- */

/* A DER SubjectPublicKeyInfo; NULL if OpenSSL rejects it. */
static EVP_PKEY *pubkey_from_der(const struct bytes *der)
{
    const unsigned char *p = der->p;
    EVP_PKEY *key = d2i_PUBKEY(NULL, &p, (long)der->n);
    clear_errors();
    return key;
}

struct pss {
    const EVP_MD *mgf1;
    int salt_len;
};

/* One-shot EVP_DigestVerify; `md` is NULL for Ed25519, `pss` NULL for the key's default
 * padding. Returns 1 accepted, 0 rejected, -1 if the set-up failed (already reported). */
static int verify(struct run *run, const struct record *t, EVP_PKEY *key, const EVP_MD *md,
                  const struct pss *pss)
{
    struct bytes msg = field_hex(t, "msg"), sig = field_hex(t, "sig");
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    int rc = -1;
    if (ctx == NULL || EVP_DigestVerifyInit(ctx, &pctx, md, NULL, key) != 1)
        set_up_failed(run, t, "EVP_DigestVerifyInit");
    else if (pss != NULL &&
             (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) != 1 ||
              EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, pss->salt_len) != 1 ||
              EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, pss->mgf1) != 1))
        set_up_failed(run, t, "setting PSS padding, salt length and MGF1 digest");
    else
        rc = EVP_DigestVerify(ctx, sig.p, sig.n, msg.p, msg.n) == 1;
    EVP_MD_CTX_free(ctx);
    bytes_free(&msg);
    bytes_free(&sig);
    return rc;
}

/* Every Wycheproof key used here is well formed: a rejected key is a failure, so each invalid
 * vector is really rejected by verification. */
static EVP_PKEY *group_key(struct run *run, const struct record *g, const struct record *t)
{
    struct bytes der = field_hex(g, "der");
    EVP_PKEY *key = pubkey_from_der(&der);
    bytes_free(&der);
    if (key == NULL)
        set_up_failed(run, t, "parsing the group's public key (d2i_PUBKEY)");
    return key;
}

static void rsa_pkcs1_test(struct run *run, const struct record *g, const struct record *t)
{
    EVP_PKEY *key = group_key(run, g, t);
    int rc;
    if (key == NULL)
        return;
    if ((rc = verify(run, t, key, group_md(g, "hash"), NULL)) >= 0)
        record_outcome(run, t, rc);
    EVP_PKEY_free(key);
}

static void rsa_pss_test(struct run *run, const struct record *g, const struct record *t)
{
    EVP_PKEY *key = group_key(run, g, t);
    struct pss pss;
    int rc;
    if (key == NULL)
        return;
    pss.mgf1 = group_md(g, "mgf1");
    pss.salt_len = (int)field_num(g, "salt_len");
    if ((rc = verify(run, t, key, group_md(g, "hash"), &pss)) >= 0)
        record_outcome(run, t, rc);
    EVP_PKEY_free(key);
}

/* ECDSA over a SHAKE digest: OpenSSL refuses XOFs in EVP_DigestVerify, so the digest (RFC
 * 8692 lengths: 32 bytes for SHAKE128, 64 for SHAKE256) is computed here and checked with
 * EVP_PKEY_verify. */
static int verify_shake(struct run *run, const struct record *t, EVP_PKEY *key, const EVP_MD *md)
{
    struct bytes msg = field_hex(t, "msg"), sig = field_hex(t, "sig");
    size_t len = md == EVP_shake128() ? 32 : 64;
    unsigned char digest[64];
    EVP_MD_CTX *mctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = EVP_PKEY_CTX_new(key, NULL);
    int rc = -1;
    if (mctx == NULL || EVP_DigestInit_ex(mctx, md, NULL) != 1 ||
        EVP_DigestUpdate(mctx, msg.p, msg.n) != 1 ||
        EVP_DigestFinalXOF(mctx, digest, len) != 1)
        set_up_failed(run, t, "the SHAKE digest");
    else if (pctx == NULL || EVP_PKEY_verify_init(pctx) != 1)
        set_up_failed(run, t, "EVP_PKEY_verify_init");
    else
        rc = EVP_PKEY_verify(pctx, sig.p, sig.n, digest, len) == 1;
    EVP_MD_CTX_free(mctx);
    EVP_PKEY_CTX_free(pctx);
    bytes_free(&msg);
    bytes_free(&sig);
    return rc;
}

static void ecdsa_test(struct run *run, const struct record *g, const struct record *t)
{
    EVP_PKEY *key = group_key(run, g, t);
    const EVP_MD *md;
    int rc;
    if (key == NULL)
        return;
    md = group_md(g, "hash");
    if (EVP_PKEY_get_bits(key) != field_num(g, "key_bits")) {
        set_up_failed(run, t, "the key size check (EVP_PKEY_get_bits)");
    } else {
        if (md == EVP_shake128() || md == EVP_shake256())
            rc = verify_shake(run, t, key, md);
        else
            rc = verify(run, t, key, md, NULL);
        if (rc >= 0)
            record_outcome(run, t, rc);
    }
    EVP_PKEY_free(key);
}

static void ed25519_test(struct run *run, const struct record *g, const struct record *t)
{
    struct bytes pk = field_hex(g, "pk");
    EVP_PKEY *key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pk.p, pk.n);
    int rc;
    bytes_free(&pk);
    clear_errors();
    if (key == NULL) {
        set_up_failed(run, t, "importing the group's raw public key");
        return;
    }
    if ((rc = verify(run, t, key, NULL, NULL)) >= 0)
        record_outcome(run, t, rc);
    EVP_PKEY_free(key);
}

/* ---------------------------------------------------------------------------------------- */
/* X25519                                                                                     */
/* ---------------------------------------------------------------------------------------- */

/* X25519(private, public) into `out` (32 bytes); returns the length, or -1 if any step fails. */
static long x25519(const struct bytes *priv, const struct bytes *pub, unsigned char *out)
{
    EVP_PKEY *sk = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, priv->p, priv->n);
    EVP_PKEY *pk = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, pub->p, pub->n);
    EVP_PKEY_CTX *ctx = sk == NULL ? NULL : EVP_PKEY_CTX_new(sk, NULL);
    size_t len = 32;
    int ok = ctx != NULL && pk != NULL && EVP_PKEY_derive_init(ctx) == 1 &&
             EVP_PKEY_derive_set_peer(ctx, pk) == 1 && EVP_PKEY_derive(ctx, out, &len) == 1;
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(sk);
    EVP_PKEY_free(pk);
    return ok ? (long)len : -1;
}

static long zero_secret_rejected;

/* A valid vector must derive exactly the expected secret; an acceptable one (twist points,
 * non-canonical or low-order keys) may fail, but a derived secret must match. Stricter,
 * because OpenSSL documents it (RFC 7748 section 6.1): an all-zero secret must not derive. */
static void x25519_test(struct run *run, const struct record *g, const struct record *t)
{
    struct bytes priv = field_hex(t, "private"), pub = field_hex(t, "public");
    struct bytes shared = field_hex(t, "shared");
    unsigned char out[32];
    long len = x25519(&priv, &pub, out);
    size_t i;
    int zero = 1;
    (void)g;
    for (i = 0; i < shared.n; i++)
        zero &= shared.p[i] == 0;
    if (len >= 0 && !bytes_eq(&shared, out, (size_t)len))
        fail(run, t->tc_id, "derived a different shared secret");
    else if (zero && len >= 0)
        fail(run, t->tc_id, "derived an all-zero shared secret");
    zero_secret_rejected += zero && len < 0;
    record_outcome(run, t, len >= 0);
    bytes_free(&priv), bytes_free(&pub), bytes_free(&shared);
}

/* ---------------------------------------------------------------------------------------- */
/* HKDF and HMAC                                                                              */
/* ---------------------------------------------------------------------------------------- */

static const char *param_digest(const EVP_MD *md)
{
    return EVP_MD_get0_name(md);
}

/* Valid: exactly the expected OKM. Invalid (longer than 255 * HashLen): must fail. */
static void hkdf_test(struct run *run, const struct record *g, const struct record *t)
{
    struct bytes ikm = field_hex(t, "ikm"), salt = field_hex(t, "salt");
    struct bytes info = field_hex(t, "info"), okm = field_hex(t, "okm");
    size_t size = (size_t)field_num(t, "size");
    unsigned char *out = malloc(size + 1);
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    EVP_KDF_CTX *ctx = kdf == NULL ? NULL : EVP_KDF_CTX_new(kdf);
    OSSL_PARAM params[5];
    params[0] = OSSL_PARAM_construct_utf8_string(
        OSSL_KDF_PARAM_DIGEST, (char *)param_digest(group_md(g, "digest")), 0);
    params[1] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, ikm.p, ikm.n);
    params[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, salt.p, salt.n);
    params[3] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info.p, info.n);
    params[4] = OSSL_PARAM_construct_end();
    if (out == NULL)
        die("out of memory");
    if (ctx == NULL) {
        set_up_failed(run, t, "fetching HKDF");
    } else {
        int ok = EVP_KDF_derive(ctx, out, size, params) == 1;
        if (ok && !bytes_eq(&okm, out, size))
            fail(run, t->tc_id, "derived a different OKM");
        record_outcome(run, t, ok);
    }
    EVP_KDF_CTX_free(ctx);
    EVP_KDF_free(kdf);
    free(out);
    bytes_free(&ikm), bytes_free(&salt), bytes_free(&info), bytes_free(&okm);
}

/* A tag matches when it equals the first tag_bits of the full HMAC (Wycheproof's truncated
 * tags); a tag of any other length never matches. */
static void hmac_test(struct run *run, const struct record *g, const struct record *t)
{
    const EVP_MD *md = group_md(g, "digest");
    long tag_bits = field_num(g, "tag_bits");
    struct bytes key = field_hex(t, "key"), msg = field_hex(t, "msg"), tag = field_hex(t, "tag");
    unsigned char out[EVP_MAX_MD_SIZE];
    size_t len = 0;
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    EVP_MAC_CTX *ctx = mac == NULL ? NULL : EVP_MAC_CTX_new(mac);
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
                                                 (char *)param_digest(md), 0);
    params[1] = OSSL_PARAM_construct_end();
    if (ctx == NULL || EVP_MAC_init(ctx, key.p, key.n, params) != 1 ||
        EVP_MAC_update(ctx, msg.p, msg.n) != 1 ||
        EVP_MAC_final(ctx, out, &len, sizeof out) != 1) {
        set_up_failed(run, t, "HMAC");
    } else if ((long)len != EVP_MD_get_size(md) || tag_bits % 8 != 0 ||
               (size_t)tag_bits / 8 > len) {
        set_up_failed(run, t, "the HMAC and tag length check");
    } else {
        record_outcome(run, t, bytes_eq(&tag, out, (size_t)tag_bits / 8));
    }
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
    bytes_free(&key), bytes_free(&msg), bytes_free(&tag);
}

/* ---------------------------------------------------------------------------------------- */
/* The families                                                                               */
/* ---------------------------------------------------------------------------------------- */

/* Lower bounds: what the files hold (wycheproof crate 0.7), the same figures as the Rust tests
 * state, so a vector lost anywhere between the JSON and OpenSSL fails. */
static const struct {
    const char *family;
    test_fn test;
    struct bounds min;
} FAMILIES[] = {
    /* 316 vectors; the 3 with 2056-bit IVs are skipped. */
    { "aes_gcm", aes_gcm_test, { 226, 87, 0 } },
    /* 325 vectors; the 9 with nonces other than 96 bits are skipped. */
    { "chacha20_poly1305", chacha_test, { 256, 60, 0 } },
    /* 259 + 259 + 258 + 259 vectors (2048/SHA-256, 3072/SHA-256, 2048/SHA-384, 2048/SHA-512). */
    { "rsa_pkcs1", rsa_pkcs1_test, { 32, 999, 4 } },
    /* 108 + 108 vectors (2048 and 3072 bits, SHA-256, MGF1 SHA-256, 32-byte salt). */
    { "rsa_pss", rsa_pss_test, { 126, 90, 0 } },
    /* 452 + 481 + 550 + 470 + 479 + 544 + 477 vectors (SHA-224/256/512, SHA3-224/256/512,
     * SHAKE128). P-224, P-384 and P-521 run on the ec_nistp_64_gcc_128 code when built. */
    { "ecdsa_p224", ecdsa_test, { 1316, 2137, 0 } },
    /* 484 + 554 + 482 + 548 + 480 vectors (SHA-256, SHA-512, SHA3-256, SHA3-512, SHAKE128). */
    { "ecdsa_p256", ecdsa_test, { 1014, 1534, 0 } },
    /* 472 + 504 + 542 + 504 + 536 + 538 vectors (SHA-256/384/512, SHA3-384/512, SHAKE256). */
    { "ecdsa_p384", ecdsa_test, { 1251, 1845, 0 } },
    /* 542 + 534 + 536 vectors (SHA-512, SHA3-512, SHAKE256). */
    { "ecdsa_p521", ecdsa_test, { 698, 914, 0 } },
    /* 151 vectors. */
    { "ed25519", ed25519_test, { 88, 63, 0 } },
    /* 518 vectors, 31 of them with an all-zero shared secret. */
    { "x25519", x25519_test, { 264, 0, 254 } },
    /* 86 + 83 + 83 vectors (SHA-256, SHA-384, SHA-512). */
    { "hkdf", hkdf_test, { 243, 9, 0 } },
    /* 174 + 174 vectors (SHA-256, SHA-512). */
    { "hmac", hmac_test, { 132, 216, 0 } },
};

/* Whether `family` is one of the comma-separated names of `only` (NULL: every family). */
static int selected(const char *only, const char *family)
{
    size_t n = strlen(family);
    const char *p;
    if (only == NULL)
        return 1;
    for (p = only;; p++) {
        if (strncmp(p, family, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return 1;
        if ((p = strchr(p, ',')) == NULL)
            return 0;
    }
}

/* Every name of `only` must be a family: a misspelt one would otherwise check nothing. */
static void check_selection(const char *only)
{
    const char *p = only;
    size_t i, n;
    if (only == NULL)
        return;
    for (;;) {
        n = strcspn(p, ",");
        for (i = 0; i < sizeof FAMILIES / sizeof FAMILIES[0]; i++)
            if (strlen(FAMILIES[i].family) == n && strncmp(p, FAMILIES[i].family, n) == 0)
                break;
        if (i == sizeof FAMILIES / sizeof FAMILIES[0])
            die("no Wycheproof family `%.*s` (families: a comma-separated list)", (int)n, p);
        if (p[n] == '\0')
            return;
        p += n + 1;
    }
}

long wycheproof_all(const char *dir, const char *only)
{
    long failures = 0;
    size_t i;
    check_selection(only);
    for (i = 0; i < sizeof FAMILIES / sizeof FAMILIES[0]; i++) {
        struct run run;
        if (!selected(only, FAMILIES[i].family))
            continue;
        memset(&run, 0, sizeof run);
        run.family = FAMILIES[i].family;
        run.started = clock();
        read_vectors(dir, &run, FAMILIES[i].test);
        if (strcmp(run.family, "x25519") == 0) {
            printf("count x25519_zero_secret rejected=%ld\n", zero_secret_rejected);
            if (zero_secret_rejected < 31)
                fail(&run, -1, "only %ld all-zero secrets rejected", zero_secret_rejected);
        }
        failures += finish(&run, FAMILIES[i].min);
    }
    return failures;
}
