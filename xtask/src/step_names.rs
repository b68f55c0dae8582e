//! The names of `cargo xtask test`'s steps, one enum below both the command line (`flags`:
//! `--step` is parsed into it) and the registry (`ci::STEPS`: a row per name), so that
//! neither imports the other. A step that echoes a set's name takes it from `data`'s table.

use crypto_build::data::AsmSet;

/// Declares [`StepName`], its [`StepName::ALL`] and [`StepName::name`] from one list.
macro_rules! step_names {
    ($($variant:ident = $name:expr,)*) => {
        /// A step of `cargo xtask test`, by name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum StepName {
            $($variant,)*
        }

        impl StepName {
            /// Every step, in the registry's order.
            pub const ALL: &'static [StepName] = &[$(StepName::$variant,)*];
            /// Their names, in the same order: the enum's discriminants index it.
            const NAMES: &'static [&'static str] = &[$($name,)*];

            /// What `--step` and `--list` call it.
            pub const fn name(self) -> &'static str {
                StepName::NAMES[self as usize]
            }
        }
    };
}

step_names! {
    Lint = "lint",
    Lock = "lock",
    Aarch64 = "aarch64",
    Workflow = "workflow",
    Auto = "auto",
    AsmAvx2 = AsmSet::avx2().name,
    Prefix = "prefix",
    Windows = "windows",
    MsvcWine = "msvc-wine",
    Sanitize = "sanitize",
    Ppc64le = "ppc64le",
    I686 = "i686",
    MsvcWineI686 = "msvc-wine-i686",
    Assembled = "assembled",
    Package = "package",
    Patch = "patch",
    Coexist = "coexist",
    Fips = "fips",
    Sccache = "sccache",
    Toolchains = "toolchains",
    Workspace = "workspace",
    NoAsm = AsmSet::plain_c().name,
    WindowsNoAsm = "windows-no-asm",
    WindowsI686 = "windows-i686",
    I686Full = "i686-full",
    FipsCross = "fips-cross",
    FipsValidated = "fips-validated",
    Aarch64Full = "aarch64-full",
    Ppc64leFull = "ppc64le-full",
    S390x = "s390x",
    Riscv64 = "riscv64",
    Armv7 = "armv7",
    Musl = "musl",
    Mips64el = "mips64el",
    Lines = "lines",
    PatchLines = "patch-lines",
    CoexistVendored = "coexist-vendored",
    TarballMove = "tarball-move",
    RustOpenssl = "rust-openssl",
    Msvc = "msvc",
    MsvcI686 = "msvc-i686",
    WindowsArm64 = "windows-arm64",
    MacosArm64 = "macos-arm64",
    MacosX86_64 = "macos-x86_64",
}
