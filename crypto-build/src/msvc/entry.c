/* The entry point of an MSVC-ABI console program linked against wine's C runtime
 * (ucrtbase.dll) rather than Microsoft's CRT, whose static part defines it and the symbols
 * clang-cl's code refers to: the /GS stack cookie, _fltused, atexit. crypto-build's msvc module
 * compiles it into every program it links with lld-link, and only there. */

#include <stdint.h>

int main(int argc, char **argv);

/* ucrtbase's exports, as Microsoft's CRT startup calls them. */
__declspec(dllimport) int __cdecl _configure_narrow_argv(int mode);
__declspec(dllimport) int __cdecl _initialize_narrow_environment(void);
__declspec(dllimport) int *__cdecl __p___argc(void);
__declspec(dllimport) char ***__cdecl __p___argv(void);
__declspec(dllimport) void __cdecl _set_app_type(int type);
__declspec(dllimport) void __cdecl exit(int status);
__declspec(dllimport) void __cdecl abort(void);
__declspec(dllimport) int __cdecl _crt_atexit(void(__cdecl *function)(void));
__declspec(dllimport) uint64_t __stdcall GetTickCount64(void);

/* An EXE's _onexit and atexit, which the CRT's static part defines over ucrtbase's table
 * (OpenSSL 3.5's init.c registers its cleanup with _onexit). */
typedef int(__cdecl *onexit_function)(void);

onexit_function __cdecl _onexit(onexit_function function)
{
    return _crt_atexit((void(__cdecl *)(void))function) == 0 ? function : 0;
}

int __cdecl atexit(void(__cdecl *function)(void))
{
    return _crt_atexit(function);
}

/* The pointers through which a unit that declared them dllimport calls them (wine's headers
 * do; the SDK's declare both plainly), under the names the linker looks for: defined here,
 * they need no archive member (mingw-w64's i686 libucrtbase.a has an _onexit of its own),
 * and they keep both functions alive, which lld-link's own stand-in pointers did not. */
#if defined(_M_IX86)
onexit_function(__cdecl *_imp___onexit)(onexit_function) = _onexit;
int(__cdecl *_imp__atexit)(void(__cdecl *)(void)) = atexit;
#else
onexit_function(__cdecl *__imp__onexit)(onexit_function) = _onexit;
int(__cdecl *__imp_atexit)(void(__cdecl *)(void)) = atexit;
#endif

/* What the compiler emits a reference to in any unit that uses floating point. */
int _fltused = 0x9875;

/* /GS: each protected frame holds this value xored with its frame address and checks it
 * before returning; MSVC's own default value, made unpredictable before main runs. */
uintptr_t __security_cookie = (uintptr_t)0x2B992DDFA232ULL;

void __fastcall __security_check_cookie(uintptr_t cookie)
{
    if (cookie != __security_cookie)
        abort();
}

/* No local's address is taken here, so no frame of its own is protected by the value it
 * changes. */
static void init_cookie(void)
{
    __security_cookie ^= (uintptr_t)GetTickCount64() ^ (uintptr_t)&_fltused;
}

/* The initializer tables: the linker sorts the `.CRT$X??` sections by name into one, so each
 * table's entries lie between its A and Z markers. OpenSSL's x86 cpuid asm puts
 * OPENSSL_cpuid_setup in `.CRT$XCU`, as ELF's `.init` and mingw's `.ctors` hold it. */
typedef int(__cdecl *c_initializer)(void);
typedef void(__cdecl *initializer)(void);
__declspec(dllimport) int __cdecl _initterm_e(c_initializer *first, c_initializer *last);
__declspec(dllimport) void __cdecl _initterm(initializer *first, initializer *last);
#pragma section(".CRT$XIA", long, read)
#pragma section(".CRT$XIZ", long, read)
#pragma section(".CRT$XCA", long, read)
#pragma section(".CRT$XCZ", long, read)
__declspec(allocate(".CRT$XIA")) c_initializer c_initializers_a = 0;
__declspec(allocate(".CRT$XIZ")) c_initializer c_initializers_z = 0;
__declspec(allocate(".CRT$XCA")) initializer initializers_a = 0;
__declspec(allocate(".CRT$XCZ")) initializer initializers_z = 0;

/* _crt_argv_unexpanded_arguments and _crt_console_app, as in corecrt_startup.h; then the C
 * and the C++-style initializers, as the CRT runs them before main. */
int mainCRTStartup(void)
{
    init_cookie();
    _set_app_type(1);
    _configure_narrow_argv(1);
    _initialize_narrow_environment();
    if (_initterm_e(&c_initializers_a, &c_initializers_z) != 0)
        abort();
    _initterm(&initializers_a, &initializers_z);
    exit(main(*__p___argc(), *__p___argv()));
    return 0;
}
