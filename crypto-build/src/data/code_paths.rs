//! Code paths, one type for every architecture: the value of OpenSSL's capability variable
//! (or the emulated CPU) that selects each path, what a CPU needs to run it, and the bits of
//! the capability words (and the asm's eligibility answers) that prove OpenSSL took it.

use super::Arch;

/// OpenSSL's capability variable on an architecture: the environment variable it reads once,
/// and the words it fills, which the asm tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapVar {
    /// The environment variable (`OPENSSL_ia32cap`).
    pub env: &'static str,
    /// The symbol the asm reads (`OPENSSL_ia32cap_P`), as the C driver names it in its report
    /// without the `OPENSSL_` prefix.
    pub symbol: &'static str,
    /// How many 32-bit words the driver reports.
    pub words: usize,
    /// A value given is the symbol's value exactly (OpenSSL takes it instead of probing);
    /// otherwise it masks what the CPU has.
    pub value_is_exact: bool,
}

/// OpenSSL's copy of CPUID: word 0-1 CPUID.1 EDX/ECX, 2-3 CPUID.7.0 EBX/ECX, 4 CPUID.7.0
/// EDX, 5-8 CPUID.7.1 EAX/EDX/EBX/ECX, 9 CPUID.0x24 EBX.
pub const IA32CAP: CapVar =
    CapVar { env: "OPENSSL_ia32cap", symbol: "ia32cap_P", words: 10, value_is_exact: false };

/// crypto/armcap.c returns before any probe when OPENSSL_armcap is set.
pub const ARMCAP: CapVar =
    CapVar { env: "OPENSSL_armcap", symbol: "armcap_P", words: 1, value_is_exact: true };

/// crypto/ppccap.c, likewise: `OPENSSL_ppccap_P = strtoul(e, NULL, 0); return;`.
pub const PPCCAP: CapVar =
    CapVar { env: "OPENSSL_ppccap", symbol: "ppccap_P", words: 1, value_is_exact: true };

/// crypto/s390xcap.c: a mask (`stfle:...;kimd:...`) ANDed into what STFLE and each CPACF
/// instruction's query report. The struct's 28 64-bit words, as the driver reports them: 56
/// 32-bit words in memory order, so on this big-endian target a word's high half comes first.
pub const S390XCAP: CapVar =
    CapVar { env: "OPENSSL_s390xcap", symbol: "s390xcap_P", words: 56, value_is_exact: false };

/// crypto/riscvcap.c: an ISA string (`rv64gc_zbb_v`) whose `_EXT` parts set bits of word 0;
/// without it, the kernel's hwprobe, which Debian 12's headers lack (so nothing is set).
pub const RISCVCAP: CapVar =
    CapVar { env: "OPENSSL_riscvcap", symbol: "riscvcap_P", words: 1, value_is_exact: false };

impl Arch {
    pub const ALL: &'static [Arch] = &[
        Arch::X86_64,
        Arch::Aarch64,
        Arch::Ppc64le,
        Arch::S390x,
        Arch::Riscv64,
        Arch::X86,
        Arch::Arm,
        Arch::Mips64,
    ];

    /// Its name where the C driver reports its asm (`path asm x86_64`, `-DDRIVER_X86_64_ASM`).
    pub fn name(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64",
            Arch::Aarch64 => "aarch64",
            Arch::Ppc64le => "ppc64le",
            Arch::S390x => "s390x",
            Arch::Riscv64 => "riscv64",
            Arch::X86 => "x86",
            Arch::Arm => "arm",
            Arch::Mips64 => "mips64",
        }
    }

    /// The capability variable of the architecture's asm; `None` where the asm has one code
    /// path and reads none (MIPS64: [`MIPS64_CODE_PATHS`] says so).
    pub fn cap_var(self) -> Option<&'static CapVar> {
        match self {
            Arch::X86_64 | Arch::X86 => Some(&IA32CAP),
            Arch::Aarch64 | Arch::Arm => Some(&ARMCAP),
            Arch::Ppc64le => Some(&PPCCAP),
            Arch::S390x => Some(&S390XCAP),
            Arch::Riscv64 => Some(&RISCVCAP),
            Arch::Mips64 => None,
        }
    }

    /// The code paths `cargo xtask test` runs the known answers on, fastest first; the first
    /// leaves the variable unset, so the CPU decides.
    pub fn code_paths(self) -> &'static [CodePath] {
        match self {
            Arch::X86_64 => X86_64_CODE_PATHS,
            Arch::Aarch64 => AARCH64_CODE_PATHS,
            Arch::Ppc64le => PPC64LE_CODE_PATHS,
            Arch::S390x => S390X_CODE_PATHS,
            Arch::Riscv64 => RISCV64_CODE_PATHS,
            Arch::X86 => X86_CODE_PATHS,
            Arch::Arm => ARMV7_CODE_PATHS,
            Arch::Mips64 => MIPS64_CODE_PATHS,
        }
    }
}

/// A bit of an architecture's capability words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapBit {
    pub name: &'static str,
    pub word: usize,
    pub bit: u32,
}

/// A CPU feature a code path needs to run, named as `std::is_*_feature_detected!` names it
/// (which also checks that the OS saves the registers).
#[derive(Debug, Clone, Copy)]
pub struct CpuFeature {
    pub name: &'static str,
    pub detected: fn() -> bool,
}

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
macro_rules! x86 {
    ($name:tt) => {
        CpuFeature { name: $name, detected: || std::is_x86_feature_detected!($name) }
    };
}
#[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
macro_rules! x86 {
    ($name:tt) => {
        CpuFeature { name: $name, detected: || false }
    };
}
#[cfg(target_arch = "aarch64")]
macro_rules! arm {
    ($name:tt) => {
        CpuFeature { name: $name, detected: || std::arch::is_aarch64_feature_detected!($name) }
    };
}
#[cfg(not(target_arch = "aarch64"))]
macro_rules! arm {
    ($name:tt) => {
        CpuFeature { name: $name, detected: || false }
    };
}

/// An asm function that tells the C code whether its file's fast code may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Eligibility {
    pub symbol: &'static str,
    /// Where it lives; only the `asm` set's copy can answer 1 (the others are stubs).
    pub file: &'static str,
    /// The capability bits its asm tests (the masks in the generated file): it answers 1
    /// exactly when all are set.
    pub needs: &'static [CapBit],
}

/// What a run must observe once OpenSSL has read its capability variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Observe {
    /// A capability bit is set (true) or clear, and why that bit matters.
    Bit(CapBit, bool, &'static str),
    /// Each of these bits is set (true) or clear, for one reason.
    Bits(&'static [CapBit], bool, &'static str),
    /// An eligibility function answers 1 (true) or 0, where its file came from `asm`.
    Eligible(Eligibility, bool),
    /// Every observation of a list shared by several paths.
    Group(&'static [Observe]),
}

/// Which Wycheproof families of the C driver (`xtask/src/driver/vectors.rs`) a code path runs
/// besides the known answers and the differential digests, which every path runs: they cover
/// each cipher, MAC and digest the capability bits switch, over many lengths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriverFamilies {
    /// Every family: the default path, and a path whose bits reach every family's code.
    All,
    /// The families whose own code (cipher, MAC, curve or bignum asm; not only their message
    /// digest, which the digests check) the path's bits select differently from the default
    /// path, and why the others are left out.
    Only(&'static [&'static str], &'static str),
}

/// For an eligibility function and the answer a path expects of its `asm` copy: the answer
/// expected of the copy the build took, and the answer reported; `None` when the build has
/// no copy, its release lacking the file (OpenSSL 3.5 has no aes-cfb-avx512), so there is
/// nothing to observe.
pub type EligibleAnswer<'a> = dyn Fn(&Eligibility, bool) -> Option<(bool, Option<bool>)> + 'a;

/// A code path: the capability value or emulated CPU that selects it, what a CPU must have
/// to run it, and what proves that OpenSSL took it.
#[derive(Debug, Clone, Copy)]
pub struct CodePath {
    pub name: &'static str,
    /// The architecture's capability variable's value; `None`: unset, the CPU decides.
    pub cap: Option<&'static str>,
    /// qemu's `-cpu` (QEMU_CPU in the run's environment), for a path only an emulated CPU
    /// gives; `None`: the runner's own CPU (qemu's default is `max`).
    pub qemu_cpu: Option<&'static str>,
    /// Why qemu-user (Debian's 7.2) cannot run the path, where it cannot: the run names it in
    /// one loud line, and its files are still assembled and symbol-checked.
    pub qemu_lacks: Option<&'static str>,
    /// What a real CPU must have for the path to run; an emulator offers it.
    pub cpu_needs: &'static [CpuFeature],
    /// What the path runs, for messages.
    pub takes: &'static str,
    pub observe: &'static [Observe],
    pub families: DriverFamilies,
}

impl CodePath {
    /// The first feature this path needs that the CPU running us lacks.
    pub fn missing_cpu_feature(&self) -> Option<&'static str> {
        self.cpu_needs.iter().find(|f| !(f.detected)()).map(|f| f.name)
    }

    /// The bits and eligibility answers to check, as `Bit` and `Eligible` alone.
    pub fn observations(&self) -> Vec<Observe> {
        fn flatten(list: &[Observe], out: &mut Vec<Observe>) {
            for o in list {
                match *o {
                    Observe::Group(inner) => flatten(inner, out),
                    Observe::Bits(bits, want, why) => {
                        out.extend(bits.iter().map(|&b| Observe::Bit(b, want, why)));
                    }
                    o => out.push(o),
                }
            }
        }
        let mut out = Vec::new();
        flatten(self.observe, &mut out);
        out
    }

    /// The words the capability symbol must equal, where the variable's value is exact and
    /// given.
    pub fn exact_words(&self, var: &CapVar) -> anyhow::Result<Option<Vec<u32>>> {
        let Some(v) = self.cap.filter(|_| var.value_is_exact) else { return Ok(None) };
        let words = v.split(':').map(|w| match w.strip_prefix("0x") {
            Some(hex) => u32::from_str_radix(hex, 16),
            None => w.parse(),
        });
        let words = words.collect::<Result<Vec<u32>, _>>();
        words.map(Some).map_err(|e| anyhow::anyhow!("{}: {}={v}: {e}", self.name, var.env))
    }

    /// Where the reported words and eligibility answers differ from what the path expects,
    /// one line each.
    pub fn mismatches(
        &self,
        var: &CapVar,
        words: &[u32],
        eligible: &EligibleAnswer<'_>,
    ) -> anyhow::Result<Vec<String>> {
        let mut wrong = Vec::new();
        for o in self.observations() {
            match o {
                Observe::Bit(b, want, why) => {
                    let set = words.get(b.word).is_some_and(|w| w >> b.bit & 1 == 1);
                    if set != want {
                        let state = if want { "set" } else { "clear" };
                        let why = if why.is_empty() { String::new() } else { format!(" ({why})") };
                        wrong.push(format!("{} should be {state}{why}", b.name));
                    }
                }
                Observe::Eligible(e, want) => {
                    let Some((want, got)) = eligible(&e, want) else { continue };
                    if got != Some(want) {
                        wrong.push(format!("{} answered {got:?}, expected {want}", e.symbol));
                    }
                }
                Observe::Bits(..) | Observe::Group(_) => unreachable!("flattened"),
            }
        }
        if let Some(exact) = self.exact_words(var)? {
            if words != exact {
                let exact: Vec<String> = exact.iter().map(|w| format!("{w:#x}")).collect();
                let exact = exact.join(":");
                wrong.push(format!("OPENSSL_{} should be {exact} exactly", var.symbol));
            }
        }
        Ok(wrong)
    }
}

/// A code path of an architecture, by name.
pub fn code_path_by_name(arch: Arch, name: &str) -> anyhow::Result<&'static CodePath> {
    let paths = arch.code_paths();
    paths.iter().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = paths.iter().map(|p| p.name).collect();
        anyhow::anyhow!("unknown code path `{name}`; known: {}", names.join(", "))
    })
}

use Observe::{Bit, Bits, Eligible};

// ---------------------------------------------------------------------------
// x86_64: the OPENSSL_ia32cap mask that forces each path, and what proves it did
// ---------------------------------------------------------------------------

pub const CAP_AESNI: CapBit = CapBit { name: "AES-NI", word: 1, bit: 25 };
pub const CAP_AVX: CapBit = CapBit { name: "AVX", word: 1, bit: 28 };
pub const CAP_AVX2: CapBit = CapBit { name: "AVX2", word: 2, bit: 5 };
pub const CAP_AVX512F: CapBit = CapBit { name: "AVX512F", word: 2, bit: 16 };
pub const CAP_AVX512DQ: CapBit = CapBit { name: "AVX512DQ", word: 2, bit: 17 };
pub const CAP_AVX512IFMA: CapBit = CapBit { name: "AVX512IFMA", word: 2, bit: 21 };
pub const CAP_AVX512BW: CapBit = CapBit { name: "AVX512BW", word: 2, bit: 30 };
pub const CAP_AVX512VL: CapBit = CapBit { name: "AVX512VL", word: 2, bit: 31 };
pub const CAP_VAES: CapBit = CapBit { name: "VAES", word: 3, bit: 9 };
pub const CAP_VPCLMULQDQ: CapBit = CapBit { name: "VPCLMULQDQ", word: 3, bit: 10 };
pub const CAP_AVX512VBMI2: CapBit = CapBit { name: "AVX512VBMI2", word: 3, bit: 6 };
pub const CAP_AVXIFMA: CapBit = CapBit { name: "AVX-IFMA", word: 5, bit: 23 };

#[rustfmt::skip]
pub const ELIGIBLE_AES_GCM_AVX512: Eligibility = Eligibility {
    symbol: "ossl_vaes_vpclmulqdq_capable", file: "crypto/modes/aes-gcm-avx512.s",
    needs: &[CAP_AVX512F, CAP_AVX512DQ, CAP_AVX512BW, CAP_AVX512VL, CAP_VAES, CAP_VPCLMULQDQ],
};
#[rustfmt::skip]
pub const ELIGIBLE_RSAZ_AVX512: Eligibility = Eligibility {
    symbol: "ossl_rsaz_avx512ifma_eligible", file: "crypto/bn/rsaz-2k-avx512.s",
    needs: &[CAP_AVX512F, CAP_AVX512DQ, CAP_AVX512IFMA, CAP_AVX512VL],
};
#[rustfmt::skip]
pub const ELIGIBLE_RSAZ_AVXIFMA: Eligibility = Eligibility {
    symbol: "ossl_rsaz_avxifma_eligible", file: "crypto/bn/rsaz-2k-avxifma.s",
    needs: &[CAP_AVXIFMA],
};
#[rustfmt::skip]
pub const ELIGIBLE_AES_XTS_AVX512: Eligibility = Eligibility {
    symbol: "aesni_xts_avx512_eligible", file: "crypto/aes/aesni-xts-avx512.s",
    needs: &[CAP_AVX512F, CAP_AVX512DQ, CAP_AVX512BW, CAP_AVX512VL, CAP_AVX512VBMI2, CAP_VAES,
             CAP_VPCLMULQDQ],
};
#[rustfmt::skip]
pub const ELIGIBLE_AES_CFB_AVX512: Eligibility = Eligibility {
    symbol: "ossl_aes_cfb128_vaes_eligible", file: "crypto/aes/aes-cfb-avx512.s",
    needs: &[CAP_AVX512F, CAP_AVX512DQ, CAP_AVX512BW, CAP_VAES],
};

/// Every eligibility function of the x86_64 asm.
pub const ELIGIBILITIES: &[Eligibility] = &[
    ELIGIBLE_AES_GCM_AVX512,
    ELIGIBLE_RSAZ_AVX512,
    ELIGIBLE_RSAZ_AVXIFMA,
    ELIGIBLE_AES_XTS_AVX512,
    ELIGIBLE_AES_CFB_AVX512,
];

/// Whether the CPU running us has a capability bit's feature, with the OS saving its state,
/// as OpenSSL's own probe would set the bit.
pub fn cpu_has(bit: CapBit) -> bool {
    let feature = match bit {
        CAP_AESNI => x86!("aes"),
        CAP_AVX => x86!("avx"),
        CAP_AVX2 => x86!("avx2"),
        CAP_AVX512F => x86!("avx512f"),
        CAP_AVX512DQ => x86!("avx512dq"),
        CAP_AVX512IFMA => x86!("avx512ifma"),
        CAP_AVX512BW => x86!("avx512bw"),
        CAP_AVX512VL => x86!("avx512vl"),
        CAP_VAES => x86!("vaes"),
        CAP_VPCLMULQDQ => x86!("vpclmulqdq"),
        CAP_AVX512VBMI2 => x86!("avx512vbmi2"),
        CAP_AVXIFMA => CpuFeature { name: "avxifma", detected: avxifma },
        other => unreachable!("no CPU feature for {other:?}"),
    };
    (feature.detected)()
}

/// CPUID.(7,1):EAX bit 23 with the OS saving AVX state; `is_x86_feature_detected!` learned
/// "avxifma" after this workspace's minimum Rust.
#[cfg(target_arch = "x86_64")]
fn avxifma() -> bool {
    use std::arch::x86_64::{__cpuid, __cpuid_count};
    // Safe on every x86_64 CPU; older Rust declares the intrinsics unsafe.
    #[allow(unused_unsafe)]
    let leaf7_1 = unsafe { (__cpuid(0).eax >= 7).then(|| __cpuid_count(7, 1).eax) };
    std::is_x86_feature_detected!("avx") && leaf7_1.is_some_and(|eax| eax & (1 << 23) != 0)
}

#[cfg(not(target_arch = "x86_64"))]
fn avxifma() -> bool {
    false
}

const CHACHA_ZMM: &str = "ChaCha20_ctr32 and Poly1305 take their zmm code on it";
const CHACHA_VL: &str = "without AVX512F, ChaCha20_ctr32 takes .LChaCha20_avx512vl on it alone";
const NO_AVX512: &[Observe] = &[
    Bit(CAP_AVX512F, false, CHACHA_ZMM),
    Bit(CAP_AVX512VL, false, CHACHA_VL),
    Bit(CAP_AVX512DQ, false, "AVX-512 eligibility"),
    Bit(CAP_AVX512BW, false, "AVX-512 eligibility"),
    Bit(CAP_AVX512IFMA, false, "RSAZ AVX-512"),
    Bit(CAP_VAES, false, "VAES code"),
    Bit(CAP_VPCLMULQDQ, false, "VPCLMULQDQ code"),
    Eligible(ELIGIBLE_AES_GCM_AVX512, false),
    Eligible(ELIGIBLE_RSAZ_AVX512, false),
    Eligible(ELIGIBLE_AES_XTS_AVX512, false),
    Eligible(ELIGIBLE_AES_CFB_AVX512, false),
];

// What each mask's bits select, from OpenSSL 3.6.3's perlasm (the generated files test the
// same words): chacha-x86_64.pl ChaCha20_ctr32 and poly1305-x86_64.pl poly1305_init/blocks
// read AVX512F, AVX512VL, AVX2, AVX and SSSE3 (words 1-2); AES-GCM takes the AVX-512 code only
// where ossl_vaes_vpclmulqdq_capable (aes-gcm-avx512.pl) answers 1, then aesni-gcm-x86_64.pl's
// stitched AVX code (gcm128.c, gcm_get_funcs: AVX and MOVBE), then CLMUL (ghash-x86_64.pl);
// sha512-x86_64.pl's SHA-512 reads AVX2 and AVX, its SHA-256 SHA-NI first (word 2 bit 29,
// which no mask but "plain" clears); x86_64-mont.pl/x86_64-mont5.pl bn_mul_mont (RSA verify's
// BN_mod_exp_mont, the generic EC arithmetic, ECDSA's inverse mod the order),
// ecp_nistz256-x86_64.pl's ord_mul_mont and x25519-x86_64.pl's x25519_fe64_eligible read only
// BMI2+ADX (0x80100 of word 2), kept by every mask but "plain"; ecp_nistz256_gather_w5/w7
// read AVX2. The RSAZ AVX-512/AVX-IFMA code runs only in BN_mod_exp_mont_consttime(_x2), for
// private keys (rsa_ossl.c, rsa_ossl_mod_exp), which no vector uses.
const AEADS: &[&str] = &["aes_gcm", "chacha20_poly1305"];
const AVX512_ONLY: &str = "without AVX-512 only AES-GCM's VAES code and ChaCha20/Poly1305's \
    AVX-512 code change (RSAZ's runs for private keys alone); AVX2 (SHA-2, P-256) and BMI2+ADX \
    (bignum, P-256, X25519) stay on";
const NO_AVX: &str = "without AVX and AVX2 only the AEADs, SHA-512 and P-256's table gather \
    change; BMI2+ADX (bignum, P-256's field code, X25519) stay on";

// OpenSSL 3.6.3's parser (crypto/cpuid.c, OPENSSL_cpuid_setup) reads `A:B:C:D:E`: A sets
// words 0-1, B 2-3, C 4-5, D 6-7, E 8-9, each as 64 bits, low word first. `~X` masks X
// off what CPUID found, `X` replaces it. A field after the end of the string zeroes its
// words, so "" is "no CPU features at all"; an empty field between colons (`::`) keeps
// them. Masks that keep words 4-9 therefore spell them out as `~0x0`.
#[rustfmt::skip]
pub const X86_64_CODE_PATHS: &[CodePath] = &[
    CodePath { name: "AVX-512", cap: None, qemu_cpu: None, qemu_lacks: None,
        cpu_needs: &[x86!("avx512f"), x86!("avx512vl"), x86!("avx512bw"), x86!("avx512dq"),
                     x86!("avx512ifma"), x86!("avx512vbmi2"), x86!("vaes"), x86!("vpclmulqdq")],
        takes: "zmm ChaCha20/Poly1305, VAES/VPCLMULQDQ AES-GCM, XTS and CFB, AVX-512 RSAZ",
        observe: &[
            Bit(CAP_AVX512F, true, CHACHA_ZMM),
            Bit(CAP_AVX512VL, true, CHACHA_VL),
            Eligible(ELIGIBLE_AES_GCM_AVX512, true),
            Eligible(ELIGIBLE_RSAZ_AVX512, true),
            Eligible(ELIGIBLE_AES_XTS_AVX512, true),
            Eligible(ELIGIBLE_AES_CFB_AVX512, true),
        ],
        families: DriverFamilies::All },
    // No AVX512F only, OpenSSL's way to keep AVX-512 off zmm registers: ChaCha20 then takes
    // its AVX512VL (ymm) code, which no other row reaches; the rest is the AVX2 code.
    CodePath { name: "AVX-512VL", cap: Some("~0x0:~0x10000:~0x0:~0x0:~0x0"), qemu_cpu: None, qemu_lacks: None,
        cpu_needs: &[x86!("avx512f"), x86!("avx512vl")],
        takes: "ymm AVX512VL ChaCha20, the AVX2 code elsewhere",
        observe: &[
            Bit(CAP_AVX512F, false, CHACHA_ZMM),
            Bit(CAP_AVX512VL, true, CHACHA_VL),
            Eligible(ELIGIBLE_AES_GCM_AVX512, false),
            Eligible(ELIGIBLE_RSAZ_AVX512, false),
            Eligible(ELIGIBLE_AES_XTS_AVX512, false),
            Eligible(ELIGIBLE_AES_CFB_AVX512, false),
        ],
        families: DriverFamilies::Only(AEADS, AVX512_ONLY) },
    // Word 2: AVX512 F 16, DQ 17, IFMA 21, CD 28, BW 30, VL 31. Word 3: VBMI 1, VBMI2 6,
    // VAES 9, VPCLMULQDQ 10, VNNI 11, BITALG 12, VPOPCNTDQ 14.
    CodePath { name: "AVX2", cap: Some("~0x0:~0x5e42d0230000:~0x0:~0x0:~0x0"), qemu_cpu: None, qemu_lacks: None,
        cpu_needs: &[x86!("avx2")],
        takes: "AVX2 ChaCha20/Poly1305 and SHA-512, stitched AES-NI/AVX GCM",
        observe: &[Bit(CAP_AVX2, true, "the AVX2 code"), Observe::Group(NO_AVX512)],
        families: DriverFamilies::Only(AEADS, AVX512_ONLY) },
    // Also no AVX (word 1 bit 28, bit 60 of A), AVX2 (word 2 bit 5) or AVX-IFMA (word 5
    // bit 23, bit 55 of C: its RSAZ code looks at nothing else).
    CodePath { name: "AES-NI/SSE",
        cap: Some("~0x1000000000000000:~0x5e42d0230020:~0x80000000000000:~0x0:~0x0"),
        qemu_cpu: None, qemu_lacks: None,
        cpu_needs: &[x86!("aes")],
        takes: "AES-NI with CLMUL GHASH, SSSE3 ChaCha20, SSE2 Poly1305",
        observe: &[Bit(CAP_AESNI, true, "the AES-NI code"), Bit(CAP_AVX, false, "AVX code"),
                   Bit(CAP_AVX2, false, "AVX2 code"), Observe::Group(NO_AVX512)],
        families: DriverFamilies::Only(
            &["aes_gcm", "chacha20_poly1305", "ecdsa_p256", "hkdf", "hmac"], NO_AVX) },
    CodePath { name: "plain",
        cap: Some("~0xffffffffffffffff:~0xffffffffffffffff:~0xffffffffffffffff:~0xffffffffffffffff:~0xffffffffffffffff"),
        qemu_cpu: None, qemu_lacks: None,
        cpu_needs: &[],
        takes: "integer-only asm and C",
        observe: &[Bit(CAP_AESNI, false, "AES-NI code"), Bit(CAP_AVX, false, "AVX code"),
                   Bit(CAP_AVX2, false, "AVX2 code"), Observe::Group(NO_AVX512)],
        // BMI2+ADX off too: bn_mul_mont (RSA, generic EC), P-256 and X25519 change.
        families: DriverFamilies::All },
];

// ---------------------------------------------------------------------------
// aarch64: the OPENSSL_armcap value or qemu CPU that gives each path, and its bits
// ---------------------------------------------------------------------------

// Bits of OPENSSL_armcap_P (crypto/arm_arch.h).
pub const ARMCAP_NEON: CapBit = CapBit { name: "NEON", word: 0, bit: 0 };
pub const ARMCAP_AES: CapBit = CapBit { name: "AES", word: 0, bit: 2 };
pub const ARMCAP_SHA1: CapBit = CapBit { name: "SHA1", word: 0, bit: 3 };
pub const ARMCAP_SHA256: CapBit = CapBit { name: "SHA256", word: 0, bit: 4 };
pub const ARMCAP_PMULL: CapBit = CapBit { name: "PMULL", word: 0, bit: 5 };
pub const ARMCAP_SHA512: CapBit = CapBit { name: "SHA512", word: 0, bit: 6 };
pub const ARMCAP_SHA3: CapBit = CapBit { name: "SHA3", word: 0, bit: 11 };
pub const ARMCAP_SVE: CapBit = CapBit { name: "SVE", word: 0, bit: 13 };
pub const ARMCAP_SVE2: CapBit = CapBit { name: "SVE2", word: 0, bit: 14 };

const ARMV8_CRYPTO: &[CapBit] =
    &[ARMCAP_NEON, ARMCAP_AES, ARMCAP_PMULL, ARMCAP_SHA1, ARMCAP_SHA256];
const ARMV8_2_AND_SVE: &[CapBit] = &[ARMCAP_SHA512, ARMCAP_SHA3, ARMCAP_SVE, ARMCAP_SVE2];
const ARM_CRYPTO_AND_SVE: &[CapBit] = &[
    ARMCAP_AES,
    ARMCAP_PMULL,
    ARMCAP_SHA1,
    ARMCAP_SHA256,
    ARMCAP_SHA512,
    ARMCAP_SHA3,
    ARMCAP_SVE,
    ARMCAP_SVE2,
];
const ARM_CRYPTO_FEATURES: &[CpuFeature] =
    &[arm!("neon"), arm!("aes"), arm!("pmull"), arm!("sha2")];

// What OPENSSL_armcap_P selects on aarch64, in OpenSSL 3.6.3: AES (aes_platform.h:
// HWAES_CAPABLE, VPAES/BSAES_CAPABLE on NEON; AES_PMULL_CAPABLE for aes-gcm-armv8), GHASH
// (gcm128.c, gcm_get_funcs: PMULL, then NEON), ChaCha20 (chacha-armv8.pl ChaCha20_ctr32: SVE
// for chacha-armv8-sve.pl, which wants SVE2, then NEON), Poly1305 (poly1305-armv8.pl
// poly1305_init: NEON), SHA-1/SHA-256/SHA-512 (sha1-armv8.pl, sha512-armv8.pl: the SHA
// instructions, then NEON for SHA-256) and SHA-3 (sha3_prov.c.in: only with
// ARMV8_HAVE_SHA3_AND_WORTH_USING, which crypto/armcap.c sets from the MIDR of a few cores and
// no row's value or CPU has). Nothing else reads it: armv8-mont.pl (bn_mul_mont: RSA, the
// generic EC code), ecp_nistz256-armv8.pl (P-256) and the C of ecp_nistp224/384/521.c and
// curve25519.c (X25519, Ed25519) have no OPENSSL_armcap_P test (crypto/armcap.c's probing
// and the files listed are its only readers). SHA-512 is also every signature family's
// message digest, checked on each path by the digests, kat_sha2, HMAC and HKDF.
const ARM_NO_SVE: &[&str] = &["chacha20_poly1305", "hkdf", "hmac"];
const ARM_ONLY_CHACHA: &str = "without SHA-512, SHA-3 and SVE2 only ChaCha20 (SVE2 code) and \
    SHA-512 change; AES and PMULL stay on, and bignum, P-256, nistp and X25519/Ed25519 code \
    reads no OPENSSL_armcap";
const ARM_NO_CRYPTO: &[&str] = &["aes_gcm", "chacha20_poly1305", "hkdf", "hmac"];
const ARM_ONLY_SYMMETRIC: &str = "without the crypto extension only AES-GCM, ChaCha20-Poly1305 \
    and SHA-2 change; bignum, P-256, nistp and X25519/Ed25519 code reads no OPENSSL_armcap";
const ARMV8_0: &[Observe] = &[Bits(ARMV8_CRYPTO, true, ""), Bits(ARMV8_2_AND_SVE, false, "")];

#[rustfmt::skip]
pub const AARCH64_CODE_PATHS: &[CodePath] = &[
    // qemu's default CPU, `max`, has them all.
    CodePath { name: "max", cap: None, qemu_cpu: None, qemu_lacks: None,
        cpu_needs: &[arm!("neon"), arm!("aes"), arm!("pmull"), arm!("sha2"), arm!("sha3"),
                     arm!("sve"), arm!("sve2")],
        takes: "ARMv8 AES/PMULL/SHA-1/SHA-256, SHA-512 instructions, SVE2 ChaCha20",
        observe: &[Bits(ARMV8_CRYPTO, true, ""), Bits(ARMV8_2_AND_SVE, true, "")],
        families: DriverFamilies::All },
    CodePath { name: "ARMv8-crypto", cap: Some("0x3d"), qemu_cpu: None, qemu_lacks: None,
        cpu_needs: ARM_CRYPTO_FEATURES,
        takes: "ARMv8 AES/PMULL/SHA-1/SHA-256, integer SHA-512, NEON ChaCha20",
        observe: ARMV8_0,
        families: DriverFamilies::Only(ARM_NO_SVE, ARM_ONLY_CHACHA) },
    // OpenSSL's probing on it finds the ARMv8-crypto row's bits, so the same code is selected.
    CodePath { name: "cortex-a53", cap: None, qemu_cpu: Some("cortex-a53"), qemu_lacks: None,
        cpu_needs: &[],
        takes: "what a Cortex-A53 offers, found by OpenSSL's own probing",
        observe: ARMV8_0,
        families: DriverFamilies::Only(ARM_NO_SVE, ARM_ONLY_CHACHA) },
    CodePath { name: "NEON", cap: Some("0x1"), qemu_cpu: None, qemu_lacks: None,
        cpu_needs: &[arm!("neon")],
        takes: "bit-sliced/vector-permute AES, NEON GHASH, ChaCha20 and Poly1305",
        observe: &[Bit(ARMCAP_NEON, true, ""), Bits(ARM_CRYPTO_AND_SVE, false, "")],
        families: DriverFamilies::Only(ARM_NO_CRYPTO, ARM_ONLY_SYMMETRIC) },
    CodePath { name: "plain", cap: Some("0"), qemu_cpu: None, qemu_lacks: None,
        cpu_needs: &[],
        takes: "integer-only asm and C",
        observe: &[Bit(ARMCAP_NEON, false, ""), Bits(ARM_CRYPTO_AND_SVE, false, "")],
        families: DriverFamilies::Only(ARM_NO_CRYPTO, ARM_ONLY_SYMMETRIC) },
];

// ---------------------------------------------------------------------------
// ppc64le: the OPENSSL_ppccap value or qemu CPU that gives each path, and its bits
// ---------------------------------------------------------------------------

// Bits of OPENSSL_ppccap_P (include/crypto/ppc_arch.h). On ppc64le Linux, crypto/ppccap.c sets
// FPU from AT_HWCAP, ALTIVEC, CRYPTO207 (with VSX and HWCAP2's vector crypto), MADD300
// (ISA 3.0) and BRD31 (ISA 3.1) from AT_HWCAP2, and MFTB by trying mftb (the timer
// OPENSSL_rdtsc reads); FPU64 only on POWER6.
pub const PPCCAP_ALTIVEC: CapBit = CapBit { name: "ALTIVEC", word: 0, bit: 1 };
pub const PPCCAP_CRYPTO207: CapBit = CapBit { name: "CRYPTO207", word: 0, bit: 2 };
pub const PPCCAP_FPU: CapBit = CapBit { name: "FPU", word: 0, bit: 3 };
pub const PPCCAP_MADD300: CapBit = CapBit { name: "MADD300", word: 0, bit: 4 };
pub const PPCCAP_BRD31: CapBit = CapBit { name: "BRD31", word: 0, bit: 7 };

// What OPENSSL_ppccap_P selects, in OpenSSL 3.6.3: AES (aes_platform.h: HWAES_CAPABLE on
// CRYPTO207 for aesp8-ppc, VPAES_CAPABLE on ALTIVEC; PPC_AES_GCM_CAPABLE on MADD300 for the
// stitched aes-gcm-ppc), GHASH (gcm128.c: CRYPTO207 for ghashp8-ppc), ChaCha20 (chacha_ppc.c:
// BRD31 for chachap10-ppc, CRYPTO207 for the VSX code, ALTIVEC for the VMX code), Poly1305
// (poly1305_ppc.c: CRYPTO207; the FPU code only on 32-bit), SHA-256/SHA-512 (sha_ppc.c:
// CRYPTO207 for the p8 code), bn_mul_mont (bn_ppc.c: MADD300 for ppc64-mont-fixed's 6-limb
// code, which P-384's generic Montgomery field takes; RSA's sizes are multiples of 4 limbs, for
// bn_mul4x_mont_int) and P-384/P-521 (ecp_nistp384/521.c: MADD300 and ALTIVEC for their ppc64
// field code, which this row's refused C variant would bring). Keccak's p8 file is linked in but no C reads a bit for it.
const PPC_ONLY_CHACHA: &str = "with ISA 3.1 only ChaCha20 changes (to chachap10-ppc's code); \
    everything else reads bits the default path has too";
const PPC_NO_MADD300: &[&str] = &["aes_gcm", "ecdsa_p384"];
const PPC_ONLY_GCM_P384: &str = "without ISA 3.0 only AES-GCM (the stitched aes-gcm-ppc code) and \
    P-384's 6-limb Montgomery multiplication change; RSA's sizes, P-256's nistz256 code and \
    X25519/Ed25519 read no OPENSSL_ppccap";
const PPC_NO_CRYPTO: &[&str] = &["aes_gcm", "chacha20_poly1305", "ecdsa_p384", "hkdf", "hmac"];
const PPC_ONLY_SYMMETRIC: &str = "without POWER8's crypto only AES-GCM, ChaCha20-Poly1305, SHA-2 \
    and P-384's Montgomery multiplication change; RSA's sizes, P-256's nistz256 code and \
    X25519/Ed25519 read no OPENSSL_ppccap";
const POWER9_BITS: &[CapBit] = &[PPCCAP_FPU, PPCCAP_ALTIVEC, PPCCAP_CRYPTO207, PPCCAP_MADD300];

#[rustfmt::skip]
pub const PPC64LE_CODE_PATHS: &[CodePath] = &[
    // qemu-ppc64le 7.2's default CPU is a POWER9.
    CodePath { name: "default", cap: None, qemu_cpu: None, qemu_lacks: None, cpu_needs: &[],
        takes: "POWER9 stitched AES-GCM and 6-limb Montgomery, POWER8 AES, GHASH, SHA-2 and \
                Poly1305, VSX ChaCha20",
        observe: &[Bits(POWER9_BITS, true, ""), Bit(PPCCAP_BRD31, false, "")],
        families: DriverFamilies::All },
    CodePath { name: "POWER10", cap: None, qemu_cpu: Some("power10"), qemu_lacks: None, cpu_needs: &[],
        takes: "ChaCha20's POWER10 code, the default path's elsewhere",
        observe: &[Bits(POWER9_BITS, true, ""), Bit(PPCCAP_BRD31, true, "")],
        families: DriverFamilies::Only(&["chacha20_poly1305"], PPC_ONLY_CHACHA) },
    CodePath { name: "POWER8", cap: Some("0x2e"), qemu_cpu: None, qemu_lacks: None, cpu_needs: &[],
        takes: "POWER8 AES, GHASH, SHA-2 and Poly1305, VSX ChaCha20, generic Montgomery",
        observe: &[Bits(&[PPCCAP_FPU, PPCCAP_ALTIVEC, PPCCAP_CRYPTO207], true, ""),
                   Bits(&[PPCCAP_MADD300, PPCCAP_BRD31], false, "")],
        families: DriverFamilies::Only(PPC_NO_MADD300, PPC_ONLY_GCM_P384) },
    CodePath { name: "AltiVec", cap: Some("0x2a"), qemu_cpu: None, qemu_lacks: None, cpu_needs: &[],
        takes: "vector-permute AES, VMX ChaCha20, integer SHA-2, GHASH and Poly1305",
        observe: &[Bits(&[PPCCAP_FPU, PPCCAP_ALTIVEC], true, ""),
                   Bits(&[PPCCAP_CRYPTO207, PPCCAP_MADD300, PPCCAP_BRD31], false, "")],
        families: DriverFamilies::Only(PPC_NO_CRYPTO, PPC_ONLY_SYMMETRIC) },
    CodePath { name: "plain", cap: Some("0"), qemu_cpu: None, qemu_lacks: None, cpu_needs: &[],
        takes: "integer-only asm and C",
        observe: &[Bits(&[PPCCAP_FPU, PPCCAP_ALTIVEC, PPCCAP_CRYPTO207, PPCCAP_MADD300,
                          PPCCAP_BRD31], false, "")],
        families: DriverFamilies::Only(PPC_NO_CRYPTO, PPC_ONLY_SYMMETRIC) },
];

// ---------------------------------------------------------------------------
// s390x: the OPENSSL_s390xcap mask that gives each path, and its bits
// ---------------------------------------------------------------------------

/// Bit `i` of a big-endian 64-bit bit string starting at 64-bit word `at` (crypto/s390x_arch.h:
/// `S390X_CAPBIT(i)` is `1ULL << (63 - i % 64)`), as a bit of the driver's 32-bit words.
const fn s390x_bit(name: &'static str, at: usize, i: usize) -> CapBit {
    let (word64, pos) = (at + i / 64, 63 - (i % 64) as u32);
    CapBit { name, word: 2 * word64 + if pos >= 32 { 0 } else { 1 }, bit: pos % 32 }
}

// Facility bits of STFLE (word 0) and function codes of each CPACF instruction's query, at the
// 64-bit word of its S390X_* offset (KIMD 0x20, KLMD 0x30, KM 0x40, KMA 0xb0, KDSA 0xd0).
pub const S390X_MSA: CapBit = s390x_bit("MSA", 0, 17);
pub const S390X_VX: CapBit = s390x_bit("VX", 0, 129);
pub const S390X_KIMD_SHA512: CapBit = s390x_bit("KIMD-SHA-512", 4, 3);
pub const S390X_KIMD_GHASH: CapBit = s390x_bit("KIMD-GHASH", 4, 65);
pub const S390X_KLMD_SHA512: CapBit = s390x_bit("KLMD-SHA-512", 6, 3);
pub const S390X_KM_AES128: CapBit = s390x_bit("KM-AES-128", 8, 18);
pub const S390X_KMA_AES128: CapBit = s390x_bit("KMA-GCM-AES-128", 22, 18);
pub const S390X_KDSA_P256_SIGN: CapBit = s390x_bit("KDSA-ECDSA-SIGN-P256", 26, 9);

// What OPENSSL_s390xcap_P selects, in OpenSSL 3.6.3: AES (aes-s390x: KM/KMC per key length,
// KMA for GCM, KMCTR; the providers' cipher_aes_*_s390x too), GHASH (ghash-s390x: KIMD-GHASH),
// SHA-1/256/512 (sha*-s390x: KIMD per function), SHA-3 (sha3.c and the provider: KIMD/KLMD),
// ChaCha20 and Poly1305 (their s390x files: the VX bit for the vector code), HMAC (hmac_s390x.c:
// KMAC-HMAC), P-256/384/521 (ecp_s390x_nistp.c: PCC and KDSA) and X25519/Ed25519 (ecx: PCC,
// KDSA). qemu 7.2 has the vector facility and, of CPACF, KIMD/KLMD SHA-512 and PRNO's TRNG.
const S390X_NO_VECTOR: &str = "without the vector facility only ChaCha20 and Poly1305 change \
    (to their scalar code); AES, GHASH, SHA and the bignum code read no vector bit";
const S390X_PLAIN: &[&str] = &["chacha20_poly1305", "hmac"];
const S390X_ONLY_EMULATED: &str = "without any facility ChaCha20 and Poly1305 take their scalar \
    code and SHA-384/512 sha512-s390x's instead of KIMD's (the digests and HMAC check it); \
    qemu emulates no CPACF function that the other families' code reads";
/// What qemu-user 7.2 lacks for CPACF's other functions.
const QEMU_NO_CPACF: &str = "of CPACF it emulates only KIMD/KLMD SHA-512 and PRNO's TRNG: not \
    KM/KMA/KMCTR (AES, AES-GCM), KIMD-GHASH, KMAC, PCC or KDSA (P-256/384/521, X25519, \
    Ed25519)";

#[rustfmt::skip]
pub const S390X_CODE_PATHS: &[CodePath] = &[
    // qemu-s390x 7.2's default CPU: the vector facility, KIMD/KLMD SHA-512, no AES function.
    CodePath { name: "default", cap: None, qemu_cpu: None, qemu_lacks: None, cpu_needs: &[],
        takes: "vector ChaCha20 and Poly1305, KIMD's SHA-512, table-driven AES and GHASH",
        observe: &[Bits(&[S390X_MSA, S390X_VX, S390X_KIMD_SHA512, S390X_KLMD_SHA512], true, ""),
                   Bits(&[S390X_KM_AES128, S390X_KMA_AES128, S390X_KIMD_GHASH], false,
                        "qemu emulates no CPACF AES or GHASH")],
        families: DriverFamilies::All },
    // A z15's own default: CPACF for AES-GCM, GHASH and the NIST and Edwards curves.
    CodePath { name: "CPACF", cap: None, qemu_cpu: None, qemu_lacks: Some(QEMU_NO_CPACF),
        cpu_needs: &[],
        takes: "CPACF's KMA AES-GCM, KM AES, KIMD GHASH and SHA, KDSA/PCC ECDSA and EdDSA",
        observe: &[Bits(&[S390X_VX, S390X_KM_AES128, S390X_KMA_AES128, S390X_KIMD_GHASH,
                          S390X_KDSA_P256_SIGN], true, "")],
        families: DriverFamilies::All },
    CodePath { name: "no-vector", cap: Some("stfle:~0:~0:~0x4000000000000000"), qemu_cpu: None,
        qemu_lacks: None, cpu_needs: &[],
        takes: "scalar ChaCha20 and Poly1305, KIMD's SHA-512",
        observe: &[Bit(S390X_VX, false, ""),
                   Bits(&[S390X_MSA, S390X_KIMD_SHA512, S390X_KLMD_SHA512], true, "")],
        families: DriverFamilies::Only(&["chacha20_poly1305"], S390X_NO_VECTOR) },
    CodePath { name: "plain", cap: Some("stfle:0:0:0"), qemu_cpu: None, qemu_lacks: None,
        cpu_needs: &[],
        takes: "z/Architecture's integer instructions only",
        observe: &[Bits(&[S390X_MSA, S390X_VX, S390X_KIMD_SHA512, S390X_KLMD_SHA512], false, "")],
        families: DriverFamilies::Only(S390X_PLAIN, S390X_ONLY_EMULATED) },
];

// ---------------------------------------------------------------------------
// riscv64: the OPENSSL_riscvcap string and qemu CPU that give each path, and its bits
// ---------------------------------------------------------------------------

// Bits of OPENSSL_riscvcap_P[0] (include/crypto/riscv_arch.def's bit offsets).
pub const RV_ZBB: CapBit = CapBit { name: "ZBB", word: 0, bit: 1 };
pub const RV_ZBC: CapBit = CapBit { name: "ZBC", word: 0, bit: 2 };
pub const RV_ZBKB: CapBit = CapBit { name: "ZBKB", word: 0, bit: 4 };
pub const RV_ZKND: CapBit = CapBit { name: "ZKND", word: 0, bit: 7 };
pub const RV_ZKNE: CapBit = CapBit { name: "ZKNE", word: 0, bit: 8 };
pub const RV_ZKNH: CapBit = CapBit { name: "ZKNH", word: 0, bit: 9 };
pub const RV_V: CapBit = CapBit { name: "V", word: 0, bit: 14 };
pub const RV_ZVKNED: CapBit = CapBit { name: "ZVKNED", word: 0, bit: 19 };
pub const RV_ZVKG: CapBit = CapBit { name: "ZVKG", word: 0, bit: 18 };
const RV_SCALAR: &[CapBit] = &[RV_ZBB, RV_ZBC, RV_ZBKB, RV_ZKND, RV_ZKNE, RV_ZKNH, RV_V];

/// Every extension OpenSSL's riscv64 asm uses that qemu-riscv64 7.2 emulates: the string only
/// tells OpenSSL, so the emulated CPU must have each one (or the asm faults).
const RV_CPU: &str = "rv64,v=true,vlen=128,elen=64,vext_spec=v1.0,zbb=true,zbc=true,zbkb=true,\
    zkne=true,zknd=true,zknh=true";

// What OPENSSL_riscvcap_P selects, in OpenSSL 3.6.3: AES (aes_platform.h: Zkne and Zknd for
// aes-riscv64-zkn, V with Zvkned (and Zvkb, Zvbb, Zvkg) for the vector files), GHASH (gcm128.c:
// Zbc for ghash-riscv64, with Zbkb for its __zbkb code; Zvkg or Zvkb with Zvbc for the vector
// ones), ChaCha20 (chacha_riscv.c: V and Zbb, VLEN >= 128; Zvkb too for the zvkb file),
// SHA-256/512 and MD5 (sha_riscv.c, md5_riscv.c: Zbb; V with Zvkb and Zvknha/b for SHA-2).
// Poly1305, the curves and RSA have no riscv64 asm.
const RV_ONLY_SHA: &str = "with Zbb alone only SHA-2 and MD5 change (to their Zbb code), which \
    the digests and HMAC check; no cipher, curve or bignum code reads Zbb alone";
const RV_ONLY_GHASH: &str = "with Zbc alone only GHASH changes (to its clmul code); the other \
    families read no Zbc";
/// What qemu-user 7.2 lacks for the vector crypto paths.
const QEMU_NO_ZVK: &str = "qemu gained the vector crypto extensions (Zvbb, Zvbc, Zvkb, Zvkg, \
    Zvkned, Zvknha/b, Zvksed, Zvksh) in 8.2";

#[rustfmt::skip]
pub const RISCV64_CODE_PATHS: &[CodePath] = &[
    // No string and no hwprobe: nothing is set, whatever the CPU.
    CodePath { name: "default", cap: None, qemu_cpu: None, qemu_lacks: None, cpu_needs: &[],
        takes: "RV64GC's integer code: table AES, 4-bit GHASH, plain SHA-2 and ChaCha20",
        observe: &[Bits(RV_SCALAR, false, "no ISA string, and no hwprobe in Debian 12's headers")],
        families: DriverFamilies::All },
    CodePath { name: "vector-crypto", cap: Some("rv64gc_v_zbb_zvbb_zvbc_zvkb_zvkg_zvkned_zvknha_zvknhb_zvksed_zvksh"),
        qemu_cpu: None, qemu_lacks: Some(QEMU_NO_ZVK), cpu_needs: &[],
        takes: "Zvkned AES and AES-GCM, Zvkg GHASH, Zvknhb SHA-2, Zvkb ChaCha20",
        observe: &[Bits(&[RV_V, RV_ZVKNED, RV_ZVKG], true, "")],
        families: DriverFamilies::All },
    CodePath { name: "scalar-crypto+V", cap: Some("rv64gc_zbb_zbc_zbkb_zkne_zknd_zknh_v"),
        qemu_cpu: Some(RV_CPU), qemu_lacks: None, cpu_needs: &[],
        takes: "Zkne/Zknd AES, Zbc+Zbkb GHASH, Zbb SHA-2 and MD5, V+Zbb ChaCha20",
        observe: &[Bits(RV_SCALAR, true, "")],
        families: DriverFamilies::All },
    CodePath { name: "Zbb", cap: Some("rv64gc_zbb"), qemu_cpu: Some(RV_CPU), qemu_lacks: None,
        cpu_needs: &[],
        takes: "Zbb SHA-2 and MD5, the default path's code elsewhere",
        observe: &[Bit(RV_ZBB, true, ""),
                   Bits(&[RV_ZBC, RV_ZBKB, RV_ZKND, RV_ZKNE, RV_ZKNH, RV_V], false, "")],
        families: DriverFamilies::Only(&["hmac"], RV_ONLY_SHA) },
    CodePath { name: "Zbc", cap: Some("rv64gc_zbc"), qemu_cpu: Some(RV_CPU), qemu_lacks: None,
        cpu_needs: &[],
        takes: "clmul GHASH without Zbkb, the default path's code elsewhere",
        observe: &[Bit(RV_ZBC, true, ""),
                   Bits(&[RV_ZBB, RV_ZBKB, RV_ZKND, RV_ZKNE, RV_ZKNH, RV_V], false, "")],
        families: DriverFamilies::Only(&["aes_gcm"], RV_ONLY_GHASH) },
];

// ---------------------------------------------------------------------------
// x86 (32-bit): the OPENSSL_ia32cap value that forces each path, and its bits
// ---------------------------------------------------------------------------

// The same OPENSSL_ia32cap_P and parser as x86_64 (crypto/cpuid.c), other bits read by other
// functions: x86cpuid.pl fills words 0-1 from CPUID.1 (with bit 30 of word 0 set on Intel
// CPUs) and 2-9 as on x86_64; none of the 32-bit asm reads AVX-512, and it has no
// eligibility function, so each path is proved by the bits read back alone.
pub const CAP_FXSR: CapBit = CapBit { name: "FXSR", word: 0, bit: 24 };
pub const CAP_SSE: CapBit = CapBit { name: "SSE", word: 0, bit: 25 };
pub const CAP_SSE2: CapBit = CapBit { name: "SSE2", word: 0, bit: 26 };
/// Not CPUID's: x86cpuid.pl sets it on Intel CPUs, and sha1-586 and sha256-586 take their
/// AVX code only with it.
pub const CAP_INTEL: CapBit = CapBit { name: "Intel CPU", word: 0, bit: 30 };
pub const CAP_PCLMULQDQ: CapBit = CapBit { name: "PCLMULQDQ", word: 1, bit: 1 };
pub const CAP_SSSE3: CapBit = CapBit { name: "SSSE3", word: 1, bit: 9 };
pub const CAP_XOP: CapBit = CapBit { name: "XOP", word: 1, bit: 11 };
pub const CAP_BMI1: CapBit = CapBit { name: "BMI1", word: 2, bit: 3 };
pub const CAP_BMI2: CapBit = CapBit { name: "BMI2", word: 2, bit: 8 };
pub const CAP_SHA: CapBit = CapBit { name: "SHA", word: 2, bit: 29 };

// What each value's bits select in OpenSSL 3.6.3's 32-bit asm and the C that dispatches to it:
// AES (aes_platform.h: AES-NI, then SSSE3 for vpaes-x86, else aes-586, whose AES_encrypt
// takes its SSE code with SSE); aesni-x86's key schedule (AVX without XOP: its AVX-era
// variant); GHASH (gcm128.c: PCLMULQDQ for ghash-x86's clmul code, SSE for its MMX code, else
// its x86 code); ChaCha20 (chacha-x86 ChaCha20_ctr32: FXSR and SSSE3, then XOP); Poly1305
// (poly1305-x86 poly1305_init: SSE2 and FXSR, then AVX2); SHA-1 (sha1-586: SSSE3 and FXSR,
// then SHA, then AVX on an Intel CPU) and SHA-256 (sha256-586: likewise, its AVX code with
// BMI1+BMI2 when both are there); SHA-512 (sha512-586: SSE2, then SSSE3 and FXSR); bignum
// (bn-586, x86-mont: SSE2) and P-256 (ecp_nistz256-x86: SSE2 and FXSR). X25519 and Ed25519
// are C on 32-bit x86, and read no bit; SHA-512 is their digest, which the digests check.
const X86_NO_AVX2_SHA: &str = "with SHA-NI and AVX2 off but AVX on an Intel CPU's word, only \
    SHA-1 and SHA-256 change (to their AVX and AVX+BMI code), which the digests, HMAC and HKDF \
    check; AES-NI, CLMUL, Poly1305's AVX2 and the SSE2 bignum and P-256 code stay";
const X86_SYMMETRIC: &[&str] = &["aes_gcm", "chacha20_poly1305", "hkdf", "hmac"];
const X86_ONLY_SYMMETRIC: &str = "without AES-NI, CLMUL, AVX, AVX2 and SHA only AES-GCM, \
    ChaCha20-Poly1305 and SHA change; SSE2 stays on, so bignum (RSA, ECDSA) and P-256 take the \
    default path's SSE2 code";
/// Bits every path but the plain one keeps.
const X86_SSE2: &[CapBit] = &[CAP_FXSR, CAP_SSE, CAP_SSE2];

// A field after the end of the string zeroes its words, so each value spells all five. A
// value without `~` replaces CPUID's words instead of masking them: the AVX+BMI path sets
// the Intel bit with exactly the features it needs (words 0-1: MMX, FXSR, SSE, SSE2, Intel;
// PCLMULQDQ, SSSE3, AES-NI, AVX; word 2: BMI1, AVX2, BMI2), so any CPU that has them runs the
// AVX code Intel CPUs get; XOP is on only where the CPU has it (the first path), on AMD's
// family 15h, where ChaCha20 and AES-NI's key schedule take their XOP code.
#[rustfmt::skip]
pub const X86_CODE_PATHS: &[CodePath] = &[
    CodePath { name: "SHA-NI", cap: None, qemu_cpu: None, qemu_lacks: None,
        cpu_needs: &[x86!("sha"), x86!("avx2"), x86!("aes"), x86!("pclmulqdq"), x86!("ssse3"),
                     x86!("sse2"), x86!("fxsr")],
        takes: "SHA-NI SHA-1/SHA-256, AES-NI with CLMUL GHASH, AVX2 Poly1305, SSSE3 ChaCha20 \
                and SHA-512, SSE2 bignum and P-256",
        observe: &[Bits(&[CAP_SHA, CAP_AVX2, CAP_AESNI, CAP_PCLMULQDQ, CAP_SSSE3], true, ""),
                   Bits(X86_SSE2, true, "")],
        families: DriverFamilies::All },
    CodePath { name: "AVX+BMI", cap: Some("0x1200020247800000:0x128:0x0:0x0:0x0"),
        qemu_cpu: None, qemu_lacks: None,
        cpu_needs: &[x86!("avx"), x86!("avx2"), x86!("bmi1"), x86!("bmi2"), x86!("aes"),
                     x86!("pclmulqdq"), x86!("ssse3"), x86!("sse2"), x86!("fxsr")],
        takes: "AVX SHA-1, AVX+BMI SHA-256 (an Intel CPU's code), the default path's elsewhere",
        observe: &[Bits(&[CAP_INTEL, CAP_AVX, CAP_AVX2, CAP_BMI1, CAP_BMI2], true,
                        "the AVX SHA code"),
                   Bits(&[CAP_SHA, CAP_XOP], false, "the AVX SHA code")],
        families: DriverFamilies::Only(&["hkdf", "hmac"], X86_NO_AVX2_SHA) },
    // Word 1: PCLMULQDQ 1, XOP 11, AES-NI 25, AVX 28; word 2: AVX2 5, SHA 29.
    CodePath { name: "SSSE3", cap: Some("~0x1200080200000000:~0x20000020:~0x0:~0x0:~0x0"),
        qemu_cpu: None, qemu_lacks: None,
        cpu_needs: &[x86!("ssse3"), x86!("sse2"), x86!("fxsr")],
        takes: "vpaes AES, MMX GHASH, SSSE3 ChaCha20, SHA-1, SHA-256 and SHA-512, SSE2 Poly1305",
        observe: &[Bit(CAP_SSSE3, true, "the SSSE3 code"), Bits(X86_SSE2, true, ""),
                   Bits(&[CAP_AESNI, CAP_PCLMULQDQ, CAP_AVX, CAP_AVX2, CAP_SHA], false, "")],
        families: DriverFamilies::Only(X86_SYMMETRIC, X86_ONLY_SYMMETRIC) },
    CodePath { name: "SSE2", cap: Some("~0x12000a0200000000:~0x20000020:~0x0:~0x0:~0x0"),
        qemu_cpu: None, qemu_lacks: None,
        cpu_needs: &[x86!("sse2"), x86!("fxsr")],
        takes: "aes-586's SSE AES, MMX GHASH, integer ChaCha20, SHA-1 and SHA-256, SSE2 \
                Poly1305 and SHA-512",
        observe: &[Bits(X86_SSE2, true, ""),
                   Bits(&[CAP_SSSE3, CAP_AESNI, CAP_PCLMULQDQ, CAP_AVX, CAP_AVX2, CAP_SHA], false,
                        "")],
        families: DriverFamilies::Only(X86_SYMMETRIC, X86_ONLY_SYMMETRIC) },
    CodePath { name: "plain",
        cap: Some("~0xffffffffffffffff:~0xffffffffffffffff:~0xffffffffffffffff:~0xffffffffffffffff:~0xffffffffffffffff"),
        qemu_cpu: None, qemu_lacks: None, cpu_needs: &[],
        takes: "i386 integer asm: x86 AES and GHASH, integer Poly1305, SHA, bignum and P-256",
        observe: &[Bits(X86_SSE2, false, "their SSE and SSE2 code"),
                   Bits(&[CAP_SSSE3, CAP_AESNI, CAP_PCLMULQDQ, CAP_AVX, CAP_AVX2, CAP_SHA], false,
                        "")],
        // SSE2 off too: bignum (RSA, ECDSA), P-256 and SHA-512 change.
        families: DriverFamilies::All },
];

// ---------------------------------------------------------------------------
// 32-bit ARM: the OPENSSL_armcap value that gives each path, and its bits (issue 36)
// ---------------------------------------------------------------------------

// crypto/armcap.c on 32-bit Linux: NEON from AT_HWCAP (bit 12), and with it AES, PMULL, SHA-1
// and SHA-256 from AT_HWCAP2 (bits 0-3); the same ARMV7_*/ARMV8_* bits as aarch64's. TICK
// (bit 1) is only ever set by the variable's value. qemu-arm 7.2's default CPU, `max`, reports
// NEON and the four (hwcap2 0x1f); its cortex-a15 reports NEON alone.
pub const ARMCAP_TICK: CapBit = CapBit { name: "TICK", word: 0, bit: 1 };
const ARMV7_ALL: &[CapBit] = &[ARMCAP_NEON, ARMCAP_AES, ARMCAP_PMULL, ARMCAP_SHA1, ARMCAP_SHA256];
const ARMV7_CRYPTO: &[CapBit] = &[ARMCAP_AES, ARMCAP_PMULL, ARMCAP_SHA1, ARMCAP_SHA256];

// What OPENSSL_armcap_P selects on 32-bit ARM, in OpenSSL 3.6.3: AES (aes_platform.h:
// HWAES_CAPABLE on AES for aesv8-armx, BSAES/VPAES_CAPABLE on NEON), GHASH (gcm128.c: PMULL
// for ghashv8-armx, then NEON for ghash-armv4's gcm_*_neon, then the 4-bit tables), ChaCha20
// and Poly1305 (chacha-armv4.pl ChaCha20_ctr32, poly1305-armv4.pl poly1305_init: NEON),
// SHA-1/SHA-256 (sha1-armv4-large.pl, sha256-armv4.pl: the SHA instructions, then NEON),
// SHA-512 (sha512-armv4.pl: NEON) and bn_mul_mont (armv4-mont.pl: NEON's bn_mul8x_mont_neon
// when the length in 32-bit words is a multiple of 8: RSA's moduli and CRT primes, not P-224's
// 7, P-384's 12 or P-521's 17). ecp_nistz256-armv4.pl (P-256) and curve25519's C read nothing.
const ARMV7_NO_CRYPTO: &[&str] = &["aes_gcm", "hkdf", "hmac"];
const ARMV7_ONLY_SYMMETRIC: &str = "without the ARMv8 crypto extensions only AES-GCM and SHA-1/\
    SHA-256 change (NEON takes them); ChaCha20-Poly1305 and RSA's Montgomery code stay on NEON, \
    and the curves' code reads no OPENSSL_armcap";
const ARMV7_PLAIN: &[&str] =
    &["aes_gcm", "chacha20_poly1305", "rsa_pkcs1", "rsa_pss", "hkdf", "hmac"];
const ARMV7_ONLY_PLAIN: &str = "without NEON AES-GCM, ChaCha20-Poly1305, SHA-1/SHA-256/SHA-512 \
    and RSA's Montgomery multiplication change (to their integer code); P-224/384/521's lengths \
    never take the NEON Montgomery code, and P-256's nistz256 and X25519/Ed25519 read no \
    OPENSSL_armcap";

#[rustfmt::skip]
pub const ARMV7_CODE_PATHS: &[CodePath] = &[
    CodePath { name: "max", cap: None, qemu_cpu: None, qemu_lacks: None, cpu_needs: &[],
        takes: "ARMv8 AES/PMULL/SHA-1/SHA-256 in AArch32, NEON ChaCha20, Poly1305, SHA-512 and \
                Montgomery",
        observe: &[Bits(ARMV7_ALL, true, "qemu's max CPU reports them in AT_HWCAP/AT_HWCAP2"),
                   Bit(ARMCAP_TICK, false, "only a value sets it")],
        families: DriverFamilies::All },
    CodePath { name: "NEON", cap: Some("0x1"), qemu_cpu: None, qemu_lacks: None, cpu_needs: &[],
        takes: "bit-sliced AES, NEON GHASH, SHA-1, SHA-256, SHA-512, ChaCha20, Poly1305 and \
                Montgomery",
        observe: &[Bit(ARMCAP_NEON, true, ""), Bits(ARMV7_CRYPTO, false, "")],
        families: DriverFamilies::Only(ARMV7_NO_CRYPTO, ARMV7_ONLY_SYMMETRIC) },
    CodePath { name: "plain", cap: Some("0"), qemu_cpu: None, qemu_lacks: None, cpu_needs: &[],
        takes: "ARMv4's integer-only asm and C",
        observe: &[Bits(ARMV7_ALL, false, "")],
        families: DriverFamilies::Only(ARMV7_PLAIN, ARMV7_ONLY_PLAIN) },
];

// ---------------------------------------------------------------------------
// MIPS64: one code path (issue 36)
// ---------------------------------------------------------------------------

/// OpenSSL's MIPS asm (bn, Montgomery, AES, SHA-1/256/512, Poly1305) has no capability
/// variable: each function has one body, chosen when it was assembled, so the plain run of the
/// driver is the only path there is, and no run needs a variable set or a CPU chosen.
#[rustfmt::skip]
pub const MIPS64_CODE_PATHS: &[CodePath] = &[
    CodePath { name: "only", cap: None, qemu_cpu: None, qemu_lacks: None, cpu_needs: &[],
        takes: "MIPS64's one code path: its asm reads no capability variable",
        observe: &[], families: DriverFamilies::All },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mask_spells_all_five_fields() {
        // A field left off zeroes its words, which is how "" came to mean "plain".
        for p in X86_64_CODE_PATHS.iter().chain(X86_CODE_PATHS) {
            if let Some(mask) = p.cap {
                let fields: Vec<&str> = mask.split(':').collect();
                assert_eq!(fields.len(), 5, "{}: {mask}", p.name);
                assert!(fields.iter().all(|f| !f.is_empty()), "{}: {mask}", p.name);
            }
        }
        assert!(code_path_by_name(Arch::X86_64, "AVX-512").unwrap().cap.is_none());
        let e = code_path_by_name(Arch::X86_64, "SSE4").unwrap_err().to_string();
        assert!(e.contains("AVX2, AES-NI/SSE"), "{e}");
    }

    /// Each architecture's first path leaves the variable unset and runs every family; an
    /// exact value is what the symbol becomes, so the bits a path expects must agree with it;
    /// Hand-checked against crypto/s390x_arch.h's offsets and qemu-s390x's report (word 4 was
    /// 0x71202800 by default, 0x31202800 with the VX mask).
    #[test]
    fn s390x_bits_are_read_big_endian() {
        let at = |b: CapBit| (b.word, b.bit);
        assert_eq!(at(S390X_MSA), (0, 14));
        assert_eq!(at(S390X_VX), (4, 30));
        assert_eq!(at(S390X_KIMD_SHA512), (8, 28));
        assert_eq!(at(S390X_KIMD_GHASH), (10, 30));
        assert_eq!(at(S390X_KM_AES128), (16, 13));
        assert_eq!(at(S390X_KMA_AES128), (44, 13));
        assert_eq!(at(S390X_KDSA_P256_SIGN), (52, 22));
    }

    /// no bit is expected both set and clear.
    #[test]
    fn paths_agree_with_their_values() {
        for &arch in Arch::ALL {
            let paths = arch.code_paths();
            assert!(paths[0].cap.is_none() && paths[0].families == DriverFamilies::All);
            let Some(var) = arch.cap_var() else {
                // No variable: one path, which observes nothing and sets nothing.
                assert!(
                    paths.len() == 1 && paths[0].observe.is_empty() && paths[0].qemu_cpu.is_none()
                );
                continue;
            };
            for p in paths {
                let obs = p.observations();
                for o in &obs {
                    let Observe::Bit(b, want, _) = o else { continue };
                    assert!(b.word < var.words, "{}: {}", p.name, b.name);
                    let other = obs
                        .iter()
                        .any(|x| matches!(x, Observe::Bit(c, w, _) if c == b && w != want));
                    assert!(!other, "{}: {} both set and clear", p.name, b.name);
                }
                let Some(words) = p.exact_words(var).unwrap() else { continue };
                assert!(p.mismatches(var, &words, &|_, w| Some((w, Some(w)))).unwrap().is_empty());
            }
        }
        let arm = |name| code_path_by_name(Arch::Aarch64, name).unwrap();
        assert_eq!(arm("ARMv8-crypto").exact_words(&ARMCAP).unwrap(), Some(vec![0x3d]));
        assert_eq!(arm("plain").exact_words(&ARMCAP).unwrap(), Some(vec![0]));
        assert_eq!(arm("max").exact_words(&ARMCAP).unwrap(), None);
        let wrong = arm("NEON").mismatches(&ARMCAP, &[0x5], &|_, w| Some((w, Some(w)))).unwrap();
        assert_eq!(wrong, ["AES should be clear", "OPENSSL_armcap_P should be 0x1 exactly"]);
    }
}
