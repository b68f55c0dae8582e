/* C of the consumer's own, compiled against crypto-sys's exported headers. */
#include <openssl/evp.h>
#include <openssl/opensslv.h>

#if OPENSSL_VERSION_NUMBER != 0x40000040L
#error "expected the OpenSSL 4.0.4 headers of crypto-sys"
#endif

int consumer_sha256(const unsigned char *data, size_t len, unsigned char out[32])
{
    unsigned int out_len = 0;
    if (!EVP_Digest(data, len, out, &out_len, EVP_sha256(), NULL))
        return 0;
    return out_len == 32;
}
