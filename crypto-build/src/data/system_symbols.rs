//! The symbols an OpenSSL build may need from outside itself: the C library, the OS's API
//! (POSIX and Linux; Windows'), and the compiler's runtime. crypto-sys's prefixed libraries
//! may leave only these undefined (`prefixed::check`): any other name is one another OpenSSL
//! in the binary could answer. Each name as C spells it, measured from the libraries of every
//! row we build; a new one fails that row's build, naming it.

/// Every allowed name, sorted (`system_symbols_are_sorted`), one list for every OS: a name of one OS's API
/// never appears in another's objects, and none of them is OpenSSL's.
#[rustfmt::skip]
pub const SYSTEM_SYMBOLS: &[&str] = &[
    ".TOC.", "@__security_check_cookie", "AcquireSRWLockExclusive", "AcquireSRWLockShared", "CertCloseStore", "CertDuplicateCertificateContext",
    "CertEnumCertificatesInStore", "CertFindCertificateInStore", "CertFreeCertificateContext", "CertGetCertificateContextProperty", "CertOpenStore", "CertOpenSystemStoreW",
    "CloseHandle", "ConvertFiberToThread", "ConvertThreadToFiber", "ConvertThreadToFiberEx", "CreateFiber", "CreateFiberEx",
    "CreateSemaphoreA", "CryptAcquireContextW", "CryptCreateHash", "CryptDecrypt", "CryptDestroyHash", "CryptDestroyKey",
    "CryptEnumProvidersW", "CryptExportKey", "CryptGenRandom", "CryptGetProvParam", "CryptGetUserKey", "CryptReleaseContext",
    "CryptSetHashParam", "CryptSignHashW", "DeleteCriticalSection", "DeleteFiber", "DeregisterEventSource", "EnterCriticalSection",
    "FindClose", "FindFirstFileW", "FindNextFileW", "FreeLibrary", "GetACP", "GetConsoleMode",
    "GetCurrentProcessId", "GetCurrentThreadId", "GetEnvironmentVariableW", "GetExitCodeThread", "GetFileType", "GetLastError",
    "GetModuleFileNameW", "GetModuleHandleExW", "GetModuleHandleW", "GetProcAddress", "GetProcessWindowStation", "GetStdHandle",
    "GetSystemInfo", "GetSystemTime", "GetSystemTimeAsFileTime", "GetUserObjectInformationW", "GetVersion", "InitializeConditionVariable",
    "InitializeCriticalSection", "InitializeCriticalSectionAndSpinCount", "InitializeSRWLock", "LeaveCriticalSection", "LoadLibraryA", "LoadLibraryW",
    "MessageBoxW", "MultiByteToWideChar", "ReadConsoleA", "ReadConsoleW", "RegisterEventSourceA", "RegisterEventSourceW",
    "ReleaseSRWLockExclusive", "ReleaseSRWLockShared", "ReleaseSemaphore", "ReportEventA", "ReportEventW", "RtlVirtualUnwind",
    "SetConsoleMode", "SetLastError", "Sleep", "SleepConditionVariableCS", "SwitchToFiber", "SystemTimeToFileTime",
    "TlsAlloc", "TlsFree", "TlsGetValue", "TlsSetValue", "TryEnterCriticalSection", "VirtualAlloc",
    "VirtualFree", "VirtualLock", "VirtualProtect", "WSACleanup", "WSAGetLastError", "WSAIoctl",
    "WSASetLastError", "WSASocketA", "WSAStartup", "WaitForSingleObject", "WakeAllConditionVariable", "WakeConditionVariable",
    "WideCharToMultiByte", "WriteFile", "WspiapiFreeAddrInfo", "WspiapiGetAddrInfo", "WspiapiGetNameInfo", "_GLOBAL_OFFSET_TABLE_",
    "___chkstk_ms", "__aarch64_ldadd4_acq_rel", "__aarch64_ldadd4_rel", "__aarch64_ldadd4_relax", "__aarch64_ldadd8_acq", "__aarch64_ldadd8_acq_rel",
    "__aarch64_ldadd8_rel", "__aarch64_ldadd8_relax", "__aarch64_ldclr8_acq_rel", "__aarch64_ldset8_acq_rel", "__acrt_iob_func", "__aeabi_d2lz",
    "__aeabi_d2ulz", "__aeabi_idiv", "__aeabi_idivmod", "__aeabi_l2d", "__aeabi_ldivmod", "__aeabi_uidiv",
    "__aeabi_uidivmod", "__aeabi_ul2d", "__aeabi_uldivmod", "__bswapdi2", "__bswapsi2", "__chkstk",
    "__chkstk_ms", "__ctype_b_loc", "__ctype_tolower_loc", "__ctype_toupper_loc", "__ctzdi2", "__divdi3",
    "__divmoddi4", "__errno_location", "__isoc99_sscanf", "__mingw_vfprintf", "__mingw_vsnprintf", "__mingw_vsscanf",
    "__moddi3", "__security_check_cookie", "__security_cookie", "__sigsetjmp", "__stdio_common_vfprintf", "__stdio_common_vsnprintf_s",
    "__stdio_common_vsprintf", "__stdio_common_vsscanf", "__stdio_common_vswprintf", "__udivdi3", "__udivmoddi4", "__umoddi3",
    "__xpg_strerror_r", "_alldiv", "_aulldiv", "_aullrem", "_beginthreadex", "_chkstk",
    "_chmod", "_close", "_endthreadex", "_errno", "_exit", "_fileno",
    "_fltused", "_fstat32", "_fstat64", "_fstat64i32", "_get_osfhandle", "_gmtime64_s",
    "_longjmp", "_lseek", "_onexit", "_read", "_setjmp", "_setmode",
    "_stat32", "_stat64", "_stat64i32", "_strdup", "_time32", "_time64",
    "_vsnprintf", "_vsnwprintf", "_wfopen", "_write", "abort", "accept",
    "atexit", "atoi", "bcmp", "bind", "calloc", "chmod",
    "clearerr", "clock_gettime", "close", "closedir", "closelog", "closesocket",
    "connect", "dladdr", "dlclose", "dlerror", "dlopen", "dlsym",
    "fclose", "fcntl", "fdopen", "feof", "ferror", "fflush",
    "fgets", "fileno", "fopen", "fopen64", "fprintf", "fputc",
    "fputs", "fread", "free", "freeaddrinfo", "fseek", "fstat",
    "ftell", "fwrite", "gai_strerror", "gai_strerrorA", "getaddrinfo", "getauxval",
    "getcontext", "getegid", "getentropy", "getenv", "geteuid", "getgid",
    "gethostbyname", "getnameinfo", "getpeername", "getpid", "getsockname", "getsockopt",
    "gettimeofday", "getuid", "gmtime_r", "htonl", "ioctl", "ioctlsocket",
    "isspace", "listen", "lseek", "lstat", "madvise", "makecontext",
    "malloc", "memchr", "memcmp", "memcpy", "memmove", "memset",
    "mlock", "mmap", "mprotect", "munmap", "nanosleep", "ntohs",
    "open", "opendir", "openlog", "perror", "poll", "posix_memalign",
    "pthread_attr_destroy", "pthread_attr_init", "pthread_attr_setdetachstate", "pthread_cond_broadcast", "pthread_cond_destroy", "pthread_cond_init",
    "pthread_cond_signal", "pthread_cond_timedwait", "pthread_cond_wait", "pthread_create", "pthread_exit", "pthread_getspecific",
    "pthread_join", "pthread_key_create", "pthread_key_delete", "pthread_mutex_destroy", "pthread_mutex_init", "pthread_mutex_lock",
    "pthread_mutex_trylock", "pthread_mutex_unlock", "pthread_mutexattr_destroy", "pthread_mutexattr_init", "pthread_once", "pthread_rwlock_destroy",
    "pthread_rwlock_init", "pthread_rwlock_rdlock", "pthread_rwlock_unlock", "pthread_rwlock_wrlock", "pthread_self", "pthread_setspecific",
    "qsort", "raise", "read", "readdir", "realloc", "recv",
    "recvfrom", "recvmmsg", "secure_getenv", "select", "send", "sendmmsg",
    "sendmsg", "sendto", "setbuf", "setcontext", "setsockopt", "shmat",
    "shmdt", "shmget", "shutdown", "sigaction", "sigdelset", "sigfillset",
    "siglongjmp", "signal", "sigprocmask", "socket", "socketpair", "sscanf",
    "stat", "stderr", "stdin", "strcat", "strchr", "strcmp",
    "strcpy", "strcspn", "strdup", "strerror", "strerror_r", "strerror_s",
    "strlen", "strncmp", "strncpy", "strpbrk", "strrchr", "strspn",
    "strstr", "strtok", "strtol", "strtoul", "syscall", "sysconf",
    "syslog", "tcgetattr", "tcsetattr", "time", "tolower", "uname",
    "usleep", "vfprintf", "vsnprintf", "wcscmp", "wcscpy", "wcslen",
    "wcsstr", "write",
];

/// Whether an object's undefined `name` is a system symbol: after Windows' import thunk
/// (`__imp_`), the target's decoration and a stdcall suffix (`@8`), as C spells it.
pub fn system_symbol(name: &str, decoration: &str) -> bool {
    let name = name.strip_prefix("__imp_").unwrap_or(name);
    let name = name.strip_prefix(decoration).unwrap_or(name);
    let name = match name.rsplit_once('@') {
        Some((base, n)) if !base.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => name,
    };
    SYSTEM_SYMBOLS.binary_search(&name).is_ok()
        || SANITIZER_RUNTIMES.iter().chain(LINKER_DEFINED).any(|p| name.starts_with(p))
}

/// What the linker itself defines: an ELF section's bounds (`__start_asan_globals`, which
/// ASan's instrumented objects need).
pub const LINKER_DEFINED: &[&str] = &["__start_", "__stop_"];

/// The sanitizers' runtimes, by their prefix: an instrumented build (ASan, UBSan) calls
/// dozens of their entry points, which change from one compiler release to the next.
pub const SANITIZER_RUNTIMES: &[&str] =
    &["__asan_", "__ubsan_", "__msan_", "__tsan_", "__lsan_", "__sanitizer_"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_symbols_are_sorted() {
        assert!(SYSTEM_SYMBOLS.windows(2).all(|w| w[0] < w[1]), "sort SYSTEM_SYMBOLS");
    }

    #[test]
    fn a_name_is_read_as_c_spells_it() {
        assert!(system_symbol("__imp__GetProcAddress@8", "_"));
        assert!(system_symbol("__imp_GetProcAddress", ""));
        assert!(system_symbol("_memcpy", "_"));
        assert!(system_symbol("__asan_report_load8", ""));
        assert!(system_symbol("__start_asan_globals", ""));
        assert!(!system_symbol("EVP_sha256", ""));
        assert!(!system_symbol("_EVP_sha256", "_"));
    }
}
