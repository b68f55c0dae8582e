//! Real objects from real compilers, renamed here and read back by LLVM's own reader
//! (`llvm-nm`), in every format and byte order we build for; an ELF one linked and run.

use super::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const LIB_C: &str = "int shared_counter;\n\
    static int hidden(int x) { return x * 2; }\n\
    int lib_twice(int x) { return hidden(x) + shared_counter; }\n\
    extern int system_call(int);\n\
    int lib_calls_out(int x) { return system_call(x); }\n";
const USE_C: &str = "int lib_twice(int);\nint use_it(void) { return lib_twice(3); }\n";

/// (clang's target, the target's decoration): ELF both byte orders and widths, COFF of
/// MSVC mode and mingw, x86 and x64, and 64-bit Mach-O.
const TARGETS: &[(&str, &str)] = &[
    ("x86_64-linux-gnu", ""),
    ("i686-linux-gnu", ""),
    ("aarch64-linux-gnu", ""),
    ("s390x-linux-gnu", ""),
    ("x86_64-pc-windows-msvc", ""),
    ("i686-pc-windows-msvc", "_"),
    ("x86_64-w64-windows-gnu", ""),
    ("i686-w64-windows-gnu", "_"),
    ("x86_64-apple-macos11", "_"),
    ("arm64-apple-macos11", "_"),
];

fn compile(clang: &Path, target: &str, dir: &Path, name: &str, text: &str) -> Vec<u8> {
    let src = dir.join(format!("{name}.c"));
    let obj = dir.join(format!("{name}-{target}.o"));
    std::fs::write(&src, text).unwrap();
    let out = Command::new(clang)
        .args(["-c", "-O1", "-fcommon", &format!("--target={target}"), "-o"])
        .arg(&obj)
        .arg(&src)
        .output()
        .unwrap();
    assert!(out.status.success(), "{target}: {}", String::from_utf8_lossy(&out.stderr));
    std::fs::read(obj).unwrap()
}

/// `llvm-nm`'s view of an object: (kind letter, name), globals only.
fn nm(obj: &[u8], dir: &Path) -> Vec<(String, String)> {
    let path = dir.join("nm-input.o");
    std::fs::write(&path, obj).unwrap();
    let nm = crate::installed("llvm-nm-19", "llvm-19");
    let out = Command::new(nm).arg("-g").arg(&path).output().unwrap();
    assert!(out.status.success(), "llvm-nm: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.len() >= 2).then(|| (w[w.len() - 2].to_string(), w[w.len() - 1].to_string()))
        })
        .collect()
}

fn prefix(decoration: &'static str) -> Prefix {
    Prefix { prefix: "crypto_sys_9_8_7_".into(), decoration }
}

#[test]
fn every_format_renames_definitions_commons_and_references_and_nothing_else() {
    let clang = crate::installed("clang-19", "clang-19");
    let dir = tempfile::tempdir().unwrap();
    for &(target, deco) in TARGETS {
        let lib = compile(&clang, target, dir.path(), "lib", LIB_C);
        let user = compile(&clang, target, dir.path(), "use", USE_C);
        let names = defined([lib.as_slice(), user.as_slice()]).unwrap();
        let c = |n: &str| format!("{deco}{n}");
        let want: BTreeSet<String> =
            ["shared_counter", "lib_twice", "lib_calls_out", "use_it"].map(c).into();
        // mingw's clang adds `.refptr.` stubs for a common symbol; they are renamed as well.
        let ours: BTreeSet<String> =
            names.iter().filter(|n| !n.starts_with(".refptr")).cloned().collect();
        assert_eq!(ours, want, "{target}: the defined globals");
        let p = prefix(deco);
        let (lib2, user2) =
            (prefixed(&lib, &names, &p).unwrap(), prefixed(&user, &names, &p).unwrap());
        let pre = |n: &str| format!("{deco}crypto_sys_9_8_7_{n}");
        let lib_nm = nm(&lib2, dir.path());
        let has = |syms: &[(String, String)], name: &str, kinds: &str| {
            syms.iter().any(|(k, n)| n == name && kinds.contains(k.as_str()))
        };
        assert!(has(&lib_nm, &pre("lib_twice"), "T"), "{target}: {lib_nm:?}");
        assert!(has(&lib_nm, &pre("shared_counter"), "CB"), "{target}: {lib_nm:?}");
        assert!(
            has(&lib_nm, &c("system_call"), "U"),
            "{target}: the system name stays: {lib_nm:?}"
        );
        assert!(!lib_nm.iter().any(|(_, n)| n == &c("lib_twice")), "{target}: {lib_nm:?}");
        let user_nm = nm(&user2, dir.path());
        assert!(has(&user_nm, &pre("lib_twice"), "U"), "{target}: the reference: {user_nm:?}");
        assert!(has(&user_nm, &pre("use_it"), "T"), "{target}: {user_nm:?}");
        // Read back by our reader too: every definition prefixed, locals untouched.
        for s in symbols(&lib2).unwrap() {
            match s.kind {
                Kind::Defined => assert!(p.carried_by(&s.name), "{target}: {s:?}"),
                // i686's PIC code needs the linker's own GOT symbol besides.
                Kind::Undefined => assert!(
                    [c("system_call"), "_GLOBAL_OFFSET_TABLE_".into()].contains(&s.name),
                    "{target}: {s:?}"
                ),
                Kind::Local => assert!(!s.name.contains("crypto_sys_9_8_7_"), "{target}: {s:?}"),
            }
        }
    }
}

/// Renaming moves no byte the linker relocates: a program linked from renamed objects (by
/// the host's gcc and ld) runs and computes what the plain one does, the plain copy beside.
#[test]
fn a_program_linked_from_renamed_objects_runs() {
    let gcc = crate::installed("gcc", "gcc");
    let dir = tempfile::tempdir().unwrap();
    let obj = |name: &str, text: &str| -> PathBuf {
        let src = dir.path().join(format!("{name}.c"));
        std::fs::write(&src, text).unwrap();
        let o = dir.path().join(format!("{name}.o"));
        let st = Command::new(&gcc)
            .args(["-c", "-O1", "-fcommon", "-fPIC", "-o"])
            .arg(&o)
            .arg(&src)
            .status();
        assert!(st.unwrap().success());
        o
    };
    let lib = std::fs::read(obj("lib", &LIB_C.replace("system_call", "abs"))).unwrap();
    let names = defined([lib.as_slice()]).unwrap();
    let renamed = prefixed(&lib, &names, &prefix("")).unwrap();
    std::fs::write(dir.path().join("lib.o"), renamed).unwrap();
    let plain = obj("plain", &LIB_C.replace("system_call", "abs"));
    // Both copies in one program, each with its own common symbol.
    let main = obj(
        "main",
        "#include <stdio.h>\nextern int crypto_sys_9_8_7_shared_counter, shared_counter;\n\
         int crypto_sys_9_8_7_lib_twice(int);\nint crypto_sys_9_8_7_lib_calls_out(int);\n\
         int lib_twice(int);\n\
         int main(void) { crypto_sys_9_8_7_shared_counter = 5; shared_counter = 100;\n\
         printf(\"%d %d %d\\n\", crypto_sys_9_8_7_lib_twice(20),\n\
         crypto_sys_9_8_7_lib_calls_out(-7), lib_twice(20));\n\
         return 0; }\n",
    );
    let exe = dir.path().join("prog");
    let renamed = dir.path().join("lib.o");
    let st = Command::new(&gcc).arg("-o").arg(&exe).args([&main, &renamed, &plain]).status();
    assert!(st.unwrap().success(), "linking the renamed object beside the plain one");
    let out = Command::new(&exe).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "45 7 140\n");
}

/// The check reads an archive as `ar` wrote it: a clean one passes, an unprefixed member
/// added by hand is named, and so is a reference no allowed list knows.
#[test]
fn the_check_names_what_escapes_the_prefix() {
    let clang = crate::installed("clang-19", "clang-19");
    let ar = crate::installed("llvm-ar-19", "llvm-19");
    let dir = tempfile::tempdir().unwrap();
    for &(target, deco) in &[("x86_64-linux-gnu", ""), ("i686-pc-windows-msvc", "_")] {
        let lib = compile(&clang, target, dir.path(), "lib", LIB_C);
        let names = defined([lib.as_slice()]).unwrap();
        let p = prefix(deco);
        let renamed = dir.path().join("renamed.o");
        std::fs::write(&renamed, prefixed(&lib, &names, &p).unwrap()).unwrap();
        let archive = |members: &[&Path]| {
            let a = dir.path().join(format!("lib-{}.a", members.len()));
            let _ = std::fs::remove_file(&a);
            assert!(Command::new(&ar).arg("crs").arg(&a).args(members).status().unwrap().success());
            a
        };
        let allowed = |n: &str| n == format!("{deco}system_call");
        let clean = check_archive(&archive(&[&renamed]), &p, &allowed).unwrap();
        assert!(clean.is_empty(), "{target}: {clean}");
        let plain = dir.path().join(format!("lib-{target}.o"));
        let mixed = check_archive(&archive(&[&renamed, &plain]), &p, &allowed).unwrap();
        let unprefixed: Vec<&str> = mixed.unprefixed.iter().map(|(_, s)| s.as_str()).collect();
        assert!(unprefixed.contains(&format!("{deco}lib_twice").as_str()), "{target}: {mixed}");
        let unknown = check_archive(&archive(&[&renamed]), &p, &|_| false).unwrap();
        let names: Vec<&str> = unknown.unknown_undefined.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(names, [format!("{deco}system_call")], "{target}");
    }
}

/// A Mach-O file (run nowhere here) linked by ld64.lld from both copies of the same objects:
/// each copy's symbols defined once, under its own name.
#[test]
fn a_mach_o_file_links_the_prefixed_copy_beside_the_plain_one() {
    let clang = crate::installed("clang-19", "clang-19");
    let ld64 = crate::installed("ld64.lld-19", "lld-19");
    let dir = tempfile::tempdir().unwrap();
    let target = "x86_64-apple-macos11";
    let (lib, user) = (
        compile(&clang, target, dir.path(), "lib", LIB_C),
        compile(&clang, target, dir.path(), "use", USE_C),
    );
    let names = defined([lib.as_slice(), user.as_slice()]).unwrap();
    let p = prefix("_");
    let mut objs = vec![];
    for (name, data) in [("lib", &lib), ("use", &user)] {
        let renamed = prefixed(data, &names, &p).unwrap();
        for (kind, bytes) in [("plain", data.clone()), ("prefixed", renamed)] {
            let path = dir.path().join(format!("{name}-{kind}.o"));
            std::fs::write(&path, bytes).unwrap();
            objs.push(path);
        }
    }
    let out = dir.path().join("libboth.dylib");
    let st = Command::new(ld64)
        .args(["-dylib", "-arch", "x86_64", "-platform_version", "macos", "11.0", "11.0"])
        .args(["-undefined", "dynamic_lookup", "-o"])
        .arg(&out)
        .args(&objs)
        .output()
        .unwrap();
    assert!(st.status.success(), "ld64.lld: {}", String::from_utf8_lossy(&st.stderr));
    let syms = nm(&std::fs::read(&out).unwrap(), dir.path());
    for n in ["lib_twice", "use_it", "lib_calls_out"] {
        for name in [format!("_{n}"), format!("_crypto_sys_9_8_7_{n}")] {
            let defs = syms.iter().filter(|(k, s)| *s == name && k == "T").count();
            assert_eq!(defs, 1, "{name} in {syms:?}");
        }
    }
}

#[test]
fn the_prefix_goes_after_the_decoration_and_is_named_after_the_version() {
    assert_eq!(links_key("crypto-sys", "0.1.0"), "crypto_sys_0_1_0");
    assert_eq!(links_key("crypto-sys", "1.2.3-rc.1"), "crypto_sys_1_2_3_rc_1");
    assert_eq!(prefix("").apply("EVP_sha256"), "crypto_sys_9_8_7_EVP_sha256");
    assert_eq!(prefix("_").apply("_EVP_sha256"), "_crypto_sys_9_8_7_EVP_sha256");
    assert_eq!(prefix("_").apply(".refptr.x"), "crypto_sys_9_8_7_.refptr.x");
    assert!(prefix("_").carried_by("_crypto_sys_9_8_7_EVP_sha256"));
    assert!(!prefix("_").carried_by("_EVP_sha256"));
}

#[test]
fn truncated_or_foreign_bytes_are_errors_not_panics() {
    let clang = crate::installed("clang-19", "clang-19");
    let dir = tempfile::tempdir().unwrap();
    for &(target, _) in TARGETS {
        let lib = compile(&clang, target, dir.path(), "lib", LIB_C);
        for cut in [1, 8, 19, 40, 64, lib.len() / 2, lib.len() - 1] {
            // Either read (the cut spared the tables) or refused; never a panic.
            let _ = symbols(&lib[..cut]);
        }
    }
    assert!(symbols(b"#!/bin/sh\n").is_err());
    assert!(ar::members(b"not an archive").is_err());
}
