//! The manifest of one generated set: what to compile, with which flags, and the hash of every
//! generated file. A plain tab-separated text, so diffs and errors stay readable.

use crate::data::Feature;
use crate::sha256;
use anyhow::{bail, Context, Result};
use std::fs;
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "manifest.tsv";
/// Generated files live under this directory of a set's target directory.
pub const GEN_DIR: &str = "gen";
const MAGIC: &str = "crypto-build-manifest\t1";

/// Where a compile unit goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Lib {
    Crypto,
    Ssl,
    /// The built-in legacy provider's units: into libcrypto when it is on (`data::LEGACY`).
    Legacy,
    /// The `openssl` program (`apps/`), linked only when asked for.
    Apps,
    /// The FIPS provider module's own (`data::FIPS`), linked only when asked for.
    Fips,
    /// The static libraries the module links (`libfips.a`, `libcommon.a`): what its own
    /// units call is taken from them, as from an archive.
    FipsLib,
}

/// What a library's objects become.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Product {
    /// A static library, `lib<name>.a` (`Target::archive_file`).
    Archive(&'static str),
    /// The `openssl` program.
    Program,
    /// The FIPS provider module, a shared object of its own: its own objects, and the
    /// archive of those it takes what it needs from.
    Module,
    ModuleArchive,
}

impl Lib {
    pub fn name(self) -> &'static str {
        match self {
            Lib::Crypto => "crypto",
            Lib::Ssl => "ssl",
            Lib::Legacy => "legacy",
            Lib::Apps => "apps",
            Lib::Fips => "fips",
            Lib::FipsLib => "fipslib",
        }
    }

    pub fn product(self) -> Product {
        match self {
            Lib::Crypto | Lib::Legacy => Product::Archive("crypto"),
            Lib::Ssl => Product::Archive("ssl"),
            Lib::Apps => Product::Program,
            Lib::Fips => Product::Module,
            Lib::FipsLib => Product::ModuleArchive,
        }
    }

    /// Whether its units are the FIPS module's.
    pub fn is_fips(self) -> bool {
        matches!(self, Lib::Fips | Lib::FipsLib)
    }

    pub fn parse(s: &str) -> Result<Lib> {
        [Lib::Crypto, Lib::Ssl, Lib::Legacy, Lib::Apps, Lib::Fips, Lib::FipsLib]
            .into_iter()
            .find(|l| l.name() == s)
            .with_context(|| format!("unknown library `{s}`"))
    }
}

/// One source file to compile or assemble, relative to OpenSSL's tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    pub lib: Lib,
    /// Index into [`Manifest::groups`]: the unit's own include and define words.
    pub group: usize,
    pub path: String,
}

/// What an asm file needs from its assembler, and the symbols it exports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsmFile {
    pub path: String,
    pub features: Vec<Feature>,
    pub globals: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHash {
    pub path: String,
    pub sha256: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    pub openssl: String,
    pub target: String,
    pub set: String,
    /// The C variant (`data::C_VARIANTS`), `None` for OpenSSL's default configuration, whose
    /// manifest has no `variant` line (the text generate.lock hashes). A variant's directory
    /// holds only C outputs: its asm comes from the set's own directory.
    pub variant: Option<String>,
    /// OpenSSL's own library flags (LIB_CFLAGS and LIB_CPPFLAGS), for every unit.
    pub cflags: Vec<String>,
    /// System libraries to link, without `-l`.
    pub ex_libs: Vec<String>,
    /// The FIPS module's link flags (the Makefile's DSO_LDFLAGS) and system libraries
    /// (DSO_EX_LIBS, without `-l`).
    pub module_ldflags: Vec<String>,
    pub module_ex_libs: Vec<String>,
    /// The module's file name on the target (`fips.so`, `fips.dll`), and the linker flag that
    /// takes its export list (`-Wl,--version-script=`; none where the list is a link input,
    /// a `.def`).
    pub module_file: Option<String>,
    pub module_defflag: Option<String>,
    /// Per-unit `-I` and `-D` words, in Makefile order; include dirs are tree-relative.
    pub groups: Vec<Vec<String>>,
    pub units: Vec<Unit>,
    pub asm: Vec<AsmFile>,
    /// Every generated file, relative to the `gen/` directory.
    pub files: Vec<FileHash>,
}

impl Manifest {
    pub fn load(set_dir: &Path) -> Result<Manifest> {
        let path = set_dir.join(FILE_NAME);
        let text = fs::read_to_string(&path)
            .with_context(|| format!("reading manifest {}", path.display()))?;
        Manifest::parse(&text).with_context(|| format!("parsing manifest {}", path.display()))
    }

    pub fn parse(text: &str) -> Result<Manifest> {
        let mut lines = text.lines();
        if lines.next() != Some(MAGIC) {
            bail!("not a crypto-build manifest (first line must be `{MAGIC}`)");
        }
        let mut m = Manifest::default();
        for (n, line) in lines.enumerate() {
            m.parse_line(line).with_context(|| format!("line {}: {line:?}", n + 2))?;
        }
        // The compile indexes the groups by it.
        if let Some(u) = m.units.iter().find(|u| u.group >= m.groups.len()) {
            bail!(
                "unit {:?} is in group {}, but there are {} groups",
                u.path,
                u.group,
                m.groups.len()
            );
        }
        Ok(m)
    }

    fn parse_line(&mut self, line: &str) -> Result<()> {
        // A stray `\r` would not survive `to_text` and a read back.
        if line.contains(|c: char| c.is_control() && c != '\t') {
            bail!("a control character in a manifest line");
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let words = |from: usize| {
            fields[from..].iter().filter(|s| !s.is_empty()).map(|s| s.to_string()).collect()
        };
        let list = |s: &str| -> Vec<String> {
            s.split(',').filter(|x| !x.is_empty()).map(String::from).collect()
        };
        match (fields[0], fields.len()) {
            ("openssl", 2) => self.openssl = fields[1].into(),
            ("target", 2) => self.target = fields[1].into(),
            ("set", 2) => self.set = fields[1].into(),
            ("variant", 2) => self.variant = Some(variant_name(fields[1])?),
            ("cflag", 2) => self.cflags.push(fields[1].into()),
            ("exlib", 2) => self.ex_libs.push(fields[1].into()),
            ("modflag", 2) => self.module_ldflags.push(fields[1].into()),
            ("modexlib", 2) => self.module_ex_libs.push(fields[1].into()),
            ("modfile", 2) => self.module_file = Some(fields[1].into()),
            ("moddef", 2) => self.module_defflag = Some(fields[1].into()),
            ("group", _) => self.groups.push(words(1)),
            ("unit", 4) => self.units.push(Unit {
                lib: Lib::parse(fields[1])?,
                group: fields[2].parse().context("group index")?,
                path: fields[3].into(),
            }),
            ("asm", 4) => self.asm.push(AsmFile {
                path: fields[1].into(),
                features: parse_features(fields[2])?,
                globals: list(fields[3]),
            }),
            ("file", 3) => {
                self.files.push(FileHash { sha256: fields[1].into(), path: fields[2].into() })
            }
            _ => bail!("unrecognised manifest line"),
        }
        Ok(())
    }

    pub fn to_text(&self) -> String {
        let mut out = vec![MAGIC.to_string()];
        out.push(format!("openssl\t{}", self.openssl));
        out.push(format!("target\t{}", self.target));
        out.push(format!("set\t{}", self.set));
        if let Some(v) = &self.variant {
            out.push(format!("variant\t{v}"));
        }
        out.extend(self.cflags.iter().map(|f| format!("cflag\t{f}")));
        out.extend(self.ex_libs.iter().map(|l| format!("exlib\t{l}")));
        out.extend(self.module_ldflags.iter().map(|f| format!("modflag\t{f}")));
        out.extend(self.module_ex_libs.iter().map(|l| format!("modexlib\t{l}")));
        out.extend(self.module_file.iter().map(|f| format!("modfile\t{f}")));
        out.extend(self.module_defflag.iter().map(|f| format!("moddef\t{f}")));
        out.extend(self.groups.iter().map(|g| format!("group\t{}", g.join("\t"))));
        for u in &self.units {
            out.push(format!("unit\t{}\t{}\t{}", u.lib.name(), u.group, u.path));
        }
        for a in &self.asm {
            let features: Vec<&str> = a.features.iter().map(|f| f.name()).collect();
            out.push(format!("asm\t{}\t{}\t{}", a.path, features.join(","), a.globals.join(",")));
        }
        out.extend(self.files.iter().map(|f| format!("file\t{}\t{}", f.sha256, f.path)));
        out.push(String::new());
        out.join("\n")
    }

    /// Where this configuration lives under the sets' root, and its name in the lock.
    /// This configuration with the legacy provider left out when `legacy` is false, as
    /// Configure's `no-legacy` leaves it (`data::LEGACY`): its units go, and its define
    /// leaves every group.
    pub fn with_legacy(&self, legacy: bool) -> Manifest {
        let mut m = self.clone();
        if !legacy {
            m.units.retain(|u| u.lib != Lib::Legacy);
            for g in &mut m.groups {
                g.retain(|w| w != crate::data::LEGACY.define);
            }
        }
        m
    }

    /// Each unit with its library and own words, for comparing two configurations.
    pub fn resolved_units(&self) -> Vec<(Lib, &str, &[String])> {
        self.units.iter().map(|u| (u.lib, u.path.as_str(), &self.groups[u.group][..])).collect()
    }

    pub fn key(&self) -> String {
        key(&self.set, &self.target, self.variant.as_deref())
    }

    /// The generated file at `path` (tree-relative), or `None` when openssl-src provides it.
    pub fn generated(&self, path: &str) -> Option<&FileHash> {
        self.files.iter().find(|f| f.path == path)
    }

    pub fn asm_file(&self, path: &str) -> Option<&AsmFile> {
        self.asm.iter().find(|a| a.path == path)
    }

    /// Checks every generated file under `set_dir` against its recorded hash.
    pub fn verify_files(&self, set_dir: &Path) -> Result<()> {
        for f in &self.files {
            let path = gen_path(set_dir, &f.path);
            let data = fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
            let actual = sha256::hex(&data);
            if actual != f.sha256 {
                bail!(
                    "{} does not match its manifest (sha256 {actual}, manifest says {}); \
                     regenerate with `cargo xtask generate`",
                    path.display(),
                    f.sha256
                );
            }
        }
        Ok(())
    }
}

/// `<set>/<target>`, or `<set>/<target>+<variant>` for a C variant.
pub fn key(set: &str, target: &str, variant: Option<&str>) -> String {
    match variant {
        None => format!("{set}/{target}"),
        Some(v) => format!("{set}/{target}+{v}"),
    }
}

/// A `variant` line's name. OpenSSL's default C configuration is no line at all, so that the
/// manifests (and the lock's hashes of them) stay as they were before variants existed.
fn variant_name(v: &str) -> Result<String> {
    if v.is_empty() || v == crate::data::NO_C_VARIANT {
        bail!("`{v}` names no C variant: OpenSSL's default C configuration has no `variant` line");
    }
    Ok(v.into())
}

/// Where a generated file lives inside a set's target directory.
pub fn gen_path(set_dir: &Path, rel: &str) -> PathBuf {
    set_dir.join(GEN_DIR).join(rel)
}

fn parse_features(s: &str) -> Result<Vec<Feature>> {
    s.split(',')
        .filter(|x| !x.is_empty())
        .map(|x| Feature::from_name(x).with_context(|| format!("unknown ISA feature `{x}`")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Manifest {
        Manifest {
            openssl: "3.6.3".into(),
            target: "linux-x86_64".into(),
            set: "asm".into(),
            variant: None,
            cflags: vec!["-O3".into(), "-DOPENSSLDIR=\"/usr/local/ssl\"".into()],
            ex_libs: vec!["dl".into()],
            module_ldflags: vec!["-shared".into()],
            module_ex_libs: vec!["dl".into()],
            module_file: Some("fips.so".into()),
            module_defflag: Some("-Wl,--version-script=".into()),
            groups: vec![vec!["-I.".into(), "-DAES_ASM".into()], vec![]],
            units: vec![
                Unit { lib: Lib::Ssl, group: 1, path: "ssl/s3_lib.c".into() },
                Unit { lib: Lib::Fips, group: 0, path: "providers/fips/fipsprov.c".into() },
            ],
            asm: vec![AsmFile {
                path: "crypto/bn/rsaz-2k-avxifma.s".into(),
                features: vec![Feature::Avx2, Feature::AvxIfma],
                globals: vec!["ossl_rsaz_avxifma_eligible".into()],
            }],
            files: vec![FileHash {
                path: "crypto/bn/rsaz-2k-avxifma.s".into(),
                sha256: "ab".into(),
            }],
        }
    }

    #[test]
    fn text_round_trips() {
        let m = sample();
        assert_eq!(Manifest::parse(&m.to_text()).unwrap(), m);
    }

    #[test]
    fn variants_round_trip_and_have_their_own_key() {
        let mut m = sample();
        assert_eq!(m.key(), "asm/linux-x86_64");
        assert!(!m.to_text().contains("variant"), "a default manifest keeps its old text");
        m.variant = Some("ec_nistp_64_gcc_128".into());
        assert_eq!(Manifest::parse(&m.to_text()).unwrap(), m);
        assert_eq!(m.key(), "asm/linux-x86_64+ec_nistp_64_gcc_128");
        for none in ["none", ""] {
            let text = m.to_text().replace("\tec_nistp_64_gcc_128\n", &format!("\t{none}\n"));
            let e = format!("{:#}", Manifest::parse(&text).unwrap_err());
            assert!(e.contains("has no `variant` line"), "{e}");
        }
    }

    #[test]
    fn bad_lines_name_their_line_number() {
        let text = sample().to_text().replace("asm\tcrypto", "asm\tcrypto\textra");
        let e = format!("{:#}", Manifest::parse(&text).unwrap_err());
        let line = "line 16: \"asm\\tcrypto\\textra/bn/rsaz-2k-avxifma.s";
        assert!(e.starts_with(line) && e.ends_with(": unrecognised manifest line"), "{e}");
        let e = format!("{:#}", Manifest::parse("garbage\n").unwrap_err());
        assert!(e.contains("not a crypto-build manifest"), "{e}");
    }

    #[test]
    fn verify_names_the_file_that_differs() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let file = gen_path(dir, "a/b.s");
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(&file, b"abc").unwrap();
        let mut m = sample();
        m.files = vec![FileHash { path: "a/b.s".into(), sha256: sha256::hex(b"abc") }];
        m.verify_files(dir).unwrap();
        fs::write(&file, b"abd").unwrap();
        let e = m.verify_files(dir).unwrap_err().to_string();
        assert!(e.contains("b.s does not match") && e.contains("cargo xtask generate"), "{e}");
    }
}
