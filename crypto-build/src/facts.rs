//! What a build made, as one typed file: written by the build script into OUT_DIR, read back
//! by xtask (and kept in an installed prefix), so that no reader parses the summary's prose.
//!
//! The format, one record per line, fields separated by tabs (shown here as `→`):
//!
//! ```text
//! crypto-sys-facts 4
//! target→x86_64-unknown-linux-gnu
//! …                                   every key of KEYS, once, in any order
//! file→crypto/aes/aesni-x86_64.s→asm
//! downgrade→<path or *>→<from set>→<to set>→<missing features joined by +>
//! end
//! ```
//!
//! An absent optional value (no C variant, none refused, no assembler version) is
//! [`NO_C_VARIANT`], which is also how OpenSSL's default C configuration is spelled elsewhere.

use crate::data::{AsmSyntax, NO_C_VARIANT};
use anyhow::{anyhow, bail, Context, Result};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// The facts file's name, in OUT_DIR.
pub const FACTS_FILE: &str = "crypto-sys-facts.txt";
/// Bumped whenever a key or its meaning changes, so an old reader refuses a new file instead
/// of misreading it.
pub const FACTS_VERSION: u32 = 4;
const MAGIC: &str = "crypto-sys-facts";
/// The last line: a file cut short lacks it, and would otherwise read as a shorter plan.
const END: &str = "end";
/// The keys of the records that repeat: an asm file of the plan, a downgrade.
const FILE: &str = "file";
const DOWNGRADE: &str = "downgrade";
/// A single-valued key: its name is its field's, and its field's type writes and reads it.
struct Key {
    name: &'static str,
    write: fn(&BuildFacts) -> Result<String>,
    read: fn(&mut BuildFacts, &str) -> Result<()>,
}

/// The [`Key`] of each field named, in that order: the name is spelled once, as the field.
macro_rules! keys {
    ($($field:ident),* $(,)?) => {
        &[$(Key {
            name: stringify!($field),
            write: |f| Scalar::write(&f.$field),
            read: |f, v| {
                f.$field = Scalar::read(v)?;
                Ok(())
            },
        }),*]
    };
}

/// The single-valued keys, in the order they are written.
#[rustfmt::skip]
const KEYS: &[Key] = keys![
    target, openssl_version, requested_set, effective_set, requested_c_variant, c_variant,
    c_variant_refused, legacy_provider, apps, fips_module, openssldir, assembler_kind, assembler_version,
    units, compiled, c_compiler,
];

/// How a field's type is spelled in the file.
trait Scalar: Sized {
    fn write(&self) -> Result<String>;
    fn read(v: &str) -> Result<Self>;
}

impl Scalar for String {
    fn write(&self) -> Result<String> {
        Ok(self.clone())
    }
    fn read(v: &str) -> Result<Self> {
        Ok(v.into())
    }
}

/// Absent is [`NO_C_VARIANT`].
impl Scalar for Option<String> {
    fn write(&self) -> Result<String> {
        match self.as_deref() {
            None => Ok(NO_C_VARIANT.into()),
            Some(NO_C_VARIANT) => bail!("`{NO_C_VARIANT}` would read back as absent"),
            Some(v) => Ok(v.into()),
        }
    }
    fn read(v: &str) -> Result<Self> {
        Ok(Some(v.to_string()).filter(|v| v != NO_C_VARIANT))
    }
}

impl Scalar for bool {
    fn write(&self) -> Result<String> {
        Ok(self.to_string())
    }
    fn read(v: &str) -> Result<Self> {
        match v {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => bail!("`{v}` is neither true nor false"),
        }
    }
}

/// A count.
impl Scalar for usize {
    fn write(&self) -> Result<String> {
        Ok(self.to_string())
    }
    fn read(v: &str) -> Result<Self> {
        v.parse().with_context(|| format!("`{v}` is not a count"))
    }
}

/// One asm file of the plan and the set it was taken from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedFile {
    /// Relative to OpenSSL's tree, with the extension of the syntax assembled (`.s`, `.S`,
    /// `.asm`).
    pub path: String,
    pub set: String,
}

/// A file (or, with path `*`, the whole build) that could not use the set it wanted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Downgrade {
    pub path: String,
    pub from: String,
    pub to: String,
    /// The features the assembler lacked (`Feature::name`).
    pub missing: Vec<String>,
}

/// Everything a build decided and made, as its readers need it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildFacts {
    /// The Rust target triple.
    pub target: String,
    pub openssl_version: String,
    /// `auto`, or the set asked for.
    pub requested_set: String,
    /// The set whose C configuration was compiled (`no_asm` after a full fallback).
    pub effective_set: String,
    /// `auto`, `none` or the C variant asked for.
    pub requested_c_variant: String,
    /// The C variant compiled; `None` for OpenSSL's default C configuration.
    pub c_variant: Option<String>,
    /// A variant that was wanted but whose probe the C compiler failed.
    pub c_variant_refused: Option<String>,
    pub legacy_provider: bool,
    /// Whether `bin/openssl` was linked.
    pub apps: bool,
    /// Whether the FIPS provider module was linked (`lib/ossl-modules/`), with its
    /// `ssl/fipsmodule.cnf`.
    pub fips_module: bool,
    /// OPENSSLDIR as compiled in: where OpenSSL looks for `openssl.cnf`, certs and keys.
    pub openssldir: String,
    /// `AsmKind::name`, e.g. `GNU as`.
    pub assembler_kind: String,
    pub assembler_version: Option<String>,
    /// Units in the libraries (and the program, with `apps`).
    pub units: usize,
    /// Units this build compiled; the rest came from the object cache.
    pub compiled: usize,
    /// The C compiler, kind and version (`detect::c_compiler`): `gcc 12.2.0`, `clang-cl
    /// 19.1.7`, `cl.exe 19.40.33811`.
    pub c_compiler: String,
    pub asm_files: Vec<PlannedFile>,
    pub downgrades: Vec<Downgrade>,
}

/// `path` without its asm extension: the plan's paths carry the assembled syntax's, and
/// readers compare files across syntaxes.
pub fn stem(path: &str) -> &str {
    match (AsmSyntax::of_path(path), path.rsplit_once('.')) {
        (Some(_), Some((stem, _))) => stem,
        _ => path,
    }
}

impl BuildFacts {
    /// The build summary: `set asm (requested auto), C ec_nistp_64_gcc_128 by gcc 12.2.0, GNU
    /// as 2.40, 1117 units (25 asm, 1117 compiled), 0 downgraded`.
    pub fn summary(&self) -> String {
        format!(
            "set {} (requested {}), C {}{}{} by {}, {}, {} units ({} asm, {} compiled), {} \
             downgraded",
            self.effective_set,
            self.requested_set,
            self.c_variant_name(),
            self.refused_by_target(),
            if self.legacy_provider { "" } else { " without the legacy provider" },
            self.c_compiler,
            crate::detect::describe(&self.assembler_kind, self.assembler_version.as_deref()),
            self.units,
            self.asm_files.len(),
            self.compiled,
            self.downgraded()
        )
    }

    /// The C variants the target, or cl.exe, never takes, for the summary: `
    /// (ec_nistp_64_gcc_128 not built for this target)`, or nothing.
    fn refused_by_target(&self) -> String {
        let target = crate::data::target_for(&self.target).ok();
        let mut refused: Vec<&str> = target
            .map(|t| t.refused_variants.iter().map(|(v, _)| *v).collect())
            .unwrap_or_default();
        let mut by = "for this target";
        if self.c_compiler.starts_with(crate::detect::CL_EXE) && refused.is_empty() {
            refused = crate::data::CL_EXE_REFUSES.iter().map(|(v, _)| *v).collect();
            by = "by cl.exe";
        }
        if self.c_variant.is_some() || refused.is_empty() {
            return String::new();
        }
        format!(" ({} not built {by})", refused.join(", "))
    }

    /// The C variant compiled, or [`NO_C_VARIANT`].
    pub fn c_variant_name(&self) -> &str {
        self.c_variant.as_deref().unwrap_or(NO_C_VARIANT)
    }

    /// Whether OpenSSL's default C configuration was compiled (no C variant).
    pub fn is_default_c(&self) -> bool {
        self.c_variant.is_none()
    }

    /// Downgrades reported: each asm one, and a refused C variant.
    pub fn downgraded(&self) -> usize {
        self.downgrades.len() + usize::from(self.c_variant_refused.is_some())
    }

    /// The set an asm file was taken from, by its path with or without extension.
    pub fn set_of(&self, path: &str) -> Option<&str> {
        let want = stem(path);
        self.asm_files.iter().find(|f| stem(&f.path) == want).map(|f| f.set.as_str())
    }

    /// The asm files taken from `set`, as planned (with extensions), in plan order.
    pub fn files_from(&self, set: &str) -> Vec<&str> {
        self.asm_files.iter().filter(|f| f.set == set).map(|f| f.path.as_str()).collect()
    }

    /// Writes [`FACTS_FILE`] in `dir`, whole or not at all.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let path = dir.join(FACTS_FILE);
        let text = self.to_text().with_context(|| format!("writing {}", path.display()))?;
        let tmp = dir.join(format!("{FACTS_FILE}.tmp-{}", std::process::id()));
        fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
        fs::rename(&tmp, &path).with_context(|| format!("writing {}", path.display()))
    }

    /// Reads [`FACTS_FILE`] from `dir`.
    pub fn read(dir: &Path) -> Result<BuildFacts> {
        let path = dir.join(FACTS_FILE);
        let text =
            fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        parse(&text, &path)
    }

    fn to_text(&self) -> Result<String> {
        let mut rows = Vec::new();
        for key in KEYS {
            let value = (key.write)(self).map_err(|e| anyhow!("{} {e:#}", key.name))?;
            rows.push(vec![key.name.to_string(), value]);
        }
        for f in &self.asm_files {
            rows.push(vec![FILE.into(), f.path.clone(), f.set.clone()]);
        }
        for d in &self.downgrades {
            if let Some(m) = d.missing.iter().find(|m| m.is_empty() || m.contains('+')) {
                bail!("{}: missing feature {m:?} cannot be joined with `+`", d.path);
            }
            let (path, from, to) = (d.path.clone(), d.from.clone(), d.to.clone());
            rows.push(vec![DOWNGRADE.into(), path, from, to, d.missing.join("+")]);
        }
        let mut out = format!("{MAGIC} {FACTS_VERSION}\n");
        for row in rows {
            // A stray tab or break would shift the fields it is read back by.
            if let Some(v) = row.iter().find(|v| v.contains(['\t', '\n', '\r'])) {
                bail!("`{}` value {v:?} holds a tab or a line break", row[0]);
            }
            out += &row.join("\t");
            out.push('\n');
        }
        Ok(out + END + "\n")
    }
}

fn parse(text: &str, origin: &Path) -> Result<BuildFacts> {
    let at = |n: usize| format!("{}:{n}", origin.display());
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let header = lines.next().map_or("", |(_, l)| l);
    match header.strip_prefix(MAGIC).and_then(|v| v.strip_prefix(' ')) {
        Some(v) if v == FACTS_VERSION.to_string() => {}
        Some(v) => bail!(
            "{}: facts format version {v}, but this crypto-build reads version {FACTS_VERSION}; \
             rebuild crypto-sys with the crypto-build that reads it",
            at(1)
        ),
        None => bail!("{}: not a crypto-sys facts file (first line {header:?})", at(1)),
    }
    let mut scalars: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    let mut facts = BuildFacts::default();
    let is_key = |k: &str| KEYS.iter().any(|key| key.name == k);
    let mut ended = false;
    let mut last = 1;
    for (n, line) in lines {
        last = n;
        if ended {
            bail!("{}: a line after `{END}`", at(n));
        }
        match line.split('\t').collect::<Vec<_>>()[..] {
            [END] => ended = true,
            [FILE, path, set] => {
                facts.asm_files.push(PlannedFile { path: path.into(), set: set.into() })
            }
            [DOWNGRADE, path, from, to, missing] => facts.downgrades.push(Downgrade {
                path: path.into(),
                from: from.into(),
                to: to.into(),
                missing: missing.split('+').filter(|m| !m.is_empty()).map(Into::into).collect(),
            }),
            [key, value] if is_key(key) => {
                if let Some((first, _)) = scalars.insert(key, (n, value)) {
                    bail!("{}: `{key}` again (first on line {first})", at(n));
                }
            }
            [key, ..] if is_key(key) || [FILE, DOWNGRADE, END].contains(&key) => {
                bail!("{}: malformed `{key}` line {line:?}", at(n))
            }
            [key, ..] => bail!("{}: unknown key `{key}`", at(n)),
            [] => unreachable!("split yields at least one field"),
        }
    }
    if !ended {
        bail!("{}: cut short after line {last} (no `{END}` line)", origin.display());
    }
    for key in KEYS {
        let Some(&(n, value)) = scalars.get(key.name) else {
            bail!("{}: no `{}` line", origin.display(), key.name);
        };
        (key.read)(&mut facts, value).map_err(|e| anyhow!("{}: {} {e:#}", at(n), key.name))?;
    }
    Ok(facts)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::data::{triples, AsmSet, DEFAULT_LINE, NISTP};

    /// The facts of a gcc `auto` build of x86_64 Linux on the default line with one
    /// downgrade, for the tests of their readers (here and in the fuzz targets).
    pub(crate) fn sample() -> BuildFacts {
        let (asm, avx2) = (AsmSet::avx512().name, AsmSet::avx2().name);
        let file = |path: &str, set: &str| PlannedFile { path: path.into(), set: set.into() };
        BuildFacts {
            target: triples::X86_64_LINUX.into(),
            openssl_version: DEFAULT_LINE.version.into(),
            requested_set: "auto".into(),
            effective_set: asm.into(),
            requested_c_variant: "auto".into(),
            c_variant: Some(NISTP.into()),
            c_variant_refused: None,
            legacy_provider: true,
            apps: true,
            fips_module: true,
            openssldir: "/usr/local/ssl".into(),
            assembler_kind: "GNU as".into(),
            assembler_version: Some("2.40".into()),
            units: 1117,
            compiled: 40,
            c_compiler: "gcc 12.2.0".into(),
            asm_files: vec![
                file("crypto/aes/aesni-x86_64.s", asm),
                file("crypto/modes/aes-gcm-avx512.s", avx2),
                file("crypto/x86_64cpuid.s", asm),
            ],
            downgrades: vec![Downgrade {
                path: "crypto/modes/aes-gcm-avx512.s".into(),
                from: asm.into(),
                to: avx2.into(),
                missing: vec!["vaes-zmm".into(), "vpclmulqdq-zmm".into()],
            }],
        }
    }

    /// A no_asm build of OpenSSL's default C, without the legacy provider, by an assembler
    /// that printed no version, whose C variant was refused.
    fn plain() -> BuildFacts {
        BuildFacts {
            requested_set: "no_asm".into(),
            effective_set: "no_asm".into(),
            c_variant: None,
            c_variant_refused: Some("ec_nistp_64_gcc_128".into()),
            legacy_provider: false,
            apps: false,
            fips_module: false,
            openssldir: "/opt/my prefix/ssl".into(),
            assembler_kind: "clang integrated assembler".into(),
            assembler_version: None,
            units: 1050,
            compiled: 1050,
            c_compiler: "clang 19.1.7".into(),
            asm_files: vec![],
            downgrades: vec![],
            ..sample()
        }
    }

    fn parse_err(text: &str) -> String {
        format!("{:#}", parse(text, Path::new("out/facts.txt")).unwrap_err())
    }

    #[test]
    fn write_then_read_gives_the_same_facts() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        for facts in [sample(), plain()] {
            facts.write(dir).unwrap();
            assert_eq!(BuildFacts::read(dir).unwrap(), facts);
        }
        let text = fs::read_to_string(dir.join(FACTS_FILE)).unwrap();
        assert!(text.starts_with("crypto-sys-facts 4\ntarget\tx86_64-unknown-linux-gnu\n"));
        assert!(text.contains("\nc_variant\tnone\nc_variant_refused\tec_nistp_64_gcc_128\n"));
        assert!(text.contains("\nassembler_version\tnone\n"), "{text}");
        assert!(text.ends_with("\ncompiled\t1050\nc_compiler\tclang 19.1.7\nend\n"), "{text}");
        let written = sample().to_text().unwrap();
        assert!(written.contains(
            "\nfile\tcrypto/modes/aes-gcm-avx512.s\tasm_avx2\n\
             file\tcrypto/x86_64cpuid.s\tasm\n\
             downgrade\tcrypto/modes/aes-gcm-avx512.s\tasm\tasm_avx2\tvaes-zmm+vpclmulqdq-zmm\n\
             end\n"
        ));
        assert_eq!(fs::read_dir(dir).unwrap().count(), 1, "no temporary file is left");
    }

    #[test]
    fn summary_names_set_variant_provider_assembler_and_counts() {
        assert_eq!(
            sample().summary(),
            "set asm (requested auto), C ec_nistp_64_gcc_128 by gcc 12.2.0, GNU as 2.40, 1117 \
             units (3 asm, 40 compiled), 1 downgraded"
        );
        assert_eq!(
            plain().summary(),
            "set no_asm (requested no_asm), C none without the legacy provider by clang 19.1.7, \
             clang integrated assembler (version unknown), 1050 units (0 asm, 1050 compiled), \
             1 downgraded"
        );
    }

    /// The C compiler is named, clang-cl apart from cl.exe, which never takes the nistp
    /// variant on the row that clang-cl takes it on.
    #[test]
    fn summary_tells_clang_cl_from_cl_exe() {
        let msvc = |c_compiler: &str, c_variant: Option<&str>| BuildFacts {
            target: "x86_64-pc-windows-msvc".into(),
            c_compiler: c_compiler.into(),
            c_variant: c_variant.map(Into::into),
            ..sample()
        };
        let clang_cl = msvc("clang-cl 19.1.7", Some("ec_nistp_64_gcc_128")).summary();
        assert!(clang_cl.contains("C ec_nistp_64_gcc_128 by clang-cl 19.1.7, "), "{clang_cl}");
        let cl = msvc("cl.exe 19.40.33811", None).summary();
        assert!(
            cl.contains("C none (ec_nistp_64_gcc_128 not built by cl.exe) by cl.exe 19.40.33811"),
            "{cl}"
        );
    }

    #[test]
    fn helpers_answer_by_stem_set_and_default_c() {
        let f = sample();
        assert_eq!(f.set_of("crypto/modes/aes-gcm-avx512"), Some("asm_avx2"));
        // Another syntax's rendering of the same file.
        assert_eq!(f.set_of("crypto/aes/aesni-x86_64.asm"), Some("asm"));
        assert_eq!(f.set_of("crypto/aes/aesni"), None);
        assert_eq!(f.files_from("asm_avx2"), ["crypto/modes/aes-gcm-avx512.s"]);
        assert_eq!(f.files_from("asm"), ["crypto/aes/aesni-x86_64.s", "crypto/x86_64cpuid.s"]);
        assert_eq!((f.is_default_c(), f.c_variant_name()), (false, "ec_nistp_64_gcc_128"));
        assert_eq!((plain().is_default_c(), plain().c_variant_name()), (true, "none"));
        assert_eq!(stem("crypto/aesv8-armx.S"), "crypto/aesv8-armx");
        assert_eq!(stem("crypto/bn/rsaz-2k-avx512"), "crypto/bn/rsaz-2k-avx512");
    }

    #[test]
    fn read_rejects_a_truncated_file() {
        let text = sample().to_text().unwrap();
        // Header, 16 keys and the first file: the plan would read as one file long.
        let cut: String = text.lines().take(18).map(|l| format!("{l}\n")).collect();
        let e = parse_err(&cut);
        assert_eq!(e, "out/facts.txt: cut short after line 18 (no `end` line)");
        let e = parse_err(&text[..text.len() - 2]);
        assert_eq!(e, "out/facts.txt:22: unknown key `en`");
        assert_eq!(parse_err(""), "out/facts.txt:1: not a crypto-sys facts file (first line \"\")");
    }

    #[test]
    fn read_rejects_unknown_missing_repeated_and_malformed_keys() {
        let text = sample().to_text().unwrap();
        let e = parse_err(&text.replace("apps\ttrue\n", "apps\ttrue\ncolour\tblue\n"));
        assert_eq!(e, "out/facts.txt:11: unknown key `colour`");
        assert_eq!(parse_err(&text.replace("units\t1117\n", "")), "out/facts.txt: no `units` line");
        let e = parse_err(&text.replace("units\t1117\n", "units\t1117\nunits\t3\n"));
        assert_eq!(e, "out/facts.txt:16: `units` again (first on line 15)");
        let e = parse_err(&text.replace("units\t1117\n", "units\tmany\n"));
        assert!(e.starts_with("out/facts.txt:15: units `many` is not a count"), "{e}");
        let e = parse_err(&text.replace("apps\ttrue\n", "apps\tyes\n"));
        assert_eq!(e, "out/facts.txt:10: apps `yes` is neither true nor false");
        let e = parse_err(&text.replace("\tasm_avx2\n", "\n"));
        assert_eq!(
            e,
            "out/facts.txt:19: malformed `file` line \"file\\tcrypto/modes/aes-gcm-avx512.s\""
        );
    }

    #[test]
    fn read_rejects_another_format_version() {
        let text =
            sample().to_text().unwrap().replace("crypto-sys-facts 4\n", "crypto-sys-facts 5\n");
        let e = parse_err(&text);
        assert!(
            e.starts_with(
                "out/facts.txt:1: facts format version 5, but this crypto-build reads version 4"
            ),
            "{e}"
        );
        let e = parse_err("set asm (requested auto), C none, GNU as 2.40\n");
        assert!(e.starts_with("out/facts.txt:1: not a crypto-sys facts file"), "{e}");
    }

    #[test]
    fn write_refuses_values_that_would_not_read_back() {
        let tab = BuildFacts { target: "x86_64\tlinux".into(), ..sample() };
        let e = tab.to_text().unwrap_err().to_string();
        assert_eq!(e, "`target` value \"x86_64\\tlinux\" holds a tab or a line break");
        let none = BuildFacts { assembler_version: Some("none".into()), ..sample() };
        let e = none.to_text().unwrap_err().to_string();
        assert_eq!(e, "assembler_version `none` would read back as absent");
    }
}
