//! The diff model: what changes from one release's generated configurations to another's,
//! read from their manifests and from what Configure decided. No I/O, so it is tested on
//! hand-made manifests.

use crypto_build::data::{AsmSyntax, Feature, Target, VERSION_THRESHOLDS};
use crypto_build::generate::{Config, ConfigData};
use crypto_build::manifest::{AsmFile, Manifest};
use std::collections::{BTreeMap, BTreeSet};

/// One release's side: its configurations as generated, and what Configure decided for them.
#[derive(Debug, Default)]
pub struct Side {
    pub version: String,
    /// By key (`asm/linux-x86_64`, `asm/linux-x86_64+ec_nistp_64_gcc_128`).
    pub manifests: BTreeMap<String, Manifest>,
    pub config: BTreeMap<String, ConfigData>,
}

/// A configuration or check that failed on the new release, or a table of ours it no longer
/// matches. Any finding fails the command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub check: String,
    /// The configuration's key, or the table's name.
    pub config: String,
    /// The file and line (1-based) it is about, when it is about one.
    pub file: Option<String>,
    pub line: Option<usize>,
    pub message: String,
}

/// Everything the report says.
#[derive(Debug)]
pub struct Comparison {
    pub from: String,
    pub to: String,
    pub crate_version: String,
    pub sets: Vec<SetDiff>,
    pub configs: Vec<ConfigDiff>,
    pub variants: Vec<VariantState>,
    pub findings: Vec<Finding>,
    pub api: super::api::Api,
}

/// A target's asm set (OpenSSL's default C configuration, which holds the asm).
#[derive(Debug, PartialEq, Eq)]
pub struct SetDiff {
    pub key: String,
    pub target: &'static Target,
    pub set: &'static str,
    /// Whether the new release generated it; a finding says why not.
    pub generated: bool,
    /// The asm files added, removed or changed (by hash).
    pub files: Vec<FileDiff>,
    pub unchanged: usize,
    /// (symbol, file) exported by the target's own rendering.
    pub symbols_added: Vec<(String, String)>,
    pub symbols_removed: Vec<(String, String)>,
    pub classes: (BTreeSet<Feature>, BTreeSet<Feature>),
    pub assemblers: Vec<AsmNeed>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Added,
    Removed,
    Changed,
}

impl Change {
    pub fn name(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
        }
    }
}

/// One asm file, old and new (empty on the side where it is missing).
#[derive(Debug, PartialEq, Eq)]
pub struct FileDiff {
    pub path: String,
    pub change: Change,
    pub classes: (Vec<Feature>, Vec<Feature>),
    pub globals: (Vec<String>, Vec<String>),
}

impl FileDiff {
    pub fn classes_added(&self) -> Vec<Feature> {
        self.classes.1.iter().filter(|f| !self.classes.0.contains(f)).copied().collect()
    }

    pub fn classes_removed(&self) -> Vec<Feature> {
        self.classes.0.iter().filter(|f| !self.classes.1.contains(f)).copied().collect()
    }
}

/// The oldest assembler of a kind that takes a set, old and new.
#[derive(Debug, PartialEq, Eq)]
pub struct AsmNeed {
    /// `gas`, `clang` or `nasm`: a key of `data::VERSION_THRESHOLDS`.
    pub kind: &'static str,
    pub old: Need,
    pub new: Need,
}

/// From `data::VERSION_THRESHOLDS`, over the classes of the set's files in the syntax the
/// kind reads.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Need {
    /// The highest threshold among the classes, `None` when no class has one.
    pub min: Option<String>,
    /// The classes whose threshold that is.
    pub set_by: Vec<Feature>,
    /// Classes the set needs that the table gives no version for (the probes still decide).
    pub unknown: Vec<Feature>,
}

/// What Configure decided differently for one configuration.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ConfigDiff {
    pub key: String,
    /// Whether the new release generated it; only its disabled features are compared if not.
    pub generated: bool,
    /// `-D` words of the library flags and of the units.
    pub defines: Added<String>,
    /// configdata's %disabled: (feature, Configure's reason).
    pub disabled: Added<(String, String)>,
    /// Generated `.h` and `.inc` files.
    pub headers: Added<String>,
    /// The other generated files (C sources, CMake exporters), asm aside.
    pub other_files: Added<String>,
    pub ex_libs: Added<String>,
}

/// (added, removed)
pub type Added<T> = (Vec<T>, Vec<T>);

/// Whether a C variant still does what `data::C_VARIANTS` says on the new release.
#[derive(Debug, PartialEq, Eq)]
pub struct VariantState {
    pub key: String,
    /// Configured and generated, kept the asm, changed some C, no finding names it.
    pub accepted: bool,
    /// C units it adds to its set's (new release).
    pub units_added: Vec<String>,
    pub why_not: Vec<String>,
}

/// Compares the two sides over `configs` (every target row, set and C variant, in the
/// tables' order). `findings` are those already known (failed configurations and checks,
/// the tables' coverage); the variants' states depend on them.
pub fn compare(configs: &[Config], old: &Side, new: &Side, findings: Vec<Finding>) -> Comparison {
    let sets = configs
        .iter()
        .filter(|c| c.variant.is_none() && !c.set.allowed.is_empty())
        .map(|c| set_diff(c, old, new))
        .collect();
    let configs_diff = configs.iter().map(|c| config_diff(&c.key(), old, new)).collect();
    let variants = configs
        .iter()
        .filter(|c| c.variant.is_some())
        .map(|c| variant_state(c, new, &findings))
        .collect();
    Comparison {
        from: old.version.clone(),
        to: new.version.clone(),
        crate_version: String::new(),
        sets,
        configs: configs_diff,
        variants,
        findings,
        api: Default::default(),
    }
}

fn set_diff(config: &Config, old: &Side, new: &Side) -> SetDiff {
    let key = config.key();
    let empty = Manifest::default();
    let a = old.manifests.get(&key).unwrap_or(&empty);
    let all_classes =
        |m: &Manifest| m.asm.iter().flat_map(|f| f.features.iter().copied()).collect();
    // Not generated: a finding says why, and there is nothing to compare.
    let Some(b) = new.manifests.get(&key) else {
        return SetDiff {
            key,
            target: config.target,
            set: config.set.name,
            generated: false,
            files: vec![],
            unchanged: 0,
            symbols_added: vec![],
            symbols_removed: vec![],
            classes: (all_classes(a), BTreeSet::new()),
            assemblers: assemblers(config.target, a, &empty),
        };
    };
    let (files, unchanged) = file_diffs(a, b);
    let own = config.target.syntaxes[0];
    let (sa, sb) = (symbols(a, own), symbols(b, own));
    let only = |x: &BTreeMap<String, String>, y: &BTreeMap<String, String>| {
        x.iter().filter(|(s, _)| !y.contains_key(*s)).map(|(s, f)| (s.clone(), f.clone())).collect()
    };
    SetDiff {
        key,
        target: config.target,
        set: config.set.name,
        generated: true,
        files,
        unchanged,
        symbols_added: only(&sb, &sa),
        symbols_removed: only(&sa, &sb),
        classes: (all_classes(a), all_classes(b)),
        assemblers: assemblers(config.target, a, b),
    }
}

/// The asm files added, removed or changed (by hash) from `a` to `b`, and how many are the
/// same.
fn file_diffs(a: &Manifest, b: &Manifest) -> (Vec<FileDiff>, usize) {
    let hash = |m: &Manifest, p: &str| m.generated(p).map(|f| f.sha256.clone());
    let paths: BTreeSet<&str> = a.asm.iter().chain(&b.asm).map(|f| f.path.as_str()).collect();
    let mut files = Vec::new();
    let mut unchanged = 0;
    for path in paths {
        let (fa, fb) = (a.asm_file(path), b.asm_file(path));
        let change = match (fa, fb) {
            (None, _) => Change::Added,
            (_, None) => Change::Removed,
            _ if hash(a, path) != hash(b, path) => Change::Changed,
            _ => {
                unchanged += 1;
                continue;
            }
        };
        let classes = |f: Option<&AsmFile>| f.map(|f| f.features.clone()).unwrap_or_default();
        let globals = |f: Option<&AsmFile>| f.map(|f| f.globals.clone()).unwrap_or_default();
        files.push(FileDiff {
            path: path.into(),
            change,
            classes: (classes(fa), classes(fb)),
            globals: (globals(fa), globals(fb)),
        });
    }
    (files, unchanged)
}

/// Every symbol the files of one rendering export, with its file.
fn symbols(m: &Manifest, syntax: AsmSyntax) -> BTreeMap<String, String> {
    let own = m.asm.iter().filter(|f| AsmSyntax::of_path(&f.path) == Some(syntax));
    own.flat_map(|f| f.globals.iter().map(move |g| (g.clone(), f.path.clone()))).collect()
}

/// The kinds of assembler that read a target's renderings: GNU as and clang its AT&T one,
/// nasm its nasm one.
fn kinds(target: &Target) -> Vec<(&'static str, AsmSyntax)> {
    let mut out = Vec::new();
    if target.syntaxes.contains(&AsmSyntax::Gas) {
        out.extend([("gas", AsmSyntax::Gas), ("clang", AsmSyntax::Gas)]);
    }
    if target.syntaxes.contains(&AsmSyntax::Nasm) {
        out.push(("nasm", AsmSyntax::Nasm));
    }
    out
}

fn assemblers(target: &Target, a: &Manifest, b: &Manifest) -> Vec<AsmNeed> {
    kinds(target)
        .into_iter()
        .map(|(kind, syntax)| AsmNeed {
            kind,
            old: need(a, kind, syntax),
            new: need(b, kind, syntax),
        })
        .collect()
}

/// The oldest `kind` of assembler that takes every file of `m` in `syntax`, by the table.
pub fn need(m: &Manifest, kind: &str, syntax: AsmSyntax) -> Need {
    let files = m.asm.iter().filter(|f| AsmSyntax::of_path(&f.path) == Some(syntax));
    let classes: BTreeSet<Feature> = files.flat_map(|f| f.features.iter().copied()).collect();
    let mut out = Need::default();
    for f in classes {
        let threshold = VERSION_THRESHOLDS.iter().find(|t| t.kind == kind && t.feature == f);
        let Some(t) = threshold else {
            out.unknown.push(f);
            continue;
        };
        let higher = out
            .min
            .as_deref()
            .map_or(std::cmp::Ordering::Greater, |m| crypto_build::version::compare(t.min, m));
        match higher {
            std::cmp::Ordering::Greater => (out.min, out.set_by) = (Some(t.min.into()), vec![f]),
            std::cmp::Ordering::Equal => out.set_by.push(f),
            std::cmp::Ordering::Less => {}
        }
    }
    out
}

fn config_diff(key: &str, old: &Side, new: &Side) -> ConfigDiff {
    let empty = Manifest::default();
    let generated = new.manifests.contains_key(key);
    let (a, b) = (old.manifests.get(key), new.manifests.get(key));
    // Not generated, it has no files or flags to compare: the same on both sides.
    let (a, b) = (a.unwrap_or(&empty), b.or(a).unwrap_or(&empty));
    let defines = |m: &Manifest| -> BTreeSet<String> {
        let words = m.cflags.iter().chain(m.groups.iter().flatten());
        words.filter(|w| w.starts_with("-D")).cloned().collect()
    };
    let files = |m: &Manifest, headers: bool| -> BTreeSet<String> {
        let c = m.files.iter().filter(|f| AsmSyntax::of_path(&f.path).is_none());
        let header = |p: &str| p.ends_with(".h") || p.ends_with(".inc");
        c.filter(|f| header(&f.path) == headers).map(|f| f.path.clone()).collect()
    };
    let disabled = |s: &Side| -> BTreeSet<(String, String)> {
        let d = s.config.get(key).map(|c| c.disabled.clone()).unwrap_or_default();
        d.into_iter().collect()
    };
    let libs = |m: &Manifest| m.ex_libs.iter().cloned().collect::<BTreeSet<String>>();
    // A feature disabled for another reason is no change to report.
    let (da, db) = (disabled(old), disabled(new));
    let names = |s: &BTreeSet<(String, String)>| s.iter().map(|(n, _)| n.clone()).collect();
    let (na, nb): (BTreeSet<String>, BTreeSet<String>) = (names(&da), names(&db));
    ConfigDiff {
        key: key.into(),
        generated,
        defines: added(&defines(a), &defines(b)),
        disabled: (
            db.iter().filter(|(n, _)| !na.contains(n)).cloned().collect(),
            da.iter().filter(|(n, _)| !nb.contains(n)).cloned().collect(),
        ),
        headers: added(&files(a, true), &files(b, true)),
        other_files: added(&files(a, false), &files(b, false)),
        ex_libs: added(&libs(a), &libs(b)),
    }
}

fn added(old: &BTreeSet<String>, new: &BTreeSet<String>) -> Added<String> {
    (new.difference(old).cloned().collect(), old.difference(new).cloned().collect())
}

fn variant_state(config: &Config, new: &Side, findings: &[Finding]) -> VariantState {
    let key = config.key();
    let base = crypto_build::manifest::key(config.set.name, config.target.name, None);
    let mut why_not: Vec<String> = findings
        .iter()
        .filter(|f| f.config == key)
        .map(|f| format!("{}: {}", f.check, f.message))
        .collect();
    let units = |m: Option<&Manifest>| -> BTreeSet<String> {
        m.map(|m| m.units.iter().map(|u| u.path.clone()).collect()).unwrap_or_default()
    };
    let (v, b) = (new.manifests.get(&key), new.manifests.get(&base));
    let mut units_added: Vec<String> = units(v).difference(&units(b)).cloned().collect();
    if v.is_none() {
        why_not.push("not generated".into());
    } else if b.is_none() {
        units_added.clear();
        why_not.push(format!("{base} was not generated, so what the variant changes is unknown"));
    } else if units_added.is_empty() {
        why_not.push(format!("adds no C unit to {base}: Configure ignores its options"));
    }
    VariantState { key, accepted: why_not.is_empty(), units_added, why_not }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crypto_build::data::{self, Feature::*};
    use crypto_build::manifest::{FileHash, Lib, Unit};

    fn config(set: &str, variant: Option<&str>) -> Config {
        let target = data::target_by_name("linux-x86_64").unwrap();
        let set = data::set_by_name(set).unwrap();
        let variant = variant.map(|v| data::variant_by_name(v).unwrap());
        Config { target, set, variant }
    }

    fn asm(path: &str, features: &[Feature], globals: &[&str]) -> AsmFile {
        let globals = globals.iter().map(|g| g.to_string()).collect();
        AsmFile { path: path.into(), features: features.to_vec(), globals }
    }

    fn manifest(files: &[(AsmFile, &str)], cflags: &[&str], units: &[&str]) -> Manifest {
        Manifest {
            cflags: cflags.iter().map(|c| c.to_string()).collect(),
            groups: vec![vec![]],
            units: units
                .iter()
                .map(|p| Unit { lib: Lib::Crypto, group: 0, path: p.to_string() })
                .collect(),
            files: files
                .iter()
                .map(|(a, sha)| FileHash { path: a.path.clone(), sha256: sha.to_string() })
                .chain([FileHash { path: "include/openssl/a.h".into(), sha256: "h".into() }])
                .collect(),
            asm: files.iter().map(|(a, _)| a.clone()).collect(),
            ..Manifest::default()
        }
    }

    /// 3 files become: one removed, one changed (with a new class and entry point), one
    /// unchanged, one added; a define and a disabled feature go, a header comes.
    fn sides() -> (Side, Side) {
        let key = config("asm", None).key();
        let same = asm("crypto/same.s", &[Avx2], &["same"]);
        let old = manifest(
            &[
                (asm("crypto/gone.s", &[AdxBmi2], &["gone"]), "1"),
                (asm("crypto/grew.s", &[Avx2], &["grew"]), "2"),
                (same.clone(), "3"),
            ],
            &["-O3", "-DOLD"],
            &["crypto/a.c"],
        );
        let mut new = manifest(
            &[
                (asm("crypto/grew.s", &[Avx2, AvxIfma], &["grew", "grew_ifma"]), "22"),
                (same, "3"),
                (asm("crypto/new.s", &[Avx512, Vaes512], &["fresh"]), "4"),
            ],
            &["-O3", "-DNEW"],
            &["crypto/a.c"],
        );
        new.files.push(FileHash { path: "include/openssl/b.h".into(), sha256: "b".into() });
        let disabled = |d: &[(&str, &str)]| ConfigData {
            disabled: d.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            ..ConfigData::default()
        };
        let variant = config("asm", Some("ec_nistp_64_gcc_128")).key();
        let mut variant_m = new.clone();
        variant_m.units.push(Unit { lib: Lib::Crypto, group: 0, path: "crypto/ec/nistp.c".into() });
        let old = Side {
            version: "1.0.0".into(),
            manifests: [(key.clone(), old)].into(),
            config: [(key.clone(), disabled(&[("md2", "option"), ("ssl3", "option")]))].into(),
        };
        let new = Side {
            version: "2.0.0".into(),
            manifests: [(key.clone(), new), (variant, variant_m)].into(),
            config: [(key, disabled(&[("md2", "default"), ("tfo", "default")]))].into(),
        };
        (old, new)
    }

    #[test]
    fn files_entry_points_and_classes() {
        let (old, new) = sides();
        let c = compare(&[config("asm", None)], &old, &new, vec![]);
        let s = &c.sets[0];
        assert!(s.generated);
        assert_eq!(s.unchanged, 1);
        let changes: Vec<(&str, Change)> =
            s.files.iter().map(|f| (f.path.as_str(), f.change)).collect();
        assert_eq!(
            changes,
            [
                ("crypto/gone.s", Change::Removed),
                ("crypto/grew.s", Change::Changed),
                ("crypto/new.s", Change::Added)
            ]
        );
        assert_eq!(s.files[1].classes_added(), [AvxIfma]);
        assert_eq!(s.files[0].classes_removed(), [AdxBmi2]);
        let sym = |v: &[(String, String)]| v.iter().map(|(s, _)| s.clone()).collect::<Vec<_>>();
        assert_eq!(sym(&s.symbols_added), ["fresh", "grew_ifma"]);
        assert_eq!(sym(&s.symbols_removed), ["gone"]);
        assert!(s.classes.1.contains(&Vaes512) && !s.classes.0.contains(&Vaes512));
    }

    #[test]
    fn a_configuration_not_generated_has_nothing_to_compare() {
        let (old, mut new) = sides();
        new.manifests.clear();
        let c = compare(&[config("asm", None)], &old, &new, vec![]);
        let s = &c.sets[0];
        assert!(!s.generated && s.files.is_empty() && s.symbols_removed.is_empty());
        let d = &c.configs[0];
        assert!(!d.generated && d.defines.1.is_empty() && d.headers.1.is_empty());
        assert_eq!(d.disabled.0, [("tfo".to_string(), "default".to_string())]);
    }

    #[test]
    fn the_oldest_assembler_follows_the_thresholds() {
        let (old, new) = sides();
        let c = compare(&[config("asm", None)], &old, &new, vec![]);
        let gas = c.sets[0].assemblers.iter().find(|a| a.kind == "gas").unwrap();
        // Old: AVX2 (2.22), ADX/BMI2 (2.23). New: AVX-IFMA (2.40) over AVX-512 and VAES.
        assert_eq!(gas.old.min.as_deref(), Some("2.23"));
        assert_eq!((gas.new.min.as_deref(), &gas.new.set_by[..]), (Some("2.40"), &[AvxIfma][..]));
        let clang = c.sets[0].assemblers.iter().find(|a| a.kind == "clang").unwrap();
        assert_eq!(clang.old.unknown, [AdxBmi2], "the table has no clang version for ADX");
        assert!(
            c.sets[0].assemblers.iter().all(|a| a.kind != "nasm"),
            "linux has no nasm rendering"
        );
    }

    #[test]
    fn configuration_changes() {
        let (old, new) = sides();
        let c = compare(&[config("asm", None)], &old, &new, vec![]);
        let d = &c.configs[0];
        assert_eq!(d.defines, (vec!["-DNEW".into()], vec!["-DOLD".into()]));
        // md2 stays disabled (for another reason): no change.
        assert_eq!(d.disabled.0, [("tfo".to_string(), "default".to_string())]);
        assert_eq!(d.disabled.1, [("ssl3".to_string(), "option".to_string())]);
        assert_eq!(d.headers, (vec!["include/openssl/b.h".into()], vec![]));
        let unchanged = ConfigDiff { key: d.key.clone(), generated: true, ..ConfigDiff::default() };
        assert_eq!(config_diff("asm/linux-x86_64", &old, &old), unchanged);
    }

    #[test]
    fn a_variant_is_accepted_only_when_it_adds_c_and_no_finding_names_it() {
        let (old, new) = sides();
        let configs = [config("asm", None), config("asm", Some("ec_nistp_64_gcc_128"))];
        let c = compare(&configs, &old, &new, vec![]);
        assert!(c.variants[0].accepted, "{:?}", c.variants[0]);
        assert_eq!(c.variants[0].units_added, ["crypto/ec/nistp.c"]);
        let finding = Finding {
            check: "c-variant".into(),
            config: configs[1].key(),
            file: None,
            line: None,
            message: "marker not found".into(),
        };
        let c = compare(&configs, &old, &new, vec![finding]);
        assert!(!c.variants[0].accepted);
        assert_eq!(c.variants[0].why_not, ["c-variant: marker not found"]);
        let mut ignored = new;
        let v = ignored.manifests.get_mut(&configs[1].key()).unwrap();
        v.units.pop();
        let c = compare(&configs, &old, &ignored, vec![]);
        assert!(c.variants[0].why_not[0].contains("Configure ignores its options"));
        ignored.manifests.remove(&configs[0].key());
        let c = compare(&configs, &old, &ignored, vec![]);
        assert!(c.variants[0].units_added.is_empty());
        assert!(c.variants[0].why_not[0].contains("was not generated"), "{:?}", c.variants[0]);
    }
}
