/* Two copies of one OpenSSL build in one program, crypto-sys's prefixed one and the plain one:
 * each hashes with its own code, and an error pushed in one copy stays in its own queue. */
#include <stdio.h>
#include <string.h>

int prefixed_push_error(void);
unsigned long prefixed_peek_error(void);
int prefixed_sha256(unsigned char out[32]);
int plain_push_error(void);
unsigned long plain_peek_error(void);
int plain_sha256(unsigned char out[32]);

int main(void)
{
    /* FIPS 180-2, appendix B.1. */
    static const unsigned char abc[4] = { 0xba, 0x78, 0x16, 0xbf };
    unsigned char a[32], b[32];

    if (!prefixed_sha256(a) || !plain_sha256(b) || memcmp(a, b, 32) != 0
            || memcmp(a, abc, 4) != 0) {
        puts("sha256: FAILED");
        return 1;
    }
    puts("sha256: both copies ok");
    prefixed_push_error();
    printf("prefixed queue: %s\n", prefixed_peek_error() ? "holds the error" : "empty");
    printf("plain queue: %s\n", plain_peek_error() ? "holds the error" : "empty");
    puts(prefixed_peek_error() != 0 && plain_peek_error() == 0 ? "copies: apart" : "copies: mixed");
    return 0;
}
