//! The one source of truth: asm sets, targets and ISA feature classes, as tables.

use std::fmt;

mod code_paths;
mod lines;
mod msvc;
mod releases;
mod system_symbols;
pub use code_paths::*;
pub use lines::*;
pub use msvc::*;
pub use releases::*;
pub use system_symbols::*;
use triples::*;

/// A Configure option shared by every set, and the releases it applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommonOption {
    pub option: &'static str,
    /// The first OpenSSL release whose Configure no longer knows it (it warns the option
    /// deprecated); `None`: every release takes it.
    pub gone_in: Option<&'static str>,
}

const fn always(option: &'static str) -> CommonOption {
    CommonOption { option, gone_in: None }
}

/// Configure options shared by every set: openssl-src's, with its `legacy` feature on as
/// openssl-sys's `vendored` build has it (no `no-legacy`: with `no-module` the legacy provider
/// is built into libcrypto).
pub const CONFIGURE_COMMON: &[CommonOption] = &[
    always("no-shared"),
    always("no-module"),
    always("no-tests"),
    always("no-comp"),
    always("no-zlib"),
    always("no-zlib-dynamic"),
    always("--libdir=lib"),
    // 4.0 removed SSLv3 (Configure's %deprecated_disablables), though openssl-src still passes it.
    CommonOption { option: "no-ssl3", gone_in: Some("4.0.0") },
    always("no-md2"),
    always("no-rc5"),
    always("no-weak-ssl-ciphers"),
    always("no-camellia"),
    always("no-idea"),
    always("no-seed"),
    always("--prefix=/usr/local"),
    always("--openssldir=/usr/local/ssl"),
];

/// [`CONFIGURE_COMMON`]'s options that OpenSSL `release` (`3.6.3`) takes, in order.
pub fn configure_common(release: &str) -> Vec<&'static str> {
    CONFIGURE_COMMON
        .iter()
        .filter(|o| o.gone_in.is_none_or(|gone| !crate::version::at_least(release, gone)))
        .map(|o| o.option)
        .collect()
}

/// The legacy provider (DES, RC2, RC4, MD4, … and the PKCS#12 files they protect), built into
/// libcrypto as openssl-sys's `vendored` build has it, and left out by crypto-sys's
/// `--no-default-features` (no `legacy` feature) or `cargo xtask build --no-legacy`. Leaving it
/// out is what Configure's `no-legacy` does: the units below go, and `define` with them.
/// Generation checks this against a real `no-legacy` Configure of each target's `asm` set.
pub struct BuiltInProvider {
    /// Configure's option that leaves it out.
    pub configure_off: &'static str,
    /// Static libraries whose objects are the provider's.
    pub libs: &'static [&'static str],
    /// Sources linked into libcrypto directly that are the provider's.
    pub sources: &'static [&'static str],
    /// The define that registers it as built in (`-D` word of libcrypto's units).
    pub define: &'static str,
    /// A symbol only its objects define; `cargo xtask verify` looks for it.
    pub marker: &'static str,
}

pub const LEGACY: BuiltInProvider = BuiltInProvider {
    configure_off: "no-legacy",
    libs: &["providers/liblegacy.a"],
    sources: &["providers/legacyprov.c"],
    define: "-DSTATIC_LEGACY",
    marker: "ossl_legacy_provider_init",
};

/// The FIPS provider module (`fips.so`, `fips.dll`), as Configure's `enable-fips` lays it out:
/// generation configures each group a second time so, and records the module's units (library
/// `fips`), its link flags and the generated files its configuration makes otherwise. Only the
/// module is built from that configuration: libcrypto, libssl and the program stay the
/// `no-module` build's, whose libcrypto loads a module all the same (no C file asks for
/// `OPENSSL_NO_MODULE`, and the DSO loader stays on).
pub struct FipsModule {
    /// The option that turns it on.
    pub configure_on: &'static str,
    /// The common option it cannot be built with (Configure cascades it to `no-fips`).
    pub configure_drops: &'static str,
    /// Inputs of recipes generation never runs that Configure still wants present: the
    /// modules' export lists' (`util/providers.num`, which the registry's openssl-src leaves
    /// out). Each is written empty into the scratch tree for that Configure alone; the build
    /// writes the module's one export ([`FipsModule::entry`]) itself.
    pub placeholders: &'static [&'static str],
    /// Where a set keeps the generated files the module's configuration makes otherwise than
    /// the libraries' (its `configuration.h`, which leaves the self-tests and the security
    /// checks on; its `fipskey.h`): `<set>/<target>/gen/fips/…`, ahead of `include` for its
    /// units only.
    pub gen_dir: &'static str,
    /// The one symbol the module exports: OpenSSL's provider entry point.
    pub entry: &'static str,
    /// The module's file, by its configuration's name in OpenSSL's `ossl-modules/`.
    pub name: &'static str,
}

pub const FIPS: FipsModule = FipsModule {
    configure_on: "enable-fips",
    configure_drops: "no-module",
    placeholders: &["util/providers.num"],
    gen_dir: "fips",
    entry: "OSSL_provider_init",
    name: "fips",
};

/// An OpenSSL release whose FIPS provider has a FIPS 140 validation, and the openssl-src
/// crate on crates.io that holds its source: what docs/fips.md names, and what `--full`'s
/// `fips-validated` step builds by the release's own Configure and make and loads into the
/// default line's libcrypto.
pub struct ValidatedRelease {
    pub release: &'static str,
    pub crate_version: &'static str,
    /// The standard and the CMVP certificate, as OpenSSL announced them.
    pub validation: &'static str,
}

pub const FIPS_VALIDATED: &[ValidatedRelease] = &[
    ValidatedRelease {
        release: "3.1.2",
        crate_version: "300.1.4",
        validation: "FIPS 140-3, certificate #4985",
    },
    ValidatedRelease {
        release: "3.0.8",
        crate_version: "300.0.13",
        validation: "FIPS 140-2, certificate #4282",
    },
];

/// The assembler a set is generated for, as the perlasm scripts will see it.
/// The generator fakes exactly these banners, whatever the host has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AsmIdentity {
    pub gas_version: &'static str,
    pub nasm_version: &'static str,
    /// What `__clang_major__` says where the target's compiler is clang (its `predefined`
    /// holds [`CLANG_MAJOR_OF_SET`]): perlasm asks it when the banners enabled nothing
    /// (OpenSSL 4.0: 11 or more for AVX, AVX-512 and ADX, 16 or more for AVX-IFMA).
    pub clang_major: &'static str,
}

/// Stands in a target's `predefined` for its set's [`AsmIdentity::clang_major`].
pub const CLANG_MAJOR_OF_SET: &str = "(the set's clang major)";

/// What a set is for: code outside this table asks for a set by its role
/// ([`AsmSet::of`]), never by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetRole {
    /// Every class the table allows: AVX-512 (and VAES and VPCLMULQDQ on zmm, the IFMAs) on
    /// x86_64, and each other architecture's one asm set.
    Avx512,
    /// x86_64's asm for an assembler that lacks AVX-512: AVX2, ADX and SHA-NI at most.
    Avx2,
    /// OpenSSL's C alone (Configure's `no-asm`).
    PlainC,
}

/// One generated flavour of OpenSSL's perlasm output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AsmSet {
    pub name: &'static str,
    pub role: SetRole,
    /// Extra Configure options for this set.
    pub configure: &'static [&'static str],
    pub identity: AsmIdentity,
    /// ISA features the set may use; anything else found by the scan is an error.
    pub allowed: &'static [Feature],
    /// Rank for per-file selection: lower is faster.
    pub rank: u8,
}

const GAS_2_40: AsmIdentity =
    AsmIdentity { gas_version: "2.40", nasm_version: "2.16.01", clang_major: "19" };
// 10: perlasm's clang probe takes 11 (icx's first) for AVX-512; every lower level is the
// banners' to enable, and GNU as 2.23 does.
const GAS_2_23: AsmIdentity =
    AsmIdentity { gas_version: "2.23", nasm_version: "2.10", clang_major: "10" };

use Feature::*;

/// Each set's name, spelled here once: the rows of [`SETS`] and the targets' lists take them.
pub const ASM: &str = "asm";
pub const ASM_AVX2: &str = "asm_avx2";
pub const NO_ASM: &str = "no_asm";

/// Sets in order of preference, fastest first.
#[rustfmt::skip]
pub const SETS: &[AsmSet] = &[
    AsmSet { name: ASM, role: SetRole::Avx512, configure: &[], identity: GAS_2_40, rank: 0,
             allowed: &[Avx2, AdxBmi2, ShaNi, Avx512, Vaes512, Vpclmul512, Avx512Ifma, AvxIfma, Gfni,
                        Neon, ArmCrypto, AltivecVsx, Power8Crypto, Power9, Power10, Z10, S390xVector,
                        S390xMsa, Zbb, Zbc, Zbkb, Zkn, RiscvV] },
    AsmSet { name: ASM_AVX2, role: SetRole::Avx2, configure: &[], identity: GAS_2_23, rank: 1,
             allowed: &[Avx2, AdxBmi2, ShaNi] },
    AsmSet { name: NO_ASM, role: SetRole::PlainC, configure: &["no-asm"], identity: GAS_2_40,
             rank: 2, allowed: &[] },
];

impl AsmSet {
    /// The set of `role`, at compile time too (a step's name, a table's row).
    pub const fn of(role: SetRole) -> &'static AsmSet {
        let mut i = 0;
        while i < SETS.len() {
            if SETS[i].role as u8 == role as u8 {
                return &SETS[i];
            }
            i += 1;
        }
        panic!("a role without its row in data::SETS")
    }

    /// `asm`: AVX-512 on x86_64, the one asm set elsewhere.
    pub const fn avx512() -> &'static AsmSet {
        AsmSet::of(SetRole::Avx512)
    }

    /// `asm_avx2`: x86_64's asm without AVX-512.
    pub const fn avx2() -> &'static AsmSet {
        AsmSet::of(SetRole::Avx2)
    }

    /// `no_asm`: OpenSSL's C alone.
    pub const fn plain_c() -> &'static AsmSet {
        AsmSet::of(SetRole::PlainC)
    }

    /// Whether this is the set of `role` (a set's name, read back, asked by role).
    pub fn is(&self, role: SetRole) -> bool {
        self.role == role
    }
}

/// Whether `name` (a set's name, as the build facts or a plan carry it) is the set of `role`.
pub fn is_set(name: &str, role: SetRole) -> bool {
    AsmSet::of(role).name == name
}

/// The Rust target triples the rows of [`super::TARGETS`] serve, each spelled here once: the
/// rows take them, and code that needs one (the test matrix, the steps, a row's tests) names
/// it by these constants, so that no triple is typed twice.
pub mod triples {
    pub const X86_64_LINUX: &str = "x86_64-unknown-linux-gnu";
    pub const X86_64_LINUX_MUSL: &str = "x86_64-unknown-linux-musl";
    pub const X86_64_WINDOWS_GNU: &str = "x86_64-pc-windows-gnu";
    pub const X86_64_WINDOWS_MSVC: &str = "x86_64-pc-windows-msvc";
    pub const X86_64_MACOS: &str = "x86_64-apple-darwin";
    pub const AARCH64_LINUX: &str = "aarch64-unknown-linux-gnu";
    pub const AARCH64_LINUX_MUSL: &str = "aarch64-unknown-linux-musl";
    pub const AARCH64_WINDOWS_MSVC: &str = "aarch64-pc-windows-msvc";
    pub const AARCH64_MACOS: &str = "aarch64-apple-darwin";
    pub const PPC64LE_LINUX: &str = "powerpc64le-unknown-linux-gnu";
    pub const PPC64LE_LINUX_MUSL: &str = "powerpc64le-unknown-linux-musl";
    pub const S390X_LINUX: &str = "s390x-unknown-linux-gnu";
    pub const S390X_LINUX_MUSL: &str = "s390x-unknown-linux-musl";
    pub const RISCV64_LINUX: &str = "riscv64gc-unknown-linux-gnu";
    pub const RISCV64_LINUX_MUSL: &str = "riscv64gc-unknown-linux-musl";
    pub const I686_LINUX: &str = "i686-unknown-linux-gnu";
    pub const I686_WINDOWS_GNU: &str = "i686-pc-windows-gnu";
    pub const I686_WINDOWS_MSVC: &str = "i686-pc-windows-msvc";
    pub const ARMV7_LINUX: &str = "armv7-unknown-linux-gnueabihf";
    pub const ARMV7_LINUX_MUSL: &str = "armv7-unknown-linux-musleabihf";
    pub const MIPS64EL_LINUX: &str = "mips64el-unknown-linux-gnuabi64";
    pub const MIPS64EL_LINUX_MUSL: &str = "mips64el-unknown-linux-muslabi64";
}

/// How a target's asm files are written and assembled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum AsmSyntax {
    /// AT&T syntax, assembled by the C compiler driver (GNU as or an integrated assembler).
    Gas,
    /// Intel syntax for nasm.
    Nasm,
}

impl AsmSyntax {
    /// The file extension of this rendering (OpenSSL's own for its targets).
    pub fn ext(self) -> &'static str {
        match self {
            AsmSyntax::Gas => "s",
            AsmSyntax::Nasm => "asm",
        }
    }

    /// The perlasm flavour that renders a target's asm in this syntax, when it is not the
    /// target's own: x86asm.pl (32-bit) calls nasm's `win32n`, x86_64-xlate.pl `nasm`.
    pub fn perlasm_scheme(self, arch: Arch) -> &'static str {
        match (self, arch) {
            (AsmSyntax::Gas, _) => "elf",
            (AsmSyntax::Nasm, Arch::X86) => "win32n",
            (AsmSyntax::Nasm, _) => "nasm",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            AsmSyntax::Gas => "gas",
            AsmSyntax::Nasm => "nasm",
        }
    }

    /// The syntax of an asm path, by its extension; `None` for C and headers. GNU as also
    /// reads `.S`, which the C preprocessor sees first (OpenSSL's arm asm, with arm_arch.h).
    pub fn of_path(path: &str) -> Option<AsmSyntax> {
        let ext = path.rsplit_once('.')?.1;
        let ext = if ext == "S" { "s" } else { ext };
        [AsmSyntax::Gas, AsmSyntax::Nasm].into_iter().find(|s| s.ext() == ext)
    }

    /// `path` with its asm extension replaced by this syntax's (a `.S` stays one for GNU as).
    pub fn rename(self, path: &str) -> String {
        match path.rsplit_once('.') {
            Some((_, ext)) if AsmSyntax::of_path(path) == Some(self) && ext == "S" => path.into(),
            Some((stem, _)) => format!("{stem}.{}", self.ext()),
            None => path.to_string(),
        }
    }
}

/// The instruction set a target's asm is written for, which decides how the scan reads it
/// and which probes its assembler gets (`detect::probe::gas_probes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    X86_64,
    Aarch64,
    /// 64-bit POWER, little-endian (ELFv2).
    Ppc64le,
    /// z/Architecture, big-endian.
    S390x,
    /// RV64GC, little-endian.
    Riscv64,
    /// 32-bit x86 (i686): `x86asm.pl`'s output, read by the x86_64 reader's tables where they
    /// fit and classed mnemonic by mnemonic (`scan/x86.rs`).
    X86,
    /// 32-bit ARM (AArch32), ARMv7-A little-endian with VFP: NEON and the ARMv8 crypto
    /// extensions are the asm's runtime choices.
    Arm,
    /// MIPS64 little-endian, n64 ABI: one code path, no capability variable.
    Mips64,
}

/// A Configure target. A new target is a new row here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    /// OpenSSL's Configure target name; also the directory name inside each set.
    pub name: &'static str,
    pub arch: Arch,
    /// The sets generated for it, by name, fastest first; the last is `no_asm`.
    pub sets: &'static [&'static str],
    /// What its object format puts before a C name (`_` on Mach-O).
    pub symbol_prefix: &'static str,
    /// Rust target triples served by this row; the first match wins.
    pub triples: &'static [&'static str],
    /// Renderings of the asm: Configure's own first; each further one re-runs perlasm in its
    /// flavour under the same configuration, so either assembler can build the target.
    pub syntaxes: &'static [AsmSyntax],
    /// The assembler used when the user names none: the C compiler's, or nasm.
    pub default_syntax: AsmSyntax,
    /// nasm's output format (`-f`), for targets with a nasm rendering.
    pub nasm_format: &'static str,
    /// How to get the target's C compiler, for the message when it is missing.
    pub cc_hint: &'static str,
    /// Whether the target's GNU as takes `--noexecstack` (ELF only), which Configure asks.
    pub noexecstack: bool,
    /// What the faked C compiler predefines (`cc -dM -E`), which Configure reads.
    pub predefined: &'static [(&'static str, &'static str)],
    /// What kind of C compiler the faked one answers perlasm's probes as.
    pub cc_kind: CcKind,
    /// OpenSSL's build scheme for the target, which decides how generation drives Configure.
    pub scheme: Scheme,
    /// The C variants generated for the target (the ones its C compilers can take).
    pub c_variants: &'static [CVariant],
    /// Each other C variant, by name, with why the target never takes it: `auto` skips it
    /// quietly (no downgrade), and naming it is refused with this reason.
    pub refused_variants: &'static [(&'static str, &'static str)],
    /// Flags that only make the C compile faster, its objects the same bytes. mingw's
    /// windows.h includes intrin.h, which includes every x86 intrinsic header: half of each
    /// unit's time, for declarations OpenSSL's C never uses. gcc's include guard skips them (clang's
    /// headers do not read it). The windows step links every object of the archives, so an
    /// intrinsic a unit did call fails there as an undefined reference.
    pub speed_cflags: &'static [&'static str],
    /// Prefixes of OpenSSL's library flags that the build leaves to cc, which sets them to
    /// match Rust's choices (the C runtime) and ours (no debug info).
    pub cc_owned_flags: &'static [&'static str],
    /// Expected fast paths: real code in the target's fastest set, a stub in its other asm sets.
    pub fast_paths: &'static [FastPath],
    /// What the target's programs are named with (`openssl.exe`).
    pub exe_suffix: &'static str,
    /// What the C side needs that only the target's own OS provides, when it cannot be built
    /// from another host (Apple's SDK); `None`: a cross C compiler does.
    pub needs_native_sdk: Option<&'static str>,
}

impl Target {
    /// Its sets, fastest first (SETS' order).
    pub fn sets(&self) -> impl Iterator<Item = &'static AsmSet> + '_ {
        SETS.iter().filter(|s| self.sets.contains(&s.name))
    }

    pub fn has_set(&self, set: &str) -> bool {
        self.sets.contains(&set)
    }
}

/// The C compiler a target's perlasm probes meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CcKind {
    /// gcc or clang: `cc -Wa,-v` shows GNU as's banner, which decides the asm for the `.s`
    /// rendering and, since perlasm asks it first, for the `.asm` one too.
    Gnu,
    /// cl.exe: knows neither `-Wa,-v` nor `-dM`, so nasm's banner alone decides.
    Msvc,
}

/// How OpenSSL's Configure builds a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// Its Unix Makefile, whose generation rules GNU make runs here.
    UnixMake,
    /// The nmake makefile of the VC-* targets, whose Configure refuses a Unix perl.
    /// Generation configures a target of our own instead (`generate/openssl.rs`): the same
    /// target with the Unix Makefile, so the same rules make the same files.
    Nmake,
}

/// Perlasm's stubs (`xor %eax,%eax; ret`, `ud2; ret`, with an endbr64) fit in this many bytes
/// of a linked object; the real entry points are larger.
pub const STUB_MAX_BYTES: u64 = 16;

/// An entry point that must be real code in the target's fastest set (AVX-512 on x86_64, where
/// `asm_avx2` has a stub of it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FastPath {
    pub file: &'static str,
    pub symbol: &'static str,
}

const GCC_X86_64_LINUX: &[(&str, &str)] = &[
    ("__GNUC__", "12"),
    ("__GNUC_MINOR__", "2"),
    ("__x86_64__", "1"),
    ("__x86_64", "1"),
    ("__ELF__", "1"),
    ("__linux__", "1"),
    ("__unix__", "1"),
    ("__LP64__", "1"),
    ("__SIZEOF_INT128__", "16"),
    ("__ORDER_LITTLE_ENDIAN__", "1234"),
    ("__BYTE_ORDER__", "__ORDER_LITTLE_ENDIAN__"),
];

#[rustfmt::skip]
const X86_64_FAST_PATHS: &[FastPath] = &[
    FastPath { file: "crypto/modes/aes-gcm-avx512.s", symbol: "ossl_vaes_vpclmulqdq_capable" },
    FastPath { file: "crypto/modes/aes-gcm-avx512.s", symbol: "ossl_aes_gcm_encrypt_avx512" },
    FastPath { file: "crypto/bn/rsaz-2k-avx512.s", symbol: "ossl_rsaz_avx512ifma_eligible" },
    FastPath { file: "crypto/bn/rsaz-2k-avx512.s", symbol: "ossl_rsaz_amm52x20_x1_ifma256" },
    FastPath { file: "crypto/bn/rsaz-2k-avxifma.s", symbol: "ossl_rsaz_avxifma_eligible" },
];

/// OpenSSL's own nasm flags for VC-WIN64A (besides `-f`), which every nasm build uses.
pub const NASM_FLAGS: &[&str] = &["-Ox", "-DNEAR"];

/// mingw-w64's gcc 12: what Configure's mingw64 target and `x86_64-xlate.pl` read.
const GCC_X86_64_MINGW: &[(&str, &str)] = &[
    ("__GNUC__", "12"),
    ("__GNUC_MINOR__", "2"),
    ("__x86_64__", "1"),
    ("__x86_64", "1"),
    ("_WIN32", "1"),
    ("_WIN64", "1"),
    ("__MINGW32__", "1"),
    ("__MINGW64__", "1"),
    ("__SEH__", "1"),
    ("__SIZEOF_INT128__", "16"),
    ("__ORDER_LITTLE_ENDIAN__", "1234"),
    ("__BYTE_ORDER__", "__ORDER_LITTLE_ENDIAN__"),
];

use AsmSyntax::{Gas, Nasm};

/// Every set: x86_64's targets'.
pub const X86_64_SETS: &[&str] = &[ASM, ASM_AVX2, NO_ASM];
/// The other architectures' targets, without `asm_avx2` (it differs from `asm` only in
/// x86_64 code).
pub const ARM_SETS: &[&str] = &[ASM, NO_ASM];
/// 32-bit x86 has no `asm_avx2`: x86asm.pl's scripts ask the assembler's version too, but
/// their highest gate is GNU as 2.22 (AVX2 in poly1305-x86 and sha256-586; nasm 2.10, clang
/// 3.0), below asm_avx2's identity (GNU as 2.23, nasm 2.10), so its files would be `asm`'s
/// byte for byte (generated for linux-elf from 3.6.3: every file's hash the same). An
/// assembler without a class the `asm` files need takes `no_asm`, as on arm.
pub const X86_SETS: &[&str] = &[ASM, NO_ASM];

/// gcc-aarch64-linux-gnu 12.
const GCC_AARCH64_LINUX: &[(&str, &str)] = &[
    ("__GNUC__", "12"),
    ("__GNUC_MINOR__", "2"),
    ("__aarch64__", "1"),
    ("__AARCH64EL__", "1"),
    ("__ARM_ARCH", "8"),
    ("__ELF__", "1"),
    ("__linux__", "1"),
    ("__unix__", "1"),
    ("__LP64__", "1"),
    ("__SIZEOF_INT128__", "16"),
    ("__ORDER_LITTLE_ENDIAN__", "1234"),
    ("__BYTE_ORDER__", "__ORDER_LITTLE_ENDIAN__"),
];

/// gcc-powerpc64le-linux-gnu 12.
const GCC_PPC64LE_LINUX: &[(&str, &str)] = &[
    ("__GNUC__", "12"),
    ("__GNUC_MINOR__", "2"),
    ("__powerpc64__", "1"),
    ("__powerpc__", "1"),
    ("__PPC64__", "1"),
    ("_ARCH_PPC64", "1"),
    ("_CALL_ELF", "2"),
    ("__LITTLE_ENDIAN__", "1"),
    ("_LITTLE_ENDIAN", "1"),
    ("__ELF__", "1"),
    ("__linux__", "1"),
    ("__unix__", "1"),
    ("__LP64__", "1"),
    ("__SIZEOF_INT128__", "16"),
    ("__ORDER_LITTLE_ENDIAN__", "1234"),
    ("__BYTE_ORDER__", "__ORDER_LITTLE_ENDIAN__"),
];

/// gcc-s390x-linux-gnu 12 (Debian's default -march=z196, `__ARCH__` 9).
const GCC_S390X_LINUX: &[(&str, &str)] = &[
    ("__GNUC__", "12"),
    ("__GNUC_MINOR__", "2"),
    ("__s390__", "1"),
    ("__s390x__", "1"),
    ("__zarch__", "1"),
    ("__ARCH__", "9"),
    ("__ELF__", "1"),
    ("__linux__", "1"),
    ("__unix__", "1"),
    ("__LP64__", "1"),
    ("__SIZEOF_INT128__", "16"),
    ("__ORDER_BIG_ENDIAN__", "4321"),
    ("__BYTE_ORDER__", "__ORDER_BIG_ENDIAN__"),
];

/// gcc-riscv64-linux-gnu 12 (rv64gc: no B, K or V extension).
const GCC_RISCV64_LINUX: &[(&str, &str)] = &[
    ("__GNUC__", "12"),
    ("__GNUC_MINOR__", "2"),
    ("__riscv", "1"),
    ("__riscv_xlen", "64"),
    ("__riscv_compressed", "1"),
    ("__riscv_float_abi_double", "1"),
    ("__ELF__", "1"),
    ("__linux__", "1"),
    ("__unix__", "1"),
    ("__LP64__", "1"),
    ("__SIZEOF_INT128__", "16"),
    ("__ORDER_LITTLE_ENDIAN__", "1234"),
    ("__BYTE_ORDER__", "__ORDER_LITTLE_ENDIAN__"),
];

/// Apple's clang, as clang-19 with `-target arm64-apple-macos11` reports it.
const CLANG_ARM64_DARWIN: &[(&str, &str)] = &[
    ("__clang__", "1"),
    ("__clang_major__", CLANG_MAJOR_OF_SET),
    ("__GNUC__", "4"),
    ("__APPLE_CC__", "6000"),
    ("__APPLE__", "1"),
    ("__MACH__", "1"),
    ("__aarch64__", "1"),
    ("__arm64__", "1"),
    ("__AARCH64EL__", "1"),
    ("__ARM_ARCH", "8"),
    ("__LP64__", "1"),
    ("__SIZEOF_INT128__", "16"),
    ("__ORDER_LITTLE_ENDIAN__", "1234"),
    ("__BYTE_ORDER__", "__ORDER_LITTLE_ENDIAN__"),
];

/// Apple's clang for x86_64 (`-target x86_64-apple-macos11`).
const CLANG_X86_64_DARWIN: &[(&str, &str)] = &[
    ("__clang__", "1"),
    ("__clang_major__", CLANG_MAJOR_OF_SET),
    ("__GNUC__", "4"),
    ("__APPLE_CC__", "6000"),
    ("__APPLE__", "1"),
    ("__MACH__", "1"),
    ("__x86_64__", "1"),
    ("__x86_64", "1"),
    ("__LP64__", "1"),
    ("__SIZEOF_INT128__", "16"),
    ("__ORDER_LITTLE_ENDIAN__", "1234"),
    ("__BYTE_ORDER__", "__ORDER_LITTLE_ENDIAN__"),
];

const MACOS_SDK: &str = "Apple's macOS SDK (Xcode's command line tools)";

/// The ARMv8 crypto-extension code of `asm`; no_asm has none of it.
#[rustfmt::skip]
const AARCH64_FAST_PATHS: &[FastPath] = &[
    FastPath { file: "crypto/aes/aesv8-armx.S", symbol: "aes_v8_encrypt" },
    FastPath { file: "crypto/modes/ghashv8-armx.S", symbol: "gcm_init_v8" },
];

/// The nistp variant's name: its row of [`C_VARIANTS`], the targets that refuse it, and the
/// steps and tests that expect it, each pick it by this name (`variant_by_name`).
pub const NISTP: &str = "ec_nistp_64_gcc_128";

/// On ppc64, OpenSSL's build.info adds ecp_nistp384-ppc64.s and ecp_nistp521-ppc64.s with the
/// variant, and a variant's directory holds C outputs only (its asm is its set's).
const PPC64_NISTP_ASM: &str =
    "on ppc64 the variant brings asm of its own (ecp_nistp384/521-ppc64), \
    which a C variant's generated directory cannot hold";

/// OpenSSL's INSTALL.md: the nistp code is "only supported on platforms with little-endian
/// storage of non-byte types"; its probe would refuse every s390x compiler.
const BIG_ENDIAN_NISTP: &str = "the variant needs a little-endian target (INSTALL.md), and \
    s390x is big-endian";

/// CPACF's AES (KM, through aes-s390x) and GHASH (KIMD, through ghash-s390x), in `asm`; no_asm
/// has none of it.
#[rustfmt::skip]
const S390X_FAST_PATHS: &[FastPath] = &[
    FastPath { file: "crypto/aes/aes-s390x.S", symbol: "AES_encrypt" },
    FastPath { file: "crypto/modes/ghash-s390x.S", symbol: "gcm_ghash_4bit" },
];

/// The scalar crypto AES (Zkne/Zknd) and the carry-less-multiply GHASH (Zbc), in `asm`;
/// no_asm has none of it.
#[rustfmt::skip]
const RISCV64_FAST_PATHS: &[FastPath] = &[
    FastPath { file: "crypto/aes/aes-riscv64-zkn.s", symbol: "rv64i_zkne_encrypt" },
    FastPath { file: "crypto/modes/ghash-riscv64.s", symbol: "gcm_gmult_rv64i_zbc" },
];

// ---------------------------------------------------------------------------
// 32-bit ARM, MIPS64 and Windows on ARM64 with asm (issue 36)
// ---------------------------------------------------------------------------

/// gcc-arm-linux-gnueabihf 12: Debian's armhf default, ARMv7-A with VFPv3-D16 in Thumb-2 (no
/// NEON at compile time: the asm chooses it at run time), and no `__uint128_t`.
const GCC_ARMV7_LINUX: &[(&str, &str)] = &[
    ("__GNUC__", "12"),
    ("__GNUC_MINOR__", "2"),
    ("__arm__", "1"),
    ("__ARM_ARCH", "7"),
    ("__ARM_ARCH_7A__", "1"),
    ("__ARMEL__", "1"),
    ("__thumb__", "1"),
    ("__thumb2__", "1"),
    ("__ARM_PCS_VFP", "1"),
    ("__VFP_FP__", "1"),
    ("__ELF__", "1"),
    ("__linux__", "1"),
    ("__unix__", "1"),
    ("__ORDER_LITTLE_ENDIAN__", "1234"),
    ("__BYTE_ORDER__", "__ORDER_LITTLE_ENDIAN__"),
];

/// The ARMv8 crypto-extension code of the 32-bit `asm` (written as bytes, so any ARMv7
/// assembler takes it); no_asm has none of it.
#[rustfmt::skip]
const ARMV7_FAST_PATHS: &[FastPath] = &[
    FastPath { file: "crypto/aes/aesv8-armx.S", symbol: "aes_v8_encrypt" },
    FastPath { file: "crypto/modes/ghashv8-armx.S", symbol: "gcm_init_v8" },
];

/// How to get the C compiler of a Rust triple whose row's `cc_hint` names another C library's:
/// cc picks `musl-gcc` for x86_64's musl triple, which Debian packages.
const TRIPLE_CC_HINTS: &[(&str, &str)] = &[(
    X86_64_LINUX_MUSL,
    "install musl-gcc (Debian: apt install musl-tools), or name a C compiler for musl in \
     CC_x86_64_unknown_linux_musl",
)];

impl Target {
    /// How to get the C compiler for `triple`, one of its rows' triples: a musl triple's
    /// compiler is a musl one.
    pub fn cc_hint_for(&self, triple: &str) -> String {
        match TRIPLE_CC_HINTS.iter().find(|(t, _)| *t == triple) {
            Some((_, hint)) => hint.to_string(),
            None if is_musl(triple) => format!(
                "name a C compiler for musl in CC_{} (its C library, not glibc's)",
                triple.replace('-', "_")
            ),
            None => self.cc_hint.to_string(),
        }
    }
}

/// A triple of musl's C library (`-musl`, `-musleabihf`, `-muslabi64`).
pub fn is_musl(triple: &str) -> bool {
    triple.rsplit('-').next().is_some_and(|env| env.starts_with("musl"))
}

/// A C unit that compiles only with the C library a triple names: its standard headers there
/// (a cross libc missing fails it), and on a musl triple not glibc's, whose headers define
/// `__GLIBC__` (musl's define nothing that says musl).
pub fn c_library_probe(triple: &str) -> String {
    let not_glibc = "#if defined(__GLIBC__)\n#error \"glibc's headers, not musl's\"\n#endif\n";
    let not_glibc = if is_musl(triple) { not_glibc } else { "" };
    format!("#include <stdio.h>\n#include <stdlib.h>\n{not_glibc}int probe(void) {{ return puts(\"\") + abs(-1); }}\n")
}

/// Linux's own headers, which OpenSSL's C includes (`<linux/mman.h>` for the secure heap,
/// `<linux/if_alg.h>` in the afalg engine), for a musl compiler that has none: musl-tools'
/// musl-gcc reads musl's headers alone. Debian's (linux-libc-dev) are no C library's, so the
/// build hands them to it, and nothing of glibc's: `-idirafter` a directory of these links.
pub struct KernelHeaders {
    pub triple: &'static str,
    /// Each directory's name there, and what it links to.
    pub links: &'static [(&'static str, &'static str)],
}

#[rustfmt::skip]
pub const MUSL_KERNEL_HEADERS: &[KernelHeaders] = &[
    KernelHeaders { triple: X86_64_LINUX_MUSL,
                    links: &[("linux", "/usr/include/linux"),
                             ("asm", "/usr/include/x86_64-linux-gnu/asm"),
                             ("asm-generic", "/usr/include/asm-generic")] },
];

/// A C unit that compiles only where the Linux headers OpenSSL's C includes are found.
pub const KERNEL_HEADERS_PROBE: &str =
    "#include <linux/mman.h>\n#include <linux/if_alg.h>\nint probe(void) { return MAP_HUGE_SHIFT + ALG_SET_KEY; }\n";

/// Configure's ex_libs that every link takes from their static archive: libatomic, which
/// the `linux-latomic` targets (linux-armv4) add for the 64-bit atomics a 32-bit CPU may lack.
/// Named as a shared library it becomes a dynamic dependency of a static binary
/// (rust-openssl#1779, #2043); gcc ships the archive beside libgcc, where the compiler driver
/// (and clang, through gcc's installation) finds it, and it adds nothing nobody calls.
pub const STATIC_EX_LIBS: &[&str] = &["atomic"];

/// How a C compiler driver's link line names a library of Configure's ex_libs.
pub fn ex_lib_flag(lib: &str) -> String {
    match lib {
        "pthread" => "-pthread".into(),
        l if STATIC_EX_LIBS.contains(&l) => format!("-l:lib{l}.a"),
        l => format!("-l{l}"),
    }
}

/// cargo's `rustc-link-lib` value for a library of Configure's ex_libs: a static one is not
/// bundled into crypto-sys's rlib, only linked (from gcc's archive) into the final binary.
pub fn ex_lib_cargo(lib: &str) -> String {
    match lib {
        l if STATIC_EX_LIBS.contains(&l) => format!("static:-bundle={l}"),
        l => l.into(),
    }
}

/// The nistp variant's code needs `__uint128_t`, which no 32-bit target's C compiler has.
const NO_INT128_NISTP: &str = "a 32-bit target's C compiler has no __uint128_t, which the \
    variant's code needs";

/// gcc-mips64el-linux-gnuabi64 12 (n64 ABI) as it compiles the asm: Configure gives every unit
/// of an asm build `-mips3`, the MIPS III its asm needs at least, so `__mips` is 3 and the
/// files' release 2 branches (`_MIPS_ARCH_MIPS64R2`: rotr, dsbh) are not what is assembled.
/// The MIPS scripts ask it `echo MIPSEB | cc -E -` for the endianness they write.
const GCC_MIPS64EL_LINUX: &[(&str, &str)] = &[
    ("__GNUC__", "12"),
    ("__GNUC_MINOR__", "2"),
    ("__mips__", "1"),
    ("__mips", "3"),
    ("__mips64", "1"),
    ("_MIPS_ARCH_MIPS3", "1"),
    ("_MIPS_SIM", "_ABI64"),
    ("_ABI64", "3"),
    ("_MIPS_SZLONG", "64"),
    ("_MIPS_SZPTR", "64"),
    ("__MIPSEL__", "1"),
    ("_MIPSEL", "1"),
    ("MIPSEL", "1"),
    ("__mips_hard_float", "1"),
    ("__ELF__", "1"),
    ("__linux__", "1"),
    ("__unix__", "1"),
    ("__LP64__", "1"),
    ("__SIZEOF_INT128__", "16"),
    ("__ORDER_LITTLE_ENDIAN__", "1234"),
    ("__BYTE_ORDER__", "__ORDER_LITTLE_ENDIAN__"),
];

/// What clang `--target=aarch64-pc-windows-msvc` predefines that the `.S` files test, by which
/// the scan judges their conditionals. Configure asks the fake cc too, but reads only what
/// is not here (`__GNUC__`, `__clang__`, `__MACH__`, `_AIX`, `_CALL_ELF`): its configdata is
/// what cl.exe, which answers no `-dM`, gives.
const CLANG_ARM64_WINDOWS: &[(&str, &str)] = &[
    ("__aarch64__", "1"),
    ("__AARCH64EL__", "1"),
    ("__ARM_ARCH", "8"),
    ("_WIN32", "1"),
    ("_WIN64", "1"),
    ("_M_ARM64", "1"),
    ("__ORDER_LITTLE_ENDIAN__", "1234"),
    ("__BYTE_ORDER__", "__ORDER_LITTLE_ENDIAN__"),
];

/// MIPS64's asm has no second code path to fall back on: its AES in `asm` is real code, and
/// no_asm has none of it.
#[rustfmt::skip]
const MIPS64_FAST_PATHS: &[FastPath] = &[
    FastPath { file: "crypto/aes/aes-mips.S", symbol: "AES_encrypt" },
    FastPath { file: "crypto/sha/sha256-mips.S", symbol: "sha256_block_data_order" },
];

/// POWER8's in-core AES and GHASH, in `asm`; no_asm has none of it.
#[rustfmt::skip]
const PPC64LE_FAST_PATHS: &[FastPath] = &[
    FastPath { file: "crypto/aes/aesp8-ppc.s", symbol: "aes_p8_encrypt" },
    FastPath { file: "crypto/modes/ghashp8-ppc.s", symbol: "gcm_init_p8" },
];

/// gcc-i686-linux-gnu 12 (Debian's default -march=i686: no __SSE2__).
const GCC_I686_LINUX: &[(&str, &str)] = &[
    ("__GNUC__", "12"),
    ("__GNUC_MINOR__", "2"),
    ("__i386__", "1"),
    ("__i386", "1"),
    ("__i686__", "1"),
    ("__ELF__", "1"),
    ("__linux__", "1"),
    ("__unix__", "1"),
    ("__ILP32__", "1"),
    ("__SIZEOF_POINTER__", "4"),
    ("__ORDER_LITTLE_ENDIAN__", "1234"),
    ("__BYTE_ORDER__", "__ORDER_LITTLE_ENDIAN__"),
];

/// gcc-mingw-w64-i686 12 (win32 threads): what Configure's mingw target and x86asm.pl read.
const GCC_I686_MINGW: &[(&str, &str)] = &[
    ("__GNUC__", "12"),
    ("__GNUC_MINOR__", "0"),
    ("__i386__", "1"),
    ("__i386", "1"),
    ("__i686__", "1"),
    ("_X86_", "1"),
    ("_WIN32", "1"),
    ("__MINGW32__", "1"),
    ("__SIZEOF_POINTER__", "4"),
    ("__ORDER_LITTLE_ENDIAN__", "1234"),
    ("__BYTE_ORDER__", "__ORDER_LITTLE_ENDIAN__"),
];

/// System libraries a target's C needs from clang beyond Configure's, as OpenSSL's own clang
/// variant of the target adds them: linux-x86-clang's `-latomic` (Configurations/10-main.conf),
/// as clang calls libatomic for i686's 8-byte atomics (threads_pthread.c's RCU), which gcc
/// inlines with cmpxchg8b.
pub const CLANG_EX_LIBS: &[(&str, &[&str])] = &[("linux-elf", &["atomic"])];

/// AES-NI and the carry-less-multiply GHASH, in `asm`; no_asm has none of it. x86asm.pl
/// writes their instructions as bytes, so each is real code in `asm_avx2` too.
#[rustfmt::skip]
const X86_FAST_PATHS: &[FastPath] = &[
    FastPath { file: "crypto/aes/aesni-x86.S", symbol: "aesni_encrypt" },
    FastPath { file: "crypto/modes/ghash-x86.S", symbol: "gcm_init_clmul" },
];

/// gcc's `x86intrin.h` include guard (`Target::speed_cflags`): 611 to 281 core-seconds for
/// mingw's 1087 C units of the `asm` set, every object the same bytes (gcc 12, mingw-w64 10).
const GCC_X86INTRIN_GUARD: &str = "-D_X86INTRIN_H_INCLUDED";

#[rustfmt::skip]
pub const TARGETS: &[Target] = &[
    Target { name: "linux-x86_64", arch: Arch::X86_64, sets: X86_64_SETS, symbol_prefix: "",
             syntaxes: &[Gas], default_syntax: Gas, nasm_format: "elf64",
             cc_hint: "install gcc or clang (Debian: apt install gcc)", noexecstack: true,
             predefined: GCC_X86_64_LINUX, cc_kind: CcKind::Gnu, scheme: Scheme::UnixMake,
             c_variants: C_VARIANTS, refused_variants: &[], cc_owned_flags: &[], speed_cflags: &[],
             triples: &[X86_64_LINUX, X86_64_LINUX_MUSL],
             fast_paths: X86_64_FAST_PATHS, exe_suffix: "", needs_native_sdk: None },
    Target { name: "mingw64", arch: Arch::X86_64, sets: X86_64_SETS, symbol_prefix: "",
             syntaxes: &[Gas, Nasm], default_syntax: Gas, nasm_format: "win64",
             cc_hint: "install mingw-w64's gcc (Debian: apt install gcc-mingw-w64-x86-64), \
                       or name a compiler in CC_x86_64_pc_windows_gnu",
             noexecstack: false,
             predefined: GCC_X86_64_MINGW, cc_kind: CcKind::Gnu, scheme: Scheme::UnixMake,
             c_variants: C_VARIANTS, refused_variants: &[], cc_owned_flags: &[],
             speed_cflags: &[GCC_X86INTRIN_GUARD], triples: &[X86_64_WINDOWS_GNU],
             fast_paths: X86_64_FAST_PATHS, exe_suffix: ".exe", needs_native_sdk: None },
    // clang-cl has __uint128_t and cl.exe has not: the nistp variant's probe decides, and
    // cl.exe leaves it out quietly (`CL_EXE_REFUSES`). Configure's `/Zi /Fdossl_static.pdb`
    // would make parallel cl processes share one .pdb, and its `/MT` would fight the CRT cc
    // picks.
    Target { name: "VC-WIN64A", arch: Arch::X86_64, sets: X86_64_SETS, symbol_prefix: "",
             syntaxes: &[Nasm], default_syntax: Nasm, nasm_format: "win64",
             cc_hint: "install Visual Studio's C++ build tools and build from a developer \
                       prompt (elsewhere, clang: apt install clang-19), or name a compiler in \
                       CC_x86_64_pc_windows_msvc",
             noexecstack: false, predefined: &[], cc_kind: CcKind::Msvc, scheme: Scheme::Nmake,
             c_variants: C_VARIANTS, refused_variants: &[],
             cc_owned_flags: &["/Zi", "/Fd", "/MT", "/MD"], speed_cflags: &[],
             triples: &[X86_64_WINDOWS_MSVC],
             fast_paths: X86_64_FAST_PATHS, exe_suffix: ".exe", needs_native_sdk: None },
    Target { name: "linux-aarch64", arch: Arch::Aarch64, sets: ARM_SETS, symbol_prefix: "",
             syntaxes: &[Gas], default_syntax: Gas, nasm_format: "",
             cc_hint: "install gcc for aarch64 (Debian: apt install gcc-aarch64-linux-gnu \
                       libc6-dev-arm64-cross), or name a compiler in CC_aarch64_unknown_linux_gnu",
             noexecstack: true,
             predefined: GCC_AARCH64_LINUX, cc_kind: CcKind::Gnu, scheme: Scheme::UnixMake,
             c_variants: C_VARIANTS, refused_variants: &[], cc_owned_flags: &[], speed_cflags: &[],
             triples: &[AARCH64_LINUX, AARCH64_LINUX_MUSL],
             fast_paths: AARCH64_FAST_PATHS, exe_suffix: "", needs_native_sdk: None },
    Target { name: "linux-ppc64le", arch: Arch::Ppc64le, sets: ARM_SETS, symbol_prefix: "",
             syntaxes: &[Gas], default_syntax: Gas, nasm_format: "",
             cc_hint: "install gcc for ppc64le (Debian: apt install gcc-powerpc64le-linux-gnu \
                       libc6-dev-ppc64el-cross), or name a compiler in \
                       CC_powerpc64le_unknown_linux_gnu",
             noexecstack: true,
             predefined: GCC_PPC64LE_LINUX, cc_kind: CcKind::Gnu, scheme: Scheme::UnixMake,
             c_variants: &[], refused_variants: &[(NISTP, PPC64_NISTP_ASM)], cc_owned_flags: &[],
             speed_cflags: &[],
             triples: &[PPC64LE_LINUX, PPC64LE_LINUX_MUSL],
             fast_paths: PPC64LE_FAST_PATHS, exe_suffix: "", needs_native_sdk: None },
    Target { name: "linux64-s390x", arch: Arch::S390x, sets: ARM_SETS, symbol_prefix: "",
             syntaxes: &[Gas], default_syntax: Gas, nasm_format: "",
             cc_hint: "install gcc for s390x (Debian: apt install gcc-s390x-linux-gnu \
                       libc6-dev-s390x-cross), or name a compiler in CC_s390x_unknown_linux_gnu",
             noexecstack: true,
             predefined: GCC_S390X_LINUX, cc_kind: CcKind::Gnu, scheme: Scheme::UnixMake,
             c_variants: &[], refused_variants: &[(NISTP, BIG_ENDIAN_NISTP)], cc_owned_flags: &[],
             speed_cflags: &[],
             triples: &[S390X_LINUX, S390X_LINUX_MUSL],
             fast_paths: S390X_FAST_PATHS, exe_suffix: "", needs_native_sdk: None },
    Target { name: "linux64-riscv64", arch: Arch::Riscv64, sets: ARM_SETS, symbol_prefix: "",
             syntaxes: &[Gas], default_syntax: Gas, nasm_format: "",
             cc_hint: "install gcc for riscv64 (Debian: apt install gcc-riscv64-linux-gnu \
                       libc6-dev-riscv64-cross), or name a compiler in \
                       CC_riscv64gc_unknown_linux_gnu",
             noexecstack: true,
             predefined: GCC_RISCV64_LINUX, cc_kind: CcKind::Gnu, scheme: Scheme::UnixMake,
             c_variants: C_VARIANTS, refused_variants: &[], cc_owned_flags: &[], speed_cflags: &[],
             triples: &[RISCV64_LINUX, RISCV64_LINUX_MUSL],
             fast_paths: RISCV64_FAST_PATHS, exe_suffix: "", needs_native_sdk: None },
    // 32-bit x86 (issue 36): Linux runs natively, mingw under wine's win32 prefix, VC-WIN32
    // assembled; none has __uint128_t, so none takes the nistp variant.
    Target { name: "linux-elf", arch: Arch::X86, sets: X86_SETS, symbol_prefix: "",
             syntaxes: &[Gas], default_syntax: Gas, nasm_format: "elf32",
             cc_hint: "install gcc for i686 (Debian: apt install gcc-i686-linux-gnu \
                       libc6-dev-i386-cross), or name a compiler in CC_i686_unknown_linux_gnu",
             noexecstack: true,
             predefined: GCC_I686_LINUX, cc_kind: CcKind::Gnu, scheme: Scheme::UnixMake,
             c_variants: &[], refused_variants: &[(NISTP, NO_INT128_NISTP)], cc_owned_flags: &[],
             speed_cflags: &[], triples: &[I686_LINUX],
             fast_paths: X86_FAST_PATHS, exe_suffix: "", needs_native_sdk: None },
    Target { name: "mingw", arch: Arch::X86, sets: X86_SETS, symbol_prefix: "_",
             syntaxes: &[Gas, Nasm], default_syntax: Gas, nasm_format: "win32",
             cc_hint: "install mingw-w64's gcc for i686 (Debian: apt install gcc-mingw-w64-i686), \
                       or name a compiler in CC_i686_pc_windows_gnu",
             noexecstack: false,
             predefined: GCC_I686_MINGW, cc_kind: CcKind::Gnu, scheme: Scheme::UnixMake,
             c_variants: &[], refused_variants: &[(NISTP, NO_INT128_NISTP)], cc_owned_flags: &[],
             speed_cflags: &[GCC_X86INTRIN_GUARD], triples: &[I686_WINDOWS_GNU],
             fast_paths: X86_FAST_PATHS, exe_suffix: ".exe", needs_native_sdk: None },
    Target { name: "VC-WIN32", arch: Arch::X86, sets: X86_SETS, symbol_prefix: "_",
             syntaxes: &[Nasm], default_syntax: Nasm, nasm_format: "win32",
             cc_hint: "install Visual Studio's C++ build tools and build from an x86 developer \
                       prompt (elsewhere, clang: apt install clang-19), or name a compiler in \
                       CC_i686_pc_windows_msvc",
             noexecstack: false, predefined: &[], cc_kind: CcKind::Msvc, scheme: Scheme::Nmake,
             c_variants: &[], refused_variants: &[(NISTP, NO_INT128_NISTP)],
             cc_owned_flags: &["/Zi", "/Fd", "/MT", "/MD"], speed_cflags: &[],
             triples: &[I686_WINDOWS_MSVC],
             fast_paths: X86_FAST_PATHS, exe_suffix: ".exe", needs_native_sdk: None },
    // 32-bit ARM: armv7's Debian compilers (issue 36).
    Target { name: "linux-armv4", arch: Arch::Arm, sets: ARM_SETS, symbol_prefix: "",
             syntaxes: &[Gas], default_syntax: Gas, nasm_format: "",
             cc_hint: "install gcc for armv7 (Debian: apt install gcc-arm-linux-gnueabihf \
                       libc6-dev-armhf-cross), or name a compiler in \
                       CC_armv7_unknown_linux_gnueabihf",
             noexecstack: true,
             predefined: GCC_ARMV7_LINUX, cc_kind: CcKind::Gnu, scheme: Scheme::UnixMake,
             c_variants: &[], refused_variants: &[(NISTP, NO_INT128_NISTP)], cc_owned_flags: &[],
             speed_cflags: &[],
             triples: &[ARMV7_LINUX, ARMV7_LINUX_MUSL],
             fast_paths: ARMV7_FAST_PATHS, exe_suffix: "", needs_native_sdk: None },
    // MIPS64 little-endian (issue 36): asm without a capability variable.
    Target { name: "linux64-mips64", arch: Arch::Mips64, sets: ARM_SETS, symbol_prefix: "",
             syntaxes: &[Gas], default_syntax: Gas, nasm_format: "",
             cc_hint: "install gcc for mips64el (Debian: apt install gcc-mips64el-linux-gnuabi64 \
                       libc6-dev-mips64el-cross), or name a compiler in \
                       CC_mips64el_unknown_linux_gnuabi64",
             noexecstack: true,
             predefined: GCC_MIPS64EL_LINUX, cc_kind: CcKind::Gnu, scheme: Scheme::UnixMake,
             c_variants: C_VARIANTS, refused_variants: &[], cc_owned_flags: &[], speed_cflags: &[],
             triples: &[MIPS64EL_LINUX, MIPS64EL_LINUX_MUSL],
             fast_paths: MIPS64_FAST_PATHS, exe_suffix: "", needs_native_sdk: None },
    // Windows on ARM64 with asm (issue 36): OpenSSL's ARMv8 perlasm in its win64 flavour, which
    // clang assembles (VC-WIN64-ARM has no asm). cl.exe has no __uint128_t.
    Target { name: "VC-WIN64-CLANGASM-ARM", arch: Arch::Aarch64, sets: ARM_SETS, symbol_prefix: "",
             syntaxes: &[Gas], default_syntax: Gas, nasm_format: "",
             cc_hint: "install Visual Studio's C++ build tools for ARM64 and LLVM's clang (winget \
                       install LLVM.LLVM) and build from a developer prompt, or name a compiler \
                       in CC_aarch64_pc_windows_msvc",
             noexecstack: false, predefined: CLANG_ARM64_WINDOWS, cc_kind: CcKind::Msvc,
             scheme: Scheme::Nmake,
             c_variants: &[], refused_variants: &[(NISTP, "MSVC has no __uint128_t")],
             cc_owned_flags: &["/Zi", "/Fd", "/MT", "/MD"], speed_cflags: &[],
             triples: &[AARCH64_WINDOWS_MSVC],
             fast_paths: AARCH64_FAST_PATHS, exe_suffix: ".exe", needs_native_sdk: None },
    // Generated and assembled here; built only on macOS (no SDK on Linux).
    Target { name: "darwin64-arm64-cc", arch: Arch::Aarch64, sets: ARM_SETS, symbol_prefix: "_",
             syntaxes: &[Gas], default_syntax: Gas, nasm_format: "",
             cc_hint: "install Xcode's command line tools (xcode-select --install)",
             noexecstack: false,
             predefined: CLANG_ARM64_DARWIN, cc_kind: CcKind::Gnu, scheme: Scheme::UnixMake,
             c_variants: C_VARIANTS, refused_variants: &[], cc_owned_flags: &[], speed_cflags: &[],
             triples: &[AARCH64_MACOS],
             fast_paths: AARCH64_FAST_PATHS, exe_suffix: "", needs_native_sdk: Some(MACOS_SDK) },
    Target { name: "darwin64-x86_64-cc", arch: Arch::X86_64, sets: X86_64_SETS, symbol_prefix: "_",
             syntaxes: &[Gas], default_syntax: Gas, nasm_format: "macho64",
             cc_hint: "install Xcode's command line tools (xcode-select --install)",
             noexecstack: false,
             predefined: CLANG_X86_64_DARWIN, cc_kind: CcKind::Gnu, scheme: Scheme::UnixMake,
             c_variants: C_VARIANTS, refused_variants: &[], cc_owned_flags: &[], speed_cflags: &[],
             triples: &[X86_64_MACOS],
             fast_paths: X86_64_FAST_PATHS, exe_suffix: "", needs_native_sdk: Some(MACOS_SDK) },
];

/// A C-configuration variant: Configure options that change only C sources and defines, never
/// the asm, taken when its probe compiles with the real C compiler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CVariant {
    /// Also the suffix of its directory: `<set>/<target>+<name>`.
    pub name: &'static str,
    pub configure: &'static [&'static str],
    /// What the probe establishes, for messages.
    pub needs: &'static str,
    /// A C translation unit that compiles only where the variant's code is correct.
    pub probe: &'static str,
    /// A symbol only the variant's objects define; `cargo xtask verify` looks for it.
    pub marker: &'static str,
}

/// OpenSSL's nistp code needs `__uint128_t` and a 64-bit little-endian target; Configure cannot
/// tell, so it leaves the code off unless asked.
const INT128_LE64_PROBE: &str = "\
#if !defined(__SIZEOF_INT128__) || !defined(__SIZEOF_POINTER__) || __SIZEOF_POINTER__ != 8
#error \"needs __uint128_t on a 64-bit target\"
#endif
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error \"needs a little-endian target\"
#endif
typedef __uint128_t u128;
typedef char u128_is_16_bytes[sizeof(u128) == 16 ? 1 : -1];
u128 probe_mul(unsigned long long a, unsigned long long b) { return (u128)a * b + (a >> 3); }
u128 probe_shift(u128 x, unsigned s) { return (x << (s & 63)) | (x >> 64); }
";

/// Variants in order of preference; `auto` takes the first whose probe passes.
#[rustfmt::skip]
pub const C_VARIANTS: &[CVariant] = &[
    CVariant { name: NISTP, configure: &["enable-ec_nistp_64_gcc_128"],
               needs: "__uint128_t on a 64-bit little-endian target", probe: INT128_LE64_PROBE,
               marker: "ossl_ec_GFp_nistp384_method" },
];

/// OpenSSL's default C configuration (no C variant), spelled the same everywhere: the CLI and
/// `CRYPTO_SYS_C_VARIANT`, the build facts and summary, buildinf.h, cargo metadata. No
/// variant may take this name.
pub const NO_C_VARIANT: &str = "none";

/// A C variant's name, or [`NO_C_VARIANT`] for OpenSSL's default C configuration.
pub fn variant_name(v: Option<&'static CVariant>) -> &'static str {
    v.map_or(NO_C_VARIANT, |v| v.name)
}

pub fn variant_by_name(name: &str) -> anyhow::Result<&'static CVariant> {
    C_VARIANTS.iter().find(|v| v.name == name).ok_or_else(|| {
        let names: Vec<&str> = C_VARIANTS.iter().map(|v| v.name).collect();
        anyhow::anyhow!(
            "unknown C variant `{name}`; accepted: auto, {NO_C_VARIANT}, {}",
            names.join(", ")
        )
    })
}

/// The version from which a kind of assembler is said to handle a feature class, as OpenSSL's
/// scripts and the assemblers' release notes put it. Only reported next to the probes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Threshold {
    pub kind: &'static str,
    pub feature: Feature,
    pub min: &'static str,
}

#[rustfmt::skip]
pub const VERSION_THRESHOLDS: &[Threshold] = &[
    Threshold { kind: "gas", feature: Avx2, min: "2.22" },
    Threshold { kind: "gas", feature: AdxBmi2, min: "2.23" },
    Threshold { kind: "gas", feature: Avx512, min: "2.25" },
    Threshold { kind: "gas", feature: Avx512Ifma, min: "2.26" },
    Threshold { kind: "gas", feature: Vaes512, min: "2.30" },
    Threshold { kind: "gas", feature: Vpclmul512, min: "2.30" },
    Threshold { kind: "gas", feature: AvxIfma, min: "2.40" },
    Threshold { kind: "clang", feature: Avx2, min: "3.3" },
    Threshold { kind: "clang", feature: Avx512, min: "3.9" },
    Threshold { kind: "clang", feature: Avx512Ifma, min: "3.9" },
    Threshold { kind: "clang", feature: Vaes512, min: "7.0" },
    Threshold { kind: "clang", feature: Vpclmul512, min: "7.0" },
    Threshold { kind: "clang", feature: AvxIfma, min: "16.0" },
    Threshold { kind: "nasm", feature: Avx2, min: "2.10" },
    Threshold { kind: "nasm", feature: Avx512, min: "2.11.8" },
    Threshold { kind: "nasm", feature: Vaes512, min: "2.13.3" },
    Threshold { kind: "nasm", feature: Avx512Ifma, min: "2.11.8" },
    Threshold { kind: "nasm", feature: AvxIfma, min: "2.16" },
    Threshold { kind: "apple-clang", feature: Avx512, min: "9.0" },
    Threshold { kind: "apple-clang", feature: Vaes512, min: "10.0.1" },
    Threshold { kind: "apple-clang", feature: AvxIfma, min: "15.0" },
];

/// Declares [`Feature`], its [`Feature::ALL`] and [`Feature::name`] from one list, so that a
/// class is named once.
macro_rules! features {
    ($($(#[doc = $doc:literal])* $variant:ident = $name:literal,)*) => {
        /// ISA feature classes that an asm file may need from its assembler.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Feature {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Feature {
            /// Every class, in declaration order.
            pub const ALL: &'static [Feature] = &[$(Feature::$variant,)*];

            /// Its name in manifests, probes and messages.
            pub fn name(self) -> &'static str {
                match self {
                    $(Feature::$variant => $name,)*
                }
            }
        }
    };
}

features! {
    Avx2 = "avx2",
    AdxBmi2 = "adx-bmi2",
    ShaNi = "sha-ni",
    /// AVX-512F/VL/BW/DQ: zmm, zmm16-31, k-masks, EVEX-only forms.
    Avx512 = "avx512",
    Vaes512 = "vaes-zmm",
    Vpclmul512 = "vpclmulqdq-zmm",
    Avx512Ifma = "avx512-ifma",
    /// VEX-encoded IFMA (`{vex} vpmadd52luq`).
    AvxIfma = "avx-ifma",
    Gfni = "gfni",
    /// AArch64 Advanced SIMD on vector registers (`v0.16b`).
    Neon = "neon",
    /// The ARMv8 crypto extension written as mnemonics: AES, PMULL (64-bit), SHA-1, SHA-256.
    ArmCrypto = "armv8-crypto",
    /// POWER's vector unit: AltiVec (VMX) and VSX as of ISA 2.06 (POWER7).
    AltivecVsx = "altivec-vsx",
    /// ISA 2.07's (POWER8) in-core crypto and VSX additions, written as mnemonics: vcipher,
    /// vpmsumd, vpermxor, vshasigma, the VSR moves.
    Power8Crypto = "power8-crypto",
    /// ISA 3.0 (POWER9) mnemonics: lxv/stxv, the byte-reversed and scalar VSX loads, mtvsrdd,
    /// maddld.
    Power9 = "power9",
    /// ISA 3.1 (POWER10) mnemonics: paired and prefixed loads and stores, xxeval.
    Power10 = "power10",
    /// z10's general-instructions-extension facility: compare and branch (`cijne`), written
    /// under `.machine "z10"`.
    Z10 = "z10",
    /// The z/Architecture vector facility (z13) written as mnemonics (`vperm`, `vl`).
    S390xVector = "s390x-vector",
    /// CPACF, the message-security assists, written as mnemonics (`km`, `kimd`, `kma`).
    S390xMsa = "s390x-msa",
    /// RISC-V's Zbb (basic bit manipulation: `rev8`, `rori`, `andn`).
    Zbb = "zbb",
    /// RISC-V's Zbc (carry-less multiplication: `clmul`, `clmulh`).
    Zbc = "zbc",
    /// RISC-V's Zbkb (bit manipulation for cryptography: `pack`, `brev8`).
    Zbkb = "zbkb",
    /// RISC-V's scalar crypto Zkne, Zknd and Zknh (`aes64es`, `sha256sig0`).
    Zkn = "zkn",
    /// RISC-V's vector extension V 1.0 (`vsetivli`, `vle32.v`).
    RiscvV = "riscv-v",
}

impl Feature {
    pub fn from_name(s: &str) -> Option<Feature> {
        Feature::ALL.iter().copied().find(|f| f.name() == s)
    }
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

pub fn set_by_name(name: &str) -> anyhow::Result<&'static AsmSet> {
    SETS.iter().find(|s| s.name == name).ok_or_else(|| {
        anyhow::anyhow!("unknown asm set `{name}`; accepted: auto, {}", set_names().join(", "))
    })
}

pub fn set_names() -> Vec<&'static str> {
    SETS.iter().map(|s| s.name).collect()
}

pub fn target_by_name(name: &str) -> anyhow::Result<&'static Target> {
    TARGETS.iter().find(|t| t.name == name).ok_or_else(|| unknown_target(name))
}

/// The target row serving a Rust target triple, or a Configure target name.
pub fn target_for(triple_or_name: &str) -> anyhow::Result<&'static Target> {
    TARGETS
        .iter()
        .find(|t| t.name == triple_or_name || t.triples.contains(&triple_or_name))
        .ok_or_else(|| unknown_target(triple_or_name))
}

fn unknown_target(name: &str) -> anyhow::Error {
    let (row, triple) = nearest_target(name);
    anyhow::anyhow!(
        "unsupported target `{name}`: no row of crypto-build's target table (docs/targets.md) \
         serves it; the nearest is `{}` ({triple}). A new target is a row of `data::TARGETS` (docs/ARCHITECTURE.md, \
         \"Adding a target\"), and its `no_asm` set alone (`CRYPTO_SYS_ASM_SET=no_asm`, OpenSSL's \
         plain C) is the way to start",
        row.name
    )
}

/// The row whose triple shares the most `-`-separated parts with `name`, the architecture
/// counting most (a same-arch row first), then the first in table order.
pub fn nearest_target(name: &str) -> (&'static Target, &'static str) {
    let parts: Vec<&str> = name.split('-').collect();
    let score = |triple: &str| {
        let theirs: Vec<&str> = triple.split('-').collect();
        let arch = usize::from(theirs.first() == parts.first()) * 10;
        arch + theirs.iter().filter(|p| parts.contains(p)).count()
    };
    let rows = TARGETS.iter().flat_map(|t| t.triples.iter().map(move |tr| (t, *tr)));
    // The first of the best: `max_by_key` keeps the last, so compare reversed positions.
    let best = rows.enumerate().max_by_key(|(i, (_, tr))| (score(tr), usize::MAX - i));
    best.map(|(_, b)| b).expect("the target table has rows")
}

/// One Apple clang release line, for reports only: what the upstream LLVM of an Apple banner
/// is, since Apple numbers its clang after Xcode. The probes still decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppleClangRelease {
    /// Leading components of the `clang-…` build; "1500" covers every 1500.x.y.
    pub build: &'static str,
    /// The version the banner prints with that build (`Apple clang version 15.0.0`).
    pub apple_version: &'static str,
    /// The upstream LLVM major release it corresponds to.
    pub llvm: u32,
    pub xcode: &'static str,
}

/// From Wikipedia's "Xcode" page, table "Toolchain versions" (its LLVM column), as Boost.Config
/// (boost/config/compiler/clang_version.hpp) and Qt (qcompilerdetection.h) also map it; the
/// builds are the ones those Xcode releases print. Xcode 26 (clang-1700.3+, clang-2100) is
/// left out until a source maps it: such banners report "LLVM equivalent unknown".
pub const APPLE_CLANG_RELEASES: &[AppleClangRelease] = &[
    AppleClangRelease { build: "900", apple_version: "9.0.0", llvm: 4, xcode: "9.0–9.2" },
    AppleClangRelease { build: "902", apple_version: "9.1.0", llvm: 5, xcode: "9.3–9.4" },
    AppleClangRelease { build: "1000", apple_version: "10.0.0", llvm: 6, xcode: "10.0–10.1" },
    AppleClangRelease { build: "1001", apple_version: "10.0.1", llvm: 7, xcode: "10.2–10.3" },
    AppleClangRelease { build: "1100", apple_version: "11.0.0", llvm: 8, xcode: "11.0–11.3" },
    AppleClangRelease { build: "1103", apple_version: "11.0.3", llvm: 9, xcode: "11.4–11.7" },
    AppleClangRelease { build: "1200", apple_version: "12.0.0", llvm: 10, xcode: "12.0–12.4" },
    AppleClangRelease { build: "1205", apple_version: "12.0.5", llvm: 11, xcode: "12.5" },
    AppleClangRelease { build: "1300", apple_version: "13.0.0", llvm: 12, xcode: "13.0–13.2" },
    AppleClangRelease { build: "1316", apple_version: "13.1.6", llvm: 13, xcode: "13.3–13.4" },
    AppleClangRelease { build: "1400", apple_version: "14.0.0", llvm: 14, xcode: "14.0–14.2" },
    AppleClangRelease { build: "1403", apple_version: "14.0.3", llvm: 15, xcode: "14.3" },
    AppleClangRelease { build: "1500", apple_version: "15.0.0", llvm: 16, xcode: "15.x" },
    AppleClangRelease { build: "1600", apple_version: "16.0.0", llvm: 17, xcode: "16.0–16.2" },
    AppleClangRelease { build: "1700.0", apple_version: "17.0.0", llvm: 19, xcode: "16.3–16.4" },
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Each role is one row's, and asking by role gives that row: the roles in SETS' order of
    /// speed, the plain C one without asm.
    #[test]
    fn each_set_role_is_one_row() {
        for set in SETS {
            assert_eq!(SETS.iter().filter(|s| s.role == set.role).count(), 1, "{set:?}");
            assert_eq!(AsmSet::of(set.role), set);
            assert!(is_set(set.name, set.role) && AsmSet::of(set.role).is(set.role));
        }
        let ranks = [AsmSet::avx512(), AsmSet::avx2(), AsmSet::plain_c()].map(|s| s.rank);
        assert!(ranks.is_sorted(), "{ranks:?}");
        assert!(AsmSet::plain_c().allowed.is_empty() && !AsmSet::avx2().allowed.is_empty());
        assert!(AsmSet::avx2().allowed.iter().all(|f| AsmSet::avx512().allowed.contains(f)));
    }

    /// No triple is served by two rows (the first would hide the second).
    #[test]
    fn each_triple_is_one_rows() {
        let triples: Vec<&str> = TARGETS.iter().flat_map(|t| t.triples.iter().copied()).collect();
        for t in &triples {
            assert_eq!(triples.iter().filter(|u| *u == t).count(), 1, "{t}");
        }
    }

    /// A triple the table lacks is refused in one line naming the nearest row (same
    /// architecture first) and the `no_asm` way to start; never a panic.
    #[test]
    fn an_unknown_target_names_the_nearest_row_and_no_asm() {
        for (triple, nearest) in [
            ("riscv64gc-unknown-freebsd", "riscv64gc-unknown-linux-gnu"),
            ("aarch64-unknown-linux-ohos", "aarch64-unknown-linux-gnu"),
            ("x86_64-unknown-netbsd", "x86_64-unknown-linux-gnu"),
        ] {
            let e = target_for(triple).unwrap_err().to_string();
            let row = target_for(nearest).unwrap().name;
            assert!(!e.contains('\n'), "{e}");
            assert!(
                e.contains(&format!("`{triple}`")) && e.contains(&format!("`{row}` ({nearest})")),
                "{e}"
            );
            assert!(e.contains("CRYPTO_SYS_ASM_SET=no_asm"), "{e}");
        }
        // No part in common at all still names a row.
        assert!(target_for("wasm32-wasip1").unwrap_err().to_string().contains("the nearest is"));
    }

    /// SSLv3 is gone from 4.0: its Configure lists `ssl3` in %deprecated_disablables and
    /// warns of `no-ssl3`; 3.6.3's still disables it.
    #[test]
    fn no_ssl3_only_before_4_0() {
        assert!(configure_common("3.6.3").contains(&"no-ssl3"));
        assert!(configure_common("3.5.5").contains(&"no-ssl3"));
        let four = configure_common("4.0.3");
        assert!(!four.contains(&"no-ssl3") && four.contains(&"no-md2"));
        assert_eq!(four.len(), CONFIGURE_COMMON.len() - 1);
    }

    #[test]
    fn every_target_ends_with_no_asm_and_its_arch_has_probed_classes_only() {
        for t in TARGETS {
            let sets: Vec<&str> = t.sets().map(|s| s.name).collect();
            assert_eq!(sets, t.sets, "{}: sets in SETS' order", t.name);
            assert!(t.sets().last().is_some_and(|s| s.allowed.is_empty()), "{}", t.name);
            let fastest = t.sets().next().unwrap();
            let mut probed = crate::detect::probe::gas_probes(t.arch).iter().map(|(f, _)| f);
            assert!(probed.all(|f| fastest.allowed.contains(f)), "{}", t.name);
        }
    }

    #[test]
    fn feature_names_round_trip() {
        for f in Feature::ALL {
            assert_eq!(Feature::from_name(f.name()), Some(*f));
        }
    }

    /// Each target builds each C variant or says why not, never both.
    #[test]
    fn every_target_builds_or_refuses_each_variant() {
        for t in TARGETS {
            for v in C_VARIANTS {
                let built = t.c_variants.iter().any(|c| c.name == v.name);
                let refused = t.refused_variants.iter().filter(|(n, _)| *n == v.name).count();
                assert!(built ^ (refused == 1), "{}: {}", t.name, v.name);
            }
            assert!(t.refused_variants.iter().all(|(_, why)| !why.is_empty()), "{}", t.name);
        }
    }

    /// libatomic is linked from its archive on every link line; the others as they were.
    #[test]
    fn libatomic_is_linked_statically() {
        let armv4 = target_by_name("linux-armv4").unwrap();
        assert_eq!(armv4.refused_variants[0].0, NISTP);
        let flags: Vec<String> = ["dl", "pthread", "atomic"].map(ex_lib_flag).into();
        assert_eq!(flags, ["-ldl", "-pthread", "-l:libatomic.a"]);
        assert_eq!(
            (ex_lib_cargo("atomic"), ex_lib_cargo("dl")),
            ("static:-bundle=atomic".into(), "dl".into())
        );
    }

    #[test]
    fn no_variant_is_named_like_a_choice() {
        // A variant named `none` or `auto` would be unreachable and misread in the facts.
        assert!(C_VARIANTS.iter().all(|v| ![NO_C_VARIANT, "auto"].contains(&v.name)));
    }

    #[test]
    fn lookups_reject_unknown_names_with_the_accepted_list() {
        let e = set_by_name("fast").unwrap_err().to_string();
        assert!(e.contains("asm, asm_avx2, no_asm"), "{e}");
        // The target table is too long for one line: the nearest row, and where every row is.
        let e = target_for("loongarch64-unknown-linux-gnu").unwrap_err().to_string();
        assert!(
            e.contains("the nearest is `linux-x86_64`") && e.contains("docs/targets.md"),
            "{e}"
        );
        assert_eq!(target_for("aarch64-unknown-linux-gnu").unwrap().name, "linux-aarch64");
        assert_eq!(target_for("x86_64-apple-darwin").unwrap().name, "darwin64-x86_64-cc");
        assert_eq!(target_for("x86_64-unknown-linux-gnu").unwrap().name, "linux-x86_64");
    }
}
