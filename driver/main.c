/*
 * The driver's entry point and its report of which code paths are live.
 *
 * Usage: driver VECTOR_DIR [FAMILY,...]. Prints `openssl`, `path` and `count` lines (parsed
 * by xtask/src/driver/report.rs), a `FAIL` line per failure, and `result ok` or `result FAIL`
 * last; exits 0 only if every check passed. The known answers and differential digests always
 * run; the Wycheproof families are all of them, or only those listed (a code path whose
 * capability bits select no other family's code runs just its own, see data.rs).
 *
 * Build with -DDRIVER_X86_64_ASM when the prefix has x86_64 asm: only then do
 * OPENSSL_ia32cap_P and the asm's eligibility functions exist to be reported;
 * -DDRIVER_X86_ASM for 32-bit x86 asm, which has OPENSSL_ia32cap_P and no eligibility
 * function. Likewise
 * -DDRIVER_AARCH64_ASM for aarch64 asm and OPENSSL_armcap_P (crypto/armcap.c),
 * -DDRIVER_PPC64LE_ASM for ppc64le asm and OPENSSL_ppccap_P (crypto/ppccap.c),
 * -DDRIVER_S390X_ASM for s390x asm and OPENSSL_s390xcap_P (crypto/s390xcap.c), and
 * -DDRIVER_RISCV64_ASM for riscv64 asm and OPENSSL_riscvcap_P (crypto/riscvcap.c).
 * -DDRIVER_ARM_ASM for 32-bit ARM asm reports OPENSSL_armcap_P as aarch64's does, and
 * -DDRIVER_MIPS64_ASM for MIPS64 asm, which has no capability variable, only its name.
 */
/* EC_GROUP_method_of and the EC_GFp_*_method functions are deprecated, but still the only way
 * to see which EC_METHOD a curve got: nistp, or the generic Montgomery arithmetic (with bn
 * asm) or NIST fast reduction (no-asm builds). */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "driver.h"

#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef DRIVER_X86_64_ASM
extern unsigned int OPENSSL_ia32cap_P[];
/* Each eligibility function where the prefix links its file (DRIVER_HAS_<SYMBOL>, from the
 * prefix's build facts): OpenSSL 3.5 has no aes-cfb-avx512. */
#ifdef DRIVER_HAS_OSSL_VAES_VPCLMULQDQ_CAPABLE
int ossl_vaes_vpclmulqdq_capable(void);
#endif
#ifdef DRIVER_HAS_OSSL_RSAZ_AVX512IFMA_ELIGIBLE
int ossl_rsaz_avx512ifma_eligible(void);
#endif
#ifdef DRIVER_HAS_OSSL_RSAZ_AVXIFMA_ELIGIBLE
int ossl_rsaz_avxifma_eligible(void);
#endif
#ifdef DRIVER_HAS_AESNI_XTS_AVX512_ELIGIBLE
int aesni_xts_avx512_eligible(void);
#endif
#ifdef DRIVER_HAS_OSSL_AES_CFB128_VAES_ELIGIBLE
int ossl_aes_cfb128_vaes_eligible(void);
#endif
#elif defined(DRIVER_X86_ASM)
extern unsigned int OPENSSL_ia32cap_P[];
#elif defined(DRIVER_AARCH64_ASM)
extern unsigned int OPENSSL_armcap_P;
#elif defined(DRIVER_PPC64LE_ASM)
extern unsigned int OPENSSL_ppccap_P;
#elif defined(DRIVER_S390X_ASM)
/* struct OPENSSL_s390xcap_st (crypto/s390x_arch.h): 28 64-bit words, read as 32-bit words in
 * memory order, so a big-endian word's high half comes first. */
extern unsigned int OPENSSL_s390xcap_P[56];
#elif defined(DRIVER_RISCV64_ASM)
/* include/crypto/riscv_arch.h: every capability is a bit of its word 0. */
extern unsigned int OPENSSL_riscvcap_P[];
#elif defined(DRIVER_ARM_ASM)
/* crypto/arm_arch.h: the same variable and bits as aarch64's. */
extern unsigned int OPENSSL_armcap_P;
#endif

void path_report(void)
{
    static const struct {
        const char *name;
        int nid;
    } curves[] = { { "P-224", NID_secp224r1 }, { "P-384", NID_secp384r1 },
                   { "P-521", NID_secp521r1 } };
    size_t i;
    const EC_METHOD *method;
#ifdef DRIVER_X86_64_ASM
    /* Read after OPENSSL_init_crypto, so an OPENSSL_ia32cap mask is already applied. */
    printf("path asm x86_64\npath ia32cap_P");
    for (i = 0; i < 10; i++)
        printf(" 0x%08x", OPENSSL_ia32cap_P[i]);
    printf("\n");
#ifdef DRIVER_HAS_OSSL_VAES_VPCLMULQDQ_CAPABLE
    printf("path vaes_vpclmulqdq_capable %d\n", ossl_vaes_vpclmulqdq_capable() != 0);
#endif
#ifdef DRIVER_HAS_OSSL_RSAZ_AVX512IFMA_ELIGIBLE
    printf("path rsaz_avx512ifma_eligible %d\n", ossl_rsaz_avx512ifma_eligible() != 0);
#endif
#ifdef DRIVER_HAS_OSSL_RSAZ_AVXIFMA_ELIGIBLE
    printf("path rsaz_avxifma_eligible %d\n", ossl_rsaz_avxifma_eligible() != 0);
#endif
#ifdef DRIVER_HAS_AESNI_XTS_AVX512_ELIGIBLE
    printf("path aesni_xts_avx512_eligible %d\n", aesni_xts_avx512_eligible() != 0);
#endif
#ifdef DRIVER_HAS_OSSL_AES_CFB128_VAES_ELIGIBLE
    printf("path ossl_aes_cfb128_vaes_eligible %d\n", ossl_aes_cfb128_vaes_eligible() != 0);
#endif
#elif defined(DRIVER_X86_ASM)
    /* The same words as x86_64's, other bits read by other functions (data/code_paths.rs). */
    printf("path asm x86\npath ia32cap_P");
    for (i = 0; i < 10; i++)
        printf(" 0x%08x", OPENSSL_ia32cap_P[i]);
    printf("\n");
#elif defined(DRIVER_AARCH64_ASM)
    /* Read after OPENSSL_init_crypto, which probed the CPU or took OPENSSL_armcap instead. */
    printf("path asm aarch64\npath armcap_P 0x%08x\n", OPENSSL_armcap_P);
#elif defined(DRIVER_PPC64LE_ASM)
    /* Likewise: probed from AT_HWCAP/AT_HWCAP2, or OPENSSL_ppccap's value. */
    printf("path asm ppc64le\npath ppccap_P 0x%08x\n", OPENSSL_ppccap_P);
#elif defined(DRIVER_S390X_ASM)
    /* Likewise: STFLE and each CPACF instruction's query, masked by OPENSSL_s390xcap. */
    printf("path asm s390x\npath s390xcap_P");
    for (i = 0; i < 56; i++)
        printf(" 0x%08x", OPENSSL_s390xcap_P[i]);
    printf("\n");
#elif defined(DRIVER_RISCV64_ASM)
    /* Likewise: OPENSSL_riscvcap's ISA string (Debian 12's headers have no hwprobe). */
    printf("path asm riscv64\npath riscvcap_P 0x%08x\n", OPENSSL_riscvcap_P[0]);
#elif defined(DRIVER_ARM_ASM)
    /* Probed from AT_HWCAP/AT_HWCAP2, or OPENSSL_armcap's value. */
    printf("path asm arm\npath armcap_P 0x%08x\n", OPENSSL_armcap_P);
#elif defined(DRIVER_MIPS64_ASM)
    printf("path asm mips64\n");
#else
    printf("path asm none\n");
#endif
    for (i = 0; i < sizeof curves / sizeof curves[0]; i++) {
        EC_GROUP *group = EC_GROUP_new_by_curve_name(curves[i].nid);
        if (group == NULL)
            die("OpenSSL has no %s group", curves[i].name);
        method = EC_GROUP_method_of(group);
        printf("path nistp %s %d\n", curves[i].name,
               method != EC_GFp_mont_method() && method != EC_GFp_nist_method());
        EC_GROUP_free(group);
    }
}

int main(int argc, char **argv)
{
    long failures;
    if (argc == 3 && strcmp(argv[1], "bench") == 0)
        return bench_all(strtol(argv[2], NULL, 10));
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: %s VECTOR_DIR [FAMILY,...] | bench MILLISECONDS\n", argv[0]);
        return 2;
    }
    if (OPENSSL_init_crypto(0, NULL) != 1)
        die("OPENSSL_init_crypto failed");
    printf("openssl %s\n", OpenSSL_version(OPENSSL_VERSION_STRING));
    path_report();
    fflush(stdout);
    failures = kat_all();
    failures += wycheproof_all(argv[1], argc == 3 ? argv[2] : NULL);
    failures += digests_all(argv[1]);
    if (failures != 0) {
        printf("result FAIL %ld\n", failures);
        return 1;
    }
    printf("result ok\n");
    return 0;
}
