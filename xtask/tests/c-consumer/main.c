/* A C program linked against a prefix by a C build system (pkg-config or CMake): both
 * libraries, a known answer, and the version the prefix installed. */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    /* FIPS 180-2, appendix B.1. */
    static const unsigned char want[32] = {
        0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
        0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
    };
    unsigned char md[32];
    unsigned int len = 0;
    const char *version = OpenSSL_version(OPENSSL_VERSION);
    SSL_CTX *ctx;

    if (strncmp(version, "OpenSSL 4.0.4 ", 14) != 0) {
        printf("FAIL: linked %s\n", version);
        return 1;
    }
    if (!EVP_Digest("abc", 3, md, &len, EVP_sha256(), NULL) || len != 32
        || memcmp(md, want, 32) != 0) {
        printf("FAIL: SHA-256 known answer\n");
        return 1;
    }
    ctx = SSL_CTX_new(TLS_method());
    if (ctx == NULL || !SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION)) {
        printf("FAIL: SSL_CTX_new\n");
        return 1;
    }
    SSL_CTX_free(ctx);
    printf("c consumer: %s: SHA-256 and an SSL_CTX ok\n", version);
    return 0;
}
