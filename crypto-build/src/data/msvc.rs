//! MSVC-ABI rows on a host without Microsoft's SDK: where wine's C runtime and Windows headers
//! and each architecture's import libraries are, what wine's headers lack against the SDK's,
//! and what cl.exe (not clang-cl) never compiles. `crate::msvc` builds and links with them.

use super::{Arch, Target, NISTP};

/// An MSVC-ABI architecture's C runtime here: wine's (ucrtbase and the Windows DLLs), whose
/// headers serve as the SDK's and whose import libraries link the programs lld-link makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WineRuntime {
    /// The architecture of the MSVC row it serves (`Target::arch`).
    pub arch: Arch,
    /// wine's C runtime and Windows headers, searched as system headers in this order.
    pub include: &'static [&'static str],
    /// The Debian package that holds them, named when they are missing.
    pub include_package: &'static str,
    /// The import libraries (`lib<name>.a`) of the DLLs a program links.
    pub lib_dir: &'static str,
    /// The Debian package that holds them.
    pub lib_package: &'static str,
    /// What every program links beside Configure's ex_libs: the C runtime and kernel32, which
    /// MSVC's link.exe takes by default.
    pub crt_libs: &'static [&'static str],
    /// ntdll's exports that the import libraries lack and clang-cl's code calls (32-bit x86's
    /// 64-bit division and shifts, `_chkstk`), linked through an import library made from
    /// these names (MSVC's static CRT has them; wine's ntdll exports them, as Windows' does).
    pub ntdll_helpers: &'static [&'static str],
    /// lld-link's `/machine:`.
    pub machine: &'static str,
    /// lld-link's flags these import libraries need.
    pub link_flags: &'static [&'static str],
}

/// wine's headers (libwine-dev): one copy for every architecture.
const WINE_HEADERS: &[&str] = &["/usr/include/wine/wine/msvcrt", "/usr/include/wine/wine/windows"];
const WINE_HEADERS_PACKAGE: &str = "libwine-dev";
const CRT_LIBS: &[&str] = &["ucrtbase", "kernel32"];

/// x86_64: wine's own import libraries (libwine-dev:amd64, which wine64-tools pulls in).
/// i686: wine's i386 ones (libwine-dev:i386, wine32-tools:i386) cannot be installed beside
/// the amd64 toolchain on Debian 12 (`apt-get install -s wine32-tools:i386` removes gcc,
/// clang and binutils), so mingw-w64's i686 import libraries stand in, which lld-link reads
/// as well; they lack ntdll's compiler helpers, and their objects carry no SafeSEH flag, so
/// the programs are linked without a SafeSEH table (`/safeseh:no`, as link.exe needs for such
/// objects too).
#[rustfmt::skip]
pub const WINE_RUNTIMES: &[WineRuntime] = &[
    WineRuntime { arch: Arch::X86_64, include: WINE_HEADERS, include_package: WINE_HEADERS_PACKAGE,
                  lib_dir: "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows",
                  lib_package: "libwine-dev (apt install wine64-tools)", crt_libs: CRT_LIBS,
                  ntdll_helpers: &[], machine: "x64", link_flags: &[] },
    WineRuntime { arch: Arch::X86, include: WINE_HEADERS, include_package: WINE_HEADERS_PACKAGE,
                  lib_dir: "/usr/i686-w64-mingw32/lib",
                  lib_package: "mingw-w64-i686-dev (apt install gcc-mingw-w64-i686)",
                  crt_libs: CRT_LIBS,
                  ntdll_helpers: &["_alldiv", "_alldvrm", "_allmul", "_allrem", "_allshl",
                                   "_allshr", "_aulldiv", "_aulldvrm", "_aullrem", "_aullshr",
                                   "_chkstk"],
                  machine: "x86", link_flags: &["/safeseh:no"] },
];

impl WineRuntime {
    /// The runtime of an MSVC-ABI row (`CcKind::Msvc`) whose architecture has one here.
    pub fn of(target: &Target) -> Option<&'static WineRuntime> {
        let msvc = target.cc_kind == super::CcKind::Msvc;
        WINE_RUNTIMES.iter().find(|r| msvc && r.arch == target.arch)
    }
}

/// Something the Windows SDK's headers declare and wine 8's do not, which OpenSSL's C uses:
/// where `probe` fails to compile against wine's headers, `declare` stands in, with the SDK's
/// meaning, in a header every unit includes first (`msvc::system_headers`). Probed, so a wine
/// that has it gets nothing. `declare` includes no header: it runs before the unit's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderGap {
    /// A C unit that compiles only where the headers have it.
    pub probe: &'static str,
    pub declare: &'static str,
    /// Who needs it and what the SDK says.
    pub why: &'static str,
}

#[rustfmt::skip]
pub const WINE_HEADER_GAPS: &[HeaderGap] = &[
    HeaderGap { probe: "#include <windows.h>\nvoid probe(LONG64 volatile *d) { InterlockedExchange64(d, 1); }\n",
                declare: "__int64 _InterlockedExchange64(__int64 volatile *, __int64);\n\
                          #define InterlockedExchange64 _InterlockedExchange64\n",
                why: "crypto/threads_win.c; the SDK's winnt.h maps it to this intrinsic" },
    HeaderGap { probe: "#include <malloc.h>\nvoid probe(void) { _freea(_malloca(8)); }\n",
                declare: "#define _malloca(size) malloc(size)\n#define _freea(p) free(p)\n",
                why: "crypto/getenv.c; the SDK's malloc.h takes the heap for all but small sizes, \
                      and _freea frees what came from it" },
    HeaderGap { probe: "#include <signal.h>\nvolatile sig_atomic_t probe;\n",
                declare: "typedef int sig_atomic_t;\n",
                why: "crypto/ui/ui_openssl.c; the SDK's signal.h has this typedef" },
    HeaderGap { probe: "#include <winsock2.h>\n#include <mstcpip.h>\nunsigned long probe = SIO_UDP_NETRESET;\n",
                declare: "#define SIO_UDP_NETRESET 0x9800000F\n",
                why: "ssl/quic/quic_reactor.c; the SDK's mstcpip.h: _WSAIOW(IOC_VENDOR,15)" },
    HeaderGap { probe: "#include <time.h>\nint probe(struct tm *r, const time_t *t) { return gmtime_s(r, t); }\n",
                declare: "struct tm;\n__declspec(dllimport) int __cdecl _gmtime64_s(struct tm *, const __int64 *);\n\
                          #define gmtime_s _gmtime64_s\n",
                why: "apps/s_server.c; the SDK's time.h calls ucrtbase's _gmtime64_s, as time_t is \
                      64 bits" },
];

/// C variants cl.exe (MSVC's own compiler, not clang-cl) never compiles, and why: `auto`
/// leaves them out quietly, as for a target that refuses them, and naming one is refused. For
/// clang-cl their probes decide, as on every other row.
pub const CL_EXE_REFUSES: &[(&str, &str)] = &[(NISTP, "cl.exe has no __uint128_t")];

/// Why cl.exe never compiles the C variant `name` ([`CL_EXE_REFUSES`]); `None`: it may.
pub fn cl_exe_refuses(name: &str) -> Option<&'static str> {
    CL_EXE_REFUSES.iter().find(|(n, _)| *n == name).map(|(_, why)| *why)
}

impl Target {
    /// The file of OpenSSL's library `name` (`crypto`, `ssl`) in a prefix of the target:
    /// `libcrypto.a`, or on MSVC `libcrypto.lib`, as OpenSSL's own VC build names it.
    pub fn archive_file(&self, name: &str) -> String {
        match self.cc_kind {
            super::CcKind::Msvc => format!("lib{name}.lib"),
            super::CcKind::Gnu => format!("lib{name}.a"),
        }
    }

    /// The name a link names it by: cargo's `rustc-link-lib=static=` and a C link's `-l`
    /// (`crypto`; on MSVC `libcrypto`, as rustc and clang look for `<name>.lib` there).
    pub fn archive_link_name(&self, name: &str) -> String {
        match self.cc_kind {
            super::CcKind::Msvc => format!("lib{name}"),
            super::CcKind::Gnu => name.to_string(),
        }
    }
}
