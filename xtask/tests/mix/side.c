/* One copy's side of the two-copies program, compiled twice: against crypto-sys's prefixed
 * headers (-DSIDE_PREFIXED, names mapped by openssl/crypto_sys_symbols.h) and against the
 * plain ones. The functions are named by the side, so both link into one program. */
#include <openssl/err.h>
#include <openssl/evp.h>

#ifdef SIDE_PREFIXED
# define SIDE(name) prefixed_##name
#else
# define SIDE(name) plain_##name
#endif

int SIDE(push_error)(void)
{
    ERR_raise(ERR_LIB_USER, 1);
    return 1;
}

unsigned long SIDE(peek_error)(void)
{
    return ERR_peek_error();
}

int SIDE(sha256)(unsigned char out[32])
{
    unsigned int n = 0;
    return EVP_Digest("abc", 3, out, &n, EVP_sha256(), NULL) && n == 32;
}
