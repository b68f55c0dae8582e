//! What the generator fixes in perlasm's nasm output before it is collected: x86asm.pl's
//! `endbranch` writes C preprocessor conditionals (`#ifdef __CET__` around `endbr32`'s bytes)
//! in every flavour, for the `.S` files a C compiler preprocesses; nasm has no such syntax and
//! stops at them ("label or instruction expected"). Node patches x86asm.pl by hand after each
//! OpenSSL update to write nasm's `%ifdef` instead; here each rendering is translated, so the
//! perl scripts stay as released. And a rendering for a target that GNU ld links (32-bit
//! mingw's) leaves out x86nasm.pl's `safeseh` table (`without_safeseh`).

use anyhow::{bail, Result};

/// The C preprocessor's conditionals, which nasm spells with `%`.
const CONDITIONALS: &[&str] = &["ifdef", "ifndef", "else", "endif"];

/// `text` with each C preprocessor conditional line written as nasm's (`#ifdef X` as
/// `%ifdef X`); nasm defines no `__CET__`, so the bytes between are left out, as a C compiler
/// leaves them out without `-fcf-protection`. Any other `#` directive (`#include`, `#if`
/// with an expression) has no sure nasm spelling and is refused with its line.
pub fn conditionals_for_nasm(text: &str) -> Result<String> {
    let mut out = String::with_capacity(text.len());
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let Some(directive) = line.trim_start().strip_prefix('#') else {
            out.push_str(line);
            continue;
        };
        let word = directive.split_whitespace().next().unwrap_or("");
        if !CONDITIONALS.contains(&word) {
            bail!("line {}: C preprocessor line `{}` has no nasm form", n + 1, line.trim());
        }
        out.push('%');
        out.push_str(directive.trim_start());
    }
    Ok(out)
}

/// `text` without nasm's `safeseh` directives. Each puts a handler in the object's `.sxdata`
/// table, which MSVC's link.exe needs for `/SAFESEH` (VC-WIN32 keeps it), and which GNU ld
/// does not know: it places the section at address 0, below the image base, and Windows (and
/// wine) refuse the program as a bad EXE. mingw's GNU as rendering has no such table either
/// (x86gas.pl writes none); its only user is e_padlock-x86's segment-violation handler.
pub fn without_safeseh(text: &str) -> String {
    let directive = |l: &str| l.split_whitespace().next() == Some("safeseh");
    text.split_inclusive('\n').filter(|l| !directive(l)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// des-586's shape as x86nasm.pl renders it (a jump target with endbranch).
    const DES: &str = "section\t.text\tcode align=64\nglobal\t_f\n_f:\nL$006ej7:\n\t#ifdef __CET__\n\ndb\t243,15,30,251\n\t#endif\n\n\tmov\tdh,BYTE [6+esi]\n\tret\n";

    #[test]
    fn cet_conditionals_become_nasms() {
        let fixed = conditionals_for_nasm(DES).unwrap();
        assert!(fixed.contains("\n%ifdef __CET__\n\ndb\t243,15,30,251\n%endif\n"), "{fixed}");
        assert_eq!(fixed.lines().count(), DES.lines().count());
        assert_eq!(conditionals_for_nasm("\tmov\teax,1\n").unwrap(), "\tmov\teax,1\n");
        let e = conditionals_for_nasm("mov eax,1\n#include \"x.h\"\n").unwrap_err();
        assert!(e.to_string().contains("line 2: C preprocessor line `#include \"x.h\"`"), "{e}");
    }

    /// The real nasm refuses the rendering as x86nasm.pl leaves it and takes it translated,
    /// without the `endbr32` bytes.
    #[test]
    fn nasm_assembles_the_translated_rendering_only() {
        let nasm = crypto_build::installed("nasm", "nasm");
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let assemble = |name: &str, text: &str| {
            let (src, obj) = (dir.join(format!("{name}.asm")), dir.join(format!("{name}.o")));
            std::fs::write(&src, text).unwrap();
            let out = Command::new(&nasm).args(["-f", "win32", "-o"]).arg(&obj).arg(&src).output();
            let ok = out.unwrap().status.success();
            (ok, std::fs::read(&obj).unwrap_or_default())
        };
        let (raw, _) = assemble("raw", DES);
        let (fixed, obj) = assemble("fixed", &conditionals_for_nasm(DES).unwrap());
        assert!(!raw, "nasm should refuse `#ifdef`");
        assert!(fixed, "nasm should take `%ifdef`");
        let endbr32 = [0xf3, 0x0f, 0x1e, 0xfb];
        assert!(!obj.windows(4).any(|w| w == endbr32), "no __CET__ under nasm: no endbr32");
    }

    /// e_padlock-x86's shape, as x86nasm.pl renders it.
    const PADLOCK: &str = "section\t.text\tcode align=64\nglobal\t_f\n_f:\n\tmov\teax,1\n\tret\nhandler:\n\txor\teax,eax\n\tret\n%if\t__NASM_VERSION_ID__ >= 0x02030000\nsafeseh\thandler\n%endif\n";

    /// A program GNU ld links from the rendering as x86nasm.pl leaves it has its `.sxdata`
    /// below the image base; from the rendering without it, none.
    #[test]
    fn gnu_ld_links_a_sound_image_without_safeseh() {
        let nasm = crypto_build::installed("nasm", "nasm");
        let gcc = crypto_build::installed("i686-w64-mingw32-gcc", "gcc-mingw-w64-i686");
        let objdump =
            crypto_build::installed("i686-w64-mingw32-objdump", "binutils-mingw-w64-i686");
        assert!(!without_safeseh(PADLOCK).contains("safeseh"));
        assert_eq!(without_safeseh(PADLOCK).lines().count(), PADLOCK.lines().count() - 1);
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        std::fs::write(dir.join("main.c"), "int f(void);\nint main(void) { return f(); }\n")
            .unwrap();
        let sections = |name: &str, text: &str| {
            let (src, obj, exe) = (
                dir.join(format!("{name}.asm")),
                dir.join(format!("{name}.o")),
                dir.join(format!("{name}.exe")),
            );
            std::fs::write(&src, text).unwrap();
            let run = |c: &mut Command| assert!(c.status().unwrap().success(), "{c:?}");
            run(Command::new(&nasm).args(["-f", "win32", "-o"]).arg(&obj).arg(&src));
            run(Command::new(&gcc).arg(dir.join("main.c")).arg(&obj).arg("-o").arg(&exe));
            let out = Command::new(&objdump).arg("-h").arg(&exe).output();
            String::from_utf8(out.unwrap().stdout).unwrap()
        };
        let raw = sections("raw", PADLOCK);
        let fixed = sections("fixed", &without_safeseh(PADLOCK));
        assert!(raw.contains(".sxdata"), "{raw}");
        assert!(!fixed.contains(".sxdata"), "{fixed}");
    }
}
