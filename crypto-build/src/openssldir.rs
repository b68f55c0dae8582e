//! OPENSSLDIR, where OpenSSL looks at run time for `openssl.cnf`, certificates and keys: the
//! one the sets were configured with (Configure's `--openssldir`, fixed so that generation is
//! reproducible), or another one a build asks for.
//!
//! Configure puts `-DOPENSSLDIR="…"` on every unit, but only a handful of units can see its
//! value. Another OPENSSLDIR goes to those alone, found from the source text: every other
//! object keeps its cache key and its bytes, so the build recompiles four units rather than
//! all of OpenSSL (about 100 s here), and a build at the default stays byte-identical.

use crate::manifest::Manifest;
use anyhow::{bail, Context, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// What `make install_ssldirs` puts in OPENSSLDIR besides `certs/` and `private/`: OpenSSL's
/// `apps/openssl.cnf` and `apps/ct_log_list.cnf`, which the openssl-src crate leaves out
/// (it ships no `*.cnf`), so crypto-sys's own, written from OpenSSL's documented options.
pub const FILES: [(&str, &str); 2] = [
    ("openssl.cnf", include_str!("../ssl/openssl.cnf")),
    ("ct_log_list.cnf", include_str!("../ssl/ct_log_list.cnf")),
];

/// The macro Configure defines on every unit; `include/internal/common.h` builds
/// `X509_CERT_DIR`, `CTLOG_FILE`, … from it.
const MACRO: &str = "OPENSSLDIR";

/// The OPENSSLDIR the manifest's units are configured with.
pub fn configured(m: &Manifest) -> Result<String> {
    let flag = configured_flag(m)?;
    let quoted = &flag[MACRO.len() + 3..];
    match quoted.strip_prefix('"').and_then(|q| q.strip_suffix('"')) {
        Some(dir) if !dir.contains(['\\', '"']) => Ok(dir.to_string()),
        _ => bail!("{}: cannot read OPENSSLDIR from `{flag}`", m.key()),
    }
}

fn configured_flag(m: &Manifest) -> Result<&str> {
    let head = format!("-D{MACRO}=");
    let found: Vec<&str> =
        m.cflags.iter().filter(|f| f.starts_with(&head)).map(String::as_str).collect();
    match found[..] {
        [flag] => Ok(flag),
        _ => bail!("{}: expected one `{head}` flag among the manifest's cflags", m.key()),
    }
}

/// An OPENSSLDIR a build may be given: absolute (the library resolves it from whatever
/// directory a program runs in) and printable ASCII (it becomes a C string, and a line of
/// the build's facts).
pub fn check(dir: &str) -> Result<()> {
    if let Some(c) = dir.chars().find(|c| !(' '..='~').contains(c)) {
        bail!("OPENSSLDIR {dir:?} holds {c:?}; only printable ASCII is accepted");
    }
    if !is_absolute(dir) {
        bail!(
            "OPENSSLDIR `{dir}` is not an absolute path (`cargo xtask build --prefix P \
             --openssldir {dir}` puts a relative one under the prefix)"
        );
    }
    Ok(())
}

/// Whether `dir` is absolute on the target, whatever the host: `/…`, `C:/…`, `C:\…` or `\\…`.
pub fn is_absolute(dir: &str) -> bool {
    let b = dir.as_bytes();
    let drive =
        b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b"/\\".contains(&b[2]);
    dir.starts_with('/') || dir.starts_with("\\\\") || drive
}

/// The manifest's library flags with OPENSSLDIR set to `dir`.
pub fn cflags(m: &Manifest, dir: &str) -> Result<Vec<String>> {
    let configured = configured_flag(m)?;
    let escaped = dir.replace('\\', "\\\\").replace('"', "\\\"");
    let own = format!("-D{MACRO}=\"{escaped}\"");
    Ok(m.cflags.iter().map(|f| if f == configured { own.clone() } else { f.clone() }).collect())
}

/// The units of `m` whose object depends on OPENSSLDIR's value, read from openssl-src's tree
/// at `src_root` overlaid with the configuration's generated files under `gen_root`.
pub fn units_that_see(src_root: &Path, gen_root: &Path, m: &Manifest) -> Result<BTreeSet<String>> {
    let mut files = BTreeMap::new();
    collect(src_root, src_root, &mut files)?;
    for f in m.files.iter().filter(|f| is_c_text(&f.path)) {
        files.insert(f.path.clone(), gen_root.join(&f.path));
    }
    let mut texts = BTreeMap::new();
    for (rel, path) in files {
        let data = fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        texts.insert(rel, String::from_utf8_lossy(&data).into_owned());
    }
    let units = m.units.iter().map(|u| u.path.as_str());
    seers(&texts, units)
}

fn is_c_text(path: &str) -> bool {
    [".c", ".h", ".inc", ".def"].iter().any(|e| path.ends_with(e))
}

fn collect(root: &Path, dir: &Path, out: &mut BTreeMap<String, std::path::PathBuf>) -> Result<()> {
    for e in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = e?.path();
        if path.is_dir() {
            collect(root, &path, out)?;
        } else if let Some(rel) = path.strip_prefix(root)?.to_str() {
            if is_c_text(rel) {
                out.insert(rel.replace('\\', "/"), path);
            }
        }
    }
    Ok(())
}

/// The units among `units` whose own text uses OPENSSLDIR or a macro defined from it (the
/// closure over every `#define` of every file): a use outside a `#define`, not in a comment,
/// a string or a preprocessor test (whether it is defined never changes, only its value).
///
/// Only a unit's own text is read, not what it includes: so a use in a file that is included
/// (a header, an `.inc`, a `.c` that another file includes) fails here, naming it, rather
/// than leaving its includers with the configured OPENSSLDIR.
fn seers<'u>(
    texts: &BTreeMap<String, String>,
    units: impl Iterator<Item = &'u str>,
) -> Result<BTreeSet<String>> {
    // Only a file that spells a name can use or define from it: the others are not lexed.
    let mut lexed: BTreeMap<&str, Lexed> = BTreeMap::new();
    let mut derived = BTreeSet::from([MACRO.to_string()]);
    loop {
        for (rel, text) in texts {
            if !lexed.contains_key(rel.as_str()) && derived.iter().any(|d| text.contains(d)) {
                lexed.insert(rel, lex(text));
            }
        }
        let before = derived.len();
        for (name, body) in lexed.values().flat_map(|l| &l.defines) {
            if body.iter().any(|w| derived.contains(w)) {
                derived.insert(name.clone());
            }
        }
        if derived.len() == before {
            break;
        }
    }
    let mut users = BTreeSet::new();
    for (rel, l) in &lexed {
        let Some(name) = l.code.iter().find(|w| derived.contains(*w)) else { continue };
        if !rel.ends_with(".c") || is_included(texts, rel) {
            bail!(
                "{rel} uses {name}, which carries OPENSSLDIR, and is a file that others \
                 include: crypto-build gives another OPENSSLDIR only to the units whose own \
                 text uses it (openssldir.rs), so it would miss the units that include {rel}"
            );
        }
        users.insert(*rel);
    }
    Ok(units.filter(|u| users.contains(u)).map(String::from).collect())
}

/// Whether any file `#include`s a file of `rel`'s name.
fn is_included(texts: &BTreeMap<String, String>, rel: &str) -> bool {
    let name = base(rel);
    let includers = texts.values().filter(|t| t.contains(name));
    includers.map(|t| lex(t)).any(|l| l.includes.iter().any(|i| base(i) == name))
}

fn base(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// What one file holds, as far as macros go.
#[derive(Debug, Default, PartialEq)]
struct Lexed {
    /// Identifiers outside preprocessor lines.
    code: BTreeSet<String>,
    /// Each `#define`'s name and the identifiers of its parameters and body.
    defines: Vec<(String, Vec<String>)>,
    /// What each `#include` names.
    includes: Vec<String>,
}

/// Reads `text` as the C preprocessor would for this purpose: continued lines joined,
/// comments and literals blanked, then line by line.
fn lex(text: &str) -> Lexed {
    let joined = text.replace("\\\r\n", "").replace("\\\n", "");
    let mut out = Lexed::default();
    for line in joined.lines() {
        if let Some(rest) = directive(line).and_then(|d| d.strip_prefix("include")) {
            // `"name"` or `<name>`: what lies between the delimiters.
            let inner = rest.trim_start().get(1..).unwrap_or("");
            out.includes.push(inner[..inner.find(['"', '>']).unwrap_or(inner.len())].to_string());
        }
    }
    for line in blank_comments_and_literals(&joined).lines() {
        let words = identifiers(line);
        match directive(line) {
            Some(d) if d.starts_with("define") => {
                if let [_, name, rest @ ..] = &words[..] {
                    out.defines.push((name.clone(), rest.to_vec()));
                }
            }
            Some(_) => {}
            None => out.code.extend(words),
        }
    }
    out
}

/// A preprocessor line's text after `#`, trimmed.
fn directive(line: &str) -> Option<&str> {
    line.trim_start().strip_prefix('#').map(str::trim_start)
}

/// Comments become a space, string and character literals `""`, as far as each line goes
/// (an unterminated one, such as an apostrophe in `#error`, ends with its line).
fn blank_comments_and_literals(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        match (b[i], b.get(i + 1)) {
            (b'/', Some(b'*')) => {
                let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                // Line breaks stay, so that lines keep their numbers and directives end.
                out.extend(text[i..end].chars().filter(|&c| c == '\n'));
                out.push(' ');
                i = end;
            }
            (b'/', Some(b'/')) => i += text[i..].find('\n').unwrap_or(b.len() - i),
            (q @ (b'"' | b'\''), _) => {
                let mut j = i + 1;
                while j < b.len() && b[j] != q && b[j] != b'\n' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                out.push_str("\"\"");
                i = (j + 1).min(b.len());
                if b.get(j) == Some(&b'\n') {
                    i = j;
                }
            }
            _ => {
                let len = text[i..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&text[i..i + len]);
                i += len;
            }
        }
    }
    out
}

/// The identifiers of a line, skipping numbers (`0x1F` names nothing).
fn identifiers(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
        if c.is_ascii_alphabetic() || c == '_' || c.is_ascii_digit() {
            let mut end = start + 1;
            while let Some(&(i, c)) = chars.peek() {
                if !(word(c) || c == '.' && line.as_bytes()[start].is_ascii_digit()) {
                    break;
                }
                end = i + 1;
                chars.next();
            }
            if !c.is_ascii_digit() {
                out.push(line[start..end].to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::{Lib, Unit};

    fn tree(files: &[(&str, &str)]) -> BTreeMap<String, String> {
        files.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect()
    }

    const COMMON_H: &str = "#ifndef OPENSSL_SYS_VMS\n\
        # define X509_CERT_DIR OPENSSLDIR \"/certs\"\n\
        # define CTLOG_FILE \\\n    OPENSSLDIR \"/ct_log_list.cnf\"\n\
        #endif\n#define X509_CERT_DIR_EVP \"SSL_CERT_DIR\"\n";

    #[test]
    fn a_unit_sees_it_through_a_macro_defined_from_it_and_through_a_chain() {
        let files = tree(&[
            ("include/internal/common.h", COMMON_H),
            ("include/internal/more.h", "#define MY_CERTS(x) X509_CERT_DIR x\n"),
            ("crypto/defaults.c", "const char *d(void) { return OPENSSLDIR; }\n"),
            ("crypto/ct/ct_log.c", "#include \"internal/common.h\"\nf(CTLOG_FILE);\n"),
            ("crypto/chain.c", "g(MY_CERTS(\"/a\"));\n"),
            ("crypto/env.c", "h(X509_CERT_DIR_EVP); /* X509_CERT_DIR */ s(\"OPENSSLDIR\");\n"),
            ("apps/s_client.c", "enum { OPT_CTLOG_FILE };\n"),
            (
                "crypto/cversion.c",
                "#ifdef OPENSSLDIR\nreturn \"OPENSSLDIR: \" OPENSSLDIR;\n#endif\n",
            ),
            ("crypto/absent.c", "return OPENSSLDIR;\n"),
        ]);
        let units = [
            "crypto/defaults.c",
            "crypto/ct/ct_log.c",
            "crypto/chain.c",
            "crypto/env.c",
            "apps/s_client.c",
            "crypto/cversion.c",
            "crypto/aes/aes-x86_64.s",
        ];
        let got = seers(&files, units.into_iter()).unwrap();
        let want =
            ["crypto/chain.c", "crypto/ct/ct_log.c", "crypto/cversion.c", "crypto/defaults.c"];
        assert_eq!(got.iter().map(String::as_str).collect::<Vec<_>>(), want);
    }

    #[test]
    fn a_use_in_an_included_file_fails_naming_it() {
        let header = tree(&[
            ("include/internal/common.h", COMMON_H),
            ("crypto/x509/x509_local.h", "static const char *dir = X509_CERT_DIR;\n"),
        ]);
        let e = seers(&header, std::iter::empty()).unwrap_err().to_string();
        assert!(e.starts_with("crypto/x509/x509_local.h uses X509_CERT_DIR,"), "{e}");
        let included = tree(&[
            ("crypto/des/ncbc_enc.c", "f(OPENSSLDIR);\n"),
            ("crypto/des/cbc_enc.c", "#  include \"ncbc_enc.c\"\n"),
        ]);
        let e = seers(&included, std::iter::empty()).unwrap_err().to_string();
        assert!(e.starts_with("crypto/des/ncbc_enc.c uses OPENSSLDIR,"), "{e}");
        let inc = tree(&[("providers/x.inc", "f(OPENSSLDIR);\n")]);
        assert!(seers(&inc, std::iter::empty()).is_err());
    }

    #[test]
    fn the_lexer_blanks_comments_and_literals_and_skips_numbers() {
        let l = lex("/* OPENSSLDIR\n */ a = 'x' + 0x1F + L\"OPENSSLDIR\"; // OPENSSLDIR\n\
                     #error don't OPENSSLDIR\nb = 1.5e3f; #define IN_CODE OPENSSLDIR\n");
        let code: Vec<&str> = l.code.iter().map(String::as_str).collect();
        assert_eq!(code, ["IN_CODE", "L", "OPENSSLDIR", "a", "b", "define"]);
        assert!(l.defines.is_empty());
    }

    /// openssl-src's own tree: the four units of libcrypto that read OPENSSLDIR, and no
    /// header that uses it.
    #[test]
    fn openssl_src_has_four_units_that_see_it() {
        let src = crate::line_source_dir(crate::data::DEFAULT_LINE).unwrap();
        let mut files = BTreeMap::new();
        collect(&src, &src, &mut files).unwrap();
        let units: Vec<String> = files.keys().filter(|r| r.ends_with(".c")).cloned().collect();
        let m = Manifest {
            units: units
                .iter()
                .map(|p| Unit { lib: Lib::Crypto, group: 0, path: p.clone() })
                .collect(),
            ..Manifest::default()
        };
        let got = units_that_see(&src, Path::new("/nonexistent"), &m).unwrap();
        let want = [
            "crypto/ct/ct_log.c",
            "crypto/cversion.c",
            "crypto/defaults.c",
            "crypto/x509/x509_def.c",
        ];
        assert_eq!(got.iter().map(String::as_str).collect::<Vec<_>>(), want);
    }

    #[test]
    fn only_absolute_printable_paths_are_accepted_and_the_flag_is_replaced_quoted() {
        for ok in ["/etc/ssl", "C:/OpenSSL/ssl", "c:\\ssl", "\\\\server\\ssl", "/a \"b\""] {
            check(ok).unwrap();
        }
        let e = check("ssl").unwrap_err().to_string();
        assert!(e.contains("`ssl` is not an absolute path") && e.contains("--openssldir ssl"));
        assert!(check("/etc/ssl\n").unwrap_err().to_string().contains("printable ASCII"));
        assert!(check("/étc").is_err() && check("").is_err() && check("C:ssl").is_err());
        let m = Manifest {
            target: "linux-x86_64".into(),
            set: "asm".into(),
            cflags: vec!["-O3".into(), "-DOPENSSLDIR=\"/usr/local/ssl\"".into()],
            ..Manifest::default()
        };
        assert_eq!(configured(&m).unwrap(), "/usr/local/ssl");
        assert_eq!(
            cflags(&m, "C:\\a \"b\"").unwrap(),
            ["-O3", "-DOPENSSLDIR=\"C:\\\\a \\\"b\\\"\""]
        );
        assert_eq!(cflags(&m, "/usr/local/ssl").unwrap(), m.cflags);
        let none = Manifest { cflags: vec!["-O3".into()], ..m };
        assert!(configured(&none)
            .unwrap_err()
            .to_string()
            .contains("expected one `-DOPENSSLDIR=`"));
    }
}
