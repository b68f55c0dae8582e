//! The diff model: what changes from one release's generated configurations to another's,
//! read from their manifests and from what Configure decided. No I/O (the facts read from the
//! files themselves are `sides::text_facts`'), so it is tested on hand-made manifests; the
//! report's JSON is this model, serialized as it is, and read back whole (so that a test
//! checks that a committed report's words are what this code writes from its facts).

use super::names::{one_of, Name};
use crypto_build::data::{AsmSyntax, Feature, Target, VERSION_THRESHOLDS};
use crypto_build::manifest::{AsmFile, Manifest};
use crypto_build::sets::Config;
use crypto_gen::generate::ConfigData;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// Where a side's OpenSSL tree came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// An openssl-src crate (`400.0.2+4.0.3`).
    Crate { crate_version: String },
    /// A release tarball of this SHA-256 (`openssl-4.0.3.tar.gz`).
    Tarball { file: String, sha256: String },
}

impl Default for Origin {
    fn default() -> Origin {
        Origin::Crate { crate_version: String::new() }
    }
}

impl Origin {
    /// `openssl-src 400.0.2+4.0.3`, `openssl-4.0.3.tar.gz (SHA-256 0123…)`.
    pub fn describe(&self) -> String {
        match self {
            Origin::Crate { crate_version } => format!("openssl-src {crate_version}"),
            Origin::Tarball { file, sha256 } => format!("{file} (SHA-256 {sha256})"),
        }
    }
}

/// One release's side: its configurations as generated, and what Configure decided for them.
#[derive(Debug, Default)]
pub struct Side {
    pub version: String,
    pub origin: Origin,
    /// Whether it is the workspace's own sets, as its generate.lock pins them (else generated
    /// in scratch space).
    pub pinned: bool,
    /// By key (`asm/linux-x86_64`, `asm/linux-x86_64+ec_nistp_64_gcc_128`).
    pub manifests: BTreeMap<String, Manifest>,
    pub config: BTreeMap<String, ConfigData>,
    /// Each configuration's directory (its manifest and `gen/`), by key.
    pub dirs: BTreeMap<String, PathBuf>,
    /// The OpenSSL tree it was generated from.
    pub tree: PathBuf,
}

/// A configuration or check that failed on the new release, or a table of ours it no longer
/// matches. Any finding fails the command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Serialize, Deserialize)]
pub struct Comparison {
    /// How it was made (`cargo xtask update-openssl …`).
    pub command: String,
    pub from: String,
    pub to: String,
    pub old_source: Origin,
    pub new_source: Origin,
    /// Whether the old side is the workspace's sets (else it was generated in scratch space).
    pub old_pinned: bool,
    /// The targets compared when `--target` limited them (`Target::name`); empty: every row.
    pub limited_to: Vec<String>,
    /// The sets compared when `--set` limited them; empty: every set.
    #[serde(default)]
    pub limited_sets: Vec<String>,
    /// How many configurations were compared.
    pub configurations: usize,
    /// The configurations whose manifests (so every generated file, and generate.lock's
    /// lines) are the same on both sides.
    pub identical: Vec<String>,
    pub sets: Vec<SetDiff>,
    pub configs: Vec<ConfigDiff>,
    pub variants: Vec<VariantState>,
    pub findings: Vec<Finding>,
    pub api: super::api::Api,
}

impl Comparison {
    /// What `--target` and `--set` limited the comparison to, in words with the flags that
    /// did; `None` when it took every configuration.
    pub fn limits(&self) -> Option<String> {
        let n = self.configurations;
        let (targets, sets) = (self.limited_to.join(", "), self.limited_sets.join(", "));
        match (targets.is_empty(), sets.is_empty()) {
            (true, true) => None,
            (false, true) => Some(format!("the {n} configurations of {targets} (`--target`)")),
            (true, false) => Some(format!("the {n} configurations of set {sets} (`--set`)")),
            (false, false) => Some(format!(
                "the {n} configurations of {targets} in set {sets} (`--target`, `--set`)"
            )),
        }
    }
}

/// Instruction classes; in the JSON, their names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Classes(pub Vec<Feature>);

impl Serialize for Classes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|f| f.name()))
    }
}

impl<'de> Deserialize<'de> for Classes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Classes, D::Error> {
        let names = Vec::<String>::deserialize(d)?;
        let class = |n: &String| {
            Feature::from_name(n).ok_or_else(|| D::Error::custom(format!("no class `{n}`")))
        };
        Ok(Classes(names.iter().map(class).collect::<Result<_, _>>()?))
    }
}

impl Classes {
    /// Those of `self` not in `other`.
    pub fn minus(&self, other: &Classes) -> Classes {
        Classes(self.0.iter().filter(|f| !other.0.contains(f)).copied().collect())
    }

    /// `neon, armv8-crypto`, or `-` for none.
    pub fn names(&self) -> String {
        if self.0.is_empty() {
            return "-".into();
        }
        self.0.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ")
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OldNew<T> {
    pub old: T,
    pub new: T,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Added<T> {
    pub added: Vec<T>,
    pub removed: Vec<T>,
}

impl<T> Default for Added<T> {
    fn default() -> Self {
        Added { added: vec![], removed: vec![] }
    }
}

fn target_name<S: Serializer>(t: &&Target, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(t.name)
}

fn target_by_name<'de, D: Deserializer<'de>>(d: D) -> Result<&'static Target, D::Error> {
    let name = String::deserialize(d)?;
    crypto_build::data::target_by_name(&name).map_err(|e| D::Error::custom(format!("{e:#}")))
}

fn set_by_name<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let name = String::deserialize(d)?;
    let set =
        crypto_build::data::set_by_name(&name).map_err(|e| D::Error::custom(format!("{e:#}")))?;
    Ok(set.name)
}

fn assembler_kind<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    one_of(d, &["gas", "clang", "nasm"])
}

/// A target's asm set (OpenSSL's default C configuration, which holds the asm).
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetDiff {
    pub key: String,
    #[serde(serialize_with = "target_name", deserialize_with = "target_by_name")]
    pub target: &'static Target,
    #[serde(deserialize_with = "set_by_name")]
    pub set: Name,
    /// Whether the new release generated it; a finding says why not.
    pub generated: bool,
    /// The asm files added, removed or changed (by hash), every rendering.
    pub files: Vec<FileDiff>,
    /// How many asm files (every rendering) are the same.
    pub unchanged: usize,
    /// Exported by the target's own rendering, with their file.
    pub entry_points: Added<EntryPoint>,
    pub classes: OldNew<Classes>,
    pub assemblers: Vec<AsmNeed>,
}

impl SetDiff {
    /// The files of the target's own rendering (Configure's), and those of another rendering
    /// whose own twin did not change the same way.
    pub fn shown_files(&self) -> impl Iterator<Item = &FileDiff> {
        let own = self.target.syntaxes[0];
        self.files.iter().filter(move |f| {
            AsmSyntax::of_path(&f.path) == Some(own)
                || !self.files.iter().any(|t| t.path == own.rename(&f.path) && t.change == f.change)
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct EntryPoint {
    pub symbol: String,
    pub file: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
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
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDiff {
    pub path: String,
    pub change: Change,
    pub classes: OldNew<Classes>,
    pub entry_points: OldNew<Vec<String>>,
    /// Read from the files themselves, where both sides' directories were at hand.
    pub text: Option<TextDiff>,
}

impl FileDiff {
    pub fn classes_added(&self) -> Classes {
        self.classes.new.minus(&self.classes.old)
    }

    pub fn classes_removed(&self) -> Classes {
        self.classes.old.minus(&self.classes.new)
    }

    pub fn entry_points_added(&self) -> Vec<String> {
        let (old, new) = (&self.entry_points.old, &self.entry_points.new);
        new.iter().filter(|g| !old.contains(g)).cloned().collect()
    }

    pub fn entry_points_removed(&self) -> Vec<String> {
        let (old, new) = (&self.entry_points.old, &self.entry_points.new);
        old.iter().filter(|g| !new.contains(g)).cloned().collect()
    }
}

/// What the text of an asm file says beyond its manifest entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextDiff {
    /// Lines of the new file that the old one lacks, and the reverse (as multisets: a moved
    /// line counts neither way).
    pub lines_added: usize,
    pub lines_removed: usize,
    /// Instructions written as `.inst` words (AArch64): the assembler sees data, so they need
    /// nothing from it, whatever their class.
    pub inst_words: OldNew<usize>,
}

/// The oldest assembler of a kind that takes a set, old and new.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AsmNeed {
    /// `gas`, `clang` or `nasm`: a key of `data::VERSION_THRESHOLDS`.
    #[serde(deserialize_with = "assembler_kind")]
    pub kind: Name,
    pub old: Need,
    pub new: Need,
}

/// From `data::VERSION_THRESHOLDS`, over the classes of the set's files in the syntax the
/// kind reads.
#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Need {
    /// The highest threshold among the classes, `None` when no class has one.
    pub min: Option<String>,
    /// The classes whose threshold that is.
    pub set_by: Classes,
    /// Classes the set needs that the table gives no version for (the probes still decide).
    pub unknown: Classes,
}

/// A feature configdata.pm's `%disabled` names, with Configure's reason.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Disabled {
    pub feature: String,
    pub reason: String,
}

/// What Configure decided differently for one configuration.
#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigDiff {
    pub key: String,
    /// Whether the new release generated it; only its disabled features are compared if not.
    pub generated: bool,
    /// `-D` words of the library flags and of the units, all together.
    pub defines: Added<String>,
    /// The units whose own `-D` words changed, gathered by what changed: a define that every
    /// configuration already had somewhere but that a unit group gains (4.0.4's
    /// `DEFINE[providers/libdefault.a]`) moves those units onto or off an asm path, and the
    /// union above cannot show it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unit_defines: Vec<UnitDefines>,
    pub disabled: Added<Disabled>,
    /// Generated `.h` and `.inc` files.
    pub headers: Added<String>,
    /// The other generated files (C sources, CMake exporters), asm aside.
    pub other_files: Added<String>,
    pub ex_libs: Added<String>,
}

/// Units of one configuration, in both releases, whose defines changed alike.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitDefines {
    /// The directory every one of them is in (`providers/`), with a trailing `/`; empty when
    /// they share none.
    pub dir: String,
    /// When they share none: each top directory they are in, with how many (`providers/`, 150).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tops: Vec<(String, usize)>,
    pub units: usize,
    pub added: Vec<String>,
    pub removed: Vec<String>,
}

impl UnitDefines {
    /// Where the units are, as the summary and the report both say it: `` in `providers/` ``,
    /// `` in `providers/` (150) and `crypto/` (12) ``, or (a report made before the top
    /// directories were kept) `in several directories`.
    pub fn place(&self) -> String {
        let top = |d: &str| if d.is_empty() { "the top".into() } else { format!("`{d}`") };
        let tops: Vec<String> =
            self.tops.iter().map(|(d, n)| format!("{} ({n})", top(d))).collect();
        match (self.dir.as_str(), &tops[..]) {
            ("", []) => "in several directories".into(),
            ("", [.., last]) if tops.len() > 1 => {
                format!("in {} and {last}", tops[..tops.len() - 1].join(", "))
            }
            ("", _) => format!("in {}", tops.join("")),
            (dir, _) => format!("in `{dir}`"),
        }
    }
}

/// Whether a C variant still does what `data::C_VARIANTS` says on the new release.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariantState {
    pub key: String,
    /// Configured and generated, kept the asm, changed some C, no finding names it.
    pub accepted: bool,
    /// C units it adds to its set's (new release).
    pub units_added: Vec<String>,
    pub why_not: Vec<String>,
}

/// Compares the two sides over `configs` (every target row, set and C variant, in the
/// tables' order, or those of the targets asked for). `findings` are those already known
/// (failed configurations and checks, the tables' coverage); the variants' states depend on
/// them.
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
    let same = |k: &String| old.manifests.get(k).is_some_and(|m| new.manifests.get(k) == Some(m));
    Comparison {
        command: String::new(),
        from: old.version.clone(),
        to: new.version.clone(),
        old_source: old.origin.clone(),
        new_source: new.origin.clone(),
        old_pinned: old.pinned,
        limited_to: vec![],
        limited_sets: vec![],
        configurations: configs.len(),
        identical: configs.iter().map(|c| c.key()).filter(same).collect(),
        sets,
        configs: configs_diff,
        variants,
        findings,
        api: Default::default(),
    }
}

fn all_classes(m: &Manifest) -> Classes {
    let set: BTreeSet<Feature> = m.asm.iter().flat_map(|f| f.features.iter().copied()).collect();
    Classes(set.into_iter().collect())
}

fn set_diff(config: &Config, old: &Side, new: &Side) -> SetDiff {
    let key = config.key();
    let empty = Manifest::default();
    let a = old.manifests.get(&key).unwrap_or(&empty);
    // Not generated: a finding says why, and there is nothing to compare.
    let generated = new.manifests.get(&key);
    let b = generated.unwrap_or(&empty);
    let (files, unchanged) = if generated.is_some() { file_diffs(a, b) } else { (vec![], 0) };
    let own = config.target.syntaxes[0];
    let (sa, sb) = (symbols(a, own), symbols(b, own));
    let only = |x: &BTreeMap<String, String>, y: &BTreeMap<String, String>| {
        let only_x = x.iter().filter(|(s, _)| !y.contains_key(*s));
        only_x.map(|(s, f)| EntryPoint { symbol: s.clone(), file: f.clone() }).collect()
    };
    let entry_points = match generated {
        Some(_) => Added { added: only(&sb, &sa), removed: only(&sa, &sb) },
        None => Added::default(),
    };
    SetDiff {
        key,
        target: config.target,
        set: config.set.name,
        generated: generated.is_some(),
        files,
        unchanged,
        entry_points,
        classes: OldNew { old: all_classes(a), new: all_classes(b) },
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
        let classes =
            |f: Option<&AsmFile>| Classes(f.map(|f| f.features.clone()).unwrap_or_default());
        let globals = |f: Option<&AsmFile>| f.map(|f| f.globals.clone()).unwrap_or_default();
        files.push(FileDiff {
            path: path.into(),
            change,
            classes: OldNew { old: classes(fa), new: classes(fb) },
            entry_points: OldNew { old: globals(fa), new: globals(fb) },
            text: None,
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
            out.unknown.0.push(f);
            continue;
        };
        let higher = out
            .min
            .as_deref()
            .map_or(std::cmp::Ordering::Greater, |m| crypto_build::version::compare(t.min, m));
        match higher {
            std::cmp::Ordering::Greater => {
                (out.min, out.set_by) = (Some(t.min.into()), Classes(vec![f]))
            }
            std::cmp::Ordering::Equal => out.set_by.0.push(f),
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
    let disabled = |s: &Side| -> BTreeSet<Disabled> {
        let d = s.config.get(key).map(|c| c.disabled.clone()).unwrap_or_default();
        d.into_iter().map(|(feature, reason)| Disabled { feature, reason }).collect()
    };
    let libs = |m: &Manifest| m.ex_libs.iter().cloned().collect::<BTreeSet<String>>();
    // A feature disabled for another reason is no change to report.
    let (da, db) = (disabled(old), disabled(new));
    let names = |s: &BTreeSet<Disabled>| s.iter().map(|d| d.feature.clone()).collect();
    let (na, nb): (BTreeSet<String>, BTreeSet<String>) = (names(&da), names(&db));
    ConfigDiff {
        key: key.into(),
        generated,
        defines: added(&defines(a), &defines(b)),
        unit_defines: unit_defines(a, b),
        disabled: Added {
            added: db.iter().filter(|d| !na.contains(&d.feature)).cloned().collect(),
            removed: da.iter().filter(|d| !nb.contains(&d.feature)).cloned().collect(),
        },
        headers: added(&files(a, true), &files(b, true)),
        other_files: added(&files(a, false), &files(b, false)),
        ex_libs: added(&libs(a), &libs(b)),
    }
}

/// Each unit's `-D` words: the library flags' and its group's.
fn defines_by_unit(m: &Manifest) -> BTreeMap<(&str, &str), BTreeSet<&str>> {
    let lib: BTreeSet<&str> =
        m.cflags.iter().filter(|w| w.starts_with("-D")).map(String::as_str).collect();
    let group = |g: usize| m.groups.get(g).into_iter().flatten().filter(|w| w.starts_with("-D"));
    m.units
        .iter()
        .map(|u| {
            let own = group(u.group).map(String::as_str);
            ((u.lib.name(), u.path.as_str()), lib.iter().copied().chain(own).collect())
        })
        .collect()
}

/// The units on both sides whose defines differ, one entry per distinct change.
fn unit_defines(a: &Manifest, b: &Manifest) -> Vec<UnitDefines> {
    let (da, db) = (defines_by_unit(a), defines_by_unit(b));
    let mut changes: BTreeMap<(Vec<String>, Vec<String>), Vec<&str>> = BTreeMap::new();
    for (unit, new) in &db {
        let Some(old) = da.get(unit) else { continue };
        let owned = |s: std::collections::btree_set::Difference<'_, &str>| {
            s.map(|d| d.to_string()).collect::<Vec<_>>()
        };
        let (plus, minus) = (owned(new.difference(old)), owned(old.difference(new)));
        if !plus.is_empty() || !minus.is_empty() {
            changes.entry((plus, minus)).or_default().push(unit.1);
        }
    }
    changes
        .into_iter()
        .map(|((added, removed), paths)| {
            let dir = common_dir(&paths);
            let tops = if dir.is_empty() { top_dirs(&paths) } else { vec![] };
            UnitDefines { dir, tops, units: paths.len(), added, removed }
        })
        .collect()
}

/// Each top directory of `paths` (`crypto/`; `` for a file at the top) with how many are in
/// it, the most first.
fn top_dirs(paths: &[&str]) -> Vec<(String, usize)> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for p in paths {
        let top = p.find('/').map_or(String::new(), |i| p[..=i].to_string());
        *counts.entry(top).or_default() += 1;
    }
    let mut tops: Vec<(String, usize)> = counts.into_iter().collect();
    tops.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    tops
}

/// The longest directory (`providers/implementations/`) that holds every path.
fn common_dir(paths: &[&str]) -> String {
    let dir = |p: &str| p.rfind('/').map_or(String::new(), |i| p[..=i].to_string());
    let mut common = paths.first().map(|p| dir(p)).unwrap_or_default();
    for p in paths {
        while !p.starts_with(&common) {
            common.pop();
            common = dir(&common);
        }
    }
    common
}

fn added(old: &BTreeSet<String>, new: &BTreeSet<String>) -> Added<String> {
    Added {
        added: new.difference(old).cloned().collect(),
        removed: old.difference(new).cloned().collect(),
    }
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
pub(super) mod tests {
    use super::*;
    use crypto_build::data::{self, Feature::*};
    use crypto_build::manifest::{FileHash, Lib, Unit};

    pub fn config(target: &str, set: &str, variant: Option<&str>) -> Config {
        let target = data::target_by_name(target).unwrap();
        let set = data::set_by_name(set).unwrap();
        let variant = variant.map(|v| data::variant_by_name(v).unwrap());
        Config { target, set, variant }
    }

    fn x86(set: &str, variant: Option<&str>) -> Config {
        config("linux-x86_64", set, variant)
    }

    pub fn asm(path: &str, features: &[Feature], globals: &[&str]) -> AsmFile {
        let globals = globals.iter().map(|g| g.to_string()).collect();
        AsmFile { path: path.into(), features: features.to_vec(), globals }
    }

    pub fn manifest(files: &[(AsmFile, &str)], cflags: &[&str], units: &[&str]) -> Manifest {
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

    pub fn disabled(d: &[(&str, &str)]) -> ConfigData {
        ConfigData {
            disabled: d.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            ..ConfigData::default()
        }
    }

    /// 3 files become: one removed, one changed (with a new class and entry point), one
    /// unchanged, one added; a define and a disabled feature go, a header comes.
    fn sides() -> (Side, Side) {
        let key = x86("asm", None).key();
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
        let variant = x86("asm", Some("ec_nistp_64_gcc_128")).key();
        let mut variant_m = new.clone();
        variant_m.units.push(Unit { lib: Lib::Crypto, group: 0, path: "crypto/ec/nistp.c".into() });
        let old = Side {
            version: "1.0.0".into(),
            manifests: [(key.clone(), old)].into(),
            config: [(key.clone(), disabled(&[("md2", "option"), ("ssl3", "option")]))].into(),
            ..Side::default()
        };
        let new = Side {
            version: "2.0.0".into(),
            manifests: [(key.clone(), new), (variant, variant_m)].into(),
            config: [(key, disabled(&[("md2", "default"), ("tfo", "default")]))].into(),
            ..Side::default()
        };
        (old, new)
    }

    #[test]
    fn files_entry_points_and_classes() {
        let (old, new) = sides();
        let c = compare(&[x86("asm", None)], &old, &new, vec![]);
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
        assert_eq!(s.files[1].classes_added().0, [AvxIfma]);
        assert_eq!(s.files[1].entry_points_added(), ["grew_ifma"]);
        assert_eq!(s.files[0].classes_removed().0, [AdxBmi2]);
        let sym = |v: &[EntryPoint]| v.iter().map(|e| e.symbol.clone()).collect::<Vec<_>>();
        assert_eq!(sym(&s.entry_points.added), ["fresh", "grew_ifma"]);
        assert_eq!(sym(&s.entry_points.removed), ["gone"]);
        assert!(s.classes.new.0.contains(&Vaes512) && !s.classes.old.0.contains(&Vaes512));
        assert!(c.identical.is_empty());
        let same = compare(&[x86("asm", None)], &old, &old, vec![]);
        assert_eq!(same.identical, ["asm/linux-x86_64"]);
    }

    /// A define the library already had elsewhere, gained by one unit group, is named with
    /// the group's directory, though the union of every define does not change.
    #[test]
    fn a_unit_group_gaining_an_existing_define_is_named() {
        let unit = |group: usize, path: &str| Unit { lib: Lib::Crypto, group, path: path.into() };
        let words = |w: &[&str]| w.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        let provider =
            ["providers/implementations/ciphers/a.c", "providers/implementations/digests/b.c"];
        let mut old = manifest(&[], &["-O3", "-DL"], &[]);
        old.groups = vec![words(&["-Iinclude"]), words(&["-Iinclude", "-DGHASH_ASM"])];
        old.units =
            vec![unit(1, "crypto/modes/gcm128.c"), unit(0, provider[0]), unit(0, provider[1])];
        old.units.push(unit(0, "ssl/s3_lib.c"));
        let mut new = old.clone();
        new.groups.push(words(&["-Iinclude", "-DGHASH_ASM", "-DMD5_ASM"]));
        for u in new.units.iter_mut().filter(|u| u.path.starts_with("providers/")) {
            u.group = 2;
        }
        let d = unit_defines(&old, &new);
        assert_eq!(
            d,
            [UnitDefines {
                dir: "providers/implementations/".into(),
                tops: vec![],
                units: 2,
                added: words(&["-DGHASH_ASM", "-DMD5_ASM"]),
                removed: vec![],
            }]
        );
        assert!(unit_defines(&new, &new).is_empty());
        assert_eq!(unit_defines(&new, &old)[0].removed, d[0].added);
        assert_eq!(common_dir(&["crypto/a.c", "ssl/b.c"]), "");
        let tops = top_dirs(&["ssl/a.c", "crypto/b.c", "crypto/ec/c.c", "e_os.c"]);
        assert_eq!(tops, [("crypto/".into(), 2), ("".into(), 1), ("ssl/".into(), 1)]);
        let spread = UnitDefines { dir: String::new(), tops, ..d[0].clone() };
        assert_eq!(spread.place(), "in `crypto/` (2), the top (1) and `ssl/` (1)");
        let old_report = UnitDefines { tops: vec![], ..spread };
        assert_eq!(old_report.place(), "in several directories");
        assert_eq!(common_dir(&["crypto/ec/a.c", "crypto/ecx.c"]), "crypto/");
    }

    #[test]
    fn a_configuration_not_generated_has_nothing_to_compare() {
        let (old, mut new) = sides();
        new.manifests.clear();
        let c = compare(&[x86("asm", None)], &old, &new, vec![]);
        let s = &c.sets[0];
        assert!(!s.generated && s.files.is_empty() && s.entry_points.removed.is_empty());
        let d = &c.configs[0];
        assert!(!d.generated && d.defines.removed.is_empty() && d.headers.removed.is_empty());
        let tfo = Disabled { feature: "tfo".into(), reason: "default".into() };
        assert_eq!(d.disabled.added, [tfo]);
    }

    #[test]
    fn the_oldest_assembler_follows_the_thresholds() {
        let (old, new) = sides();
        let c = compare(&[x86("asm", None)], &old, &new, vec![]);
        let gas = c.sets[0].assemblers.iter().find(|a| a.kind == "gas").unwrap();
        // Old: AVX2 (2.22), ADX/BMI2 (2.23). New: AVX-IFMA (2.40) over AVX-512 and VAES.
        assert_eq!(gas.old.min.as_deref(), Some("2.23"));
        assert_eq!((gas.new.min.as_deref(), &gas.new.set_by.0[..]), (Some("2.40"), &[AvxIfma][..]));
        let clang = c.sets[0].assemblers.iter().find(|a| a.kind == "clang").unwrap();
        assert_eq!(clang.old.unknown.0, [AdxBmi2], "the table has no clang version for ADX");
        assert!(
            c.sets[0].assemblers.iter().all(|a| a.kind != "nasm"),
            "linux has no nasm rendering"
        );
    }

    #[test]
    fn configuration_changes() {
        let (old, new) = sides();
        let c = compare(&[x86("asm", None)], &old, &new, vec![]);
        let d = &c.configs[0];
        assert_eq!(d.defines.added, ["-DNEW"]);
        assert_eq!(d.defines.removed, ["-DOLD"]);
        // md2 stays disabled (for another reason): no change.
        let off = |f: &str, r: &str| Disabled { feature: f.into(), reason: r.into() };
        assert_eq!(d.disabled.added, [off("tfo", "default")]);
        assert_eq!(d.disabled.removed, [off("ssl3", "option")]);
        assert_eq!(
            (&d.headers.added[..], d.headers.removed.len()),
            (&["include/openssl/b.h".to_string()][..], 0)
        );
        let unchanged = ConfigDiff { key: d.key.clone(), generated: true, ..ConfigDiff::default() };
        assert_eq!(config_diff("asm/linux-x86_64", &old, &old), unchanged);
    }

    #[test]
    fn a_variant_is_accepted_only_when_it_adds_c_and_no_finding_names_it() {
        let (old, new) = sides();
        let configs = [x86("asm", None), x86("asm", Some("ec_nistp_64_gcc_128"))];
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

    /// mingw64 renders each file twice; the report shows Configure's rendering, and the nasm
    /// one only where it changed otherwise.
    #[test]
    fn another_rendering_is_shown_only_where_it_differs() {
        let m = |sha_s: &str, sha_asm: &str| {
            manifest(
                &[
                    (asm("crypto/a.s", &[], &["a"]), sha_s),
                    (asm("crypto/a.asm", &[], &["a"]), sha_asm),
                    (asm("crypto/b.s", &[], &["b"]), "b"),
                    (asm("crypto/b.asm", &[], &["b"]), "b"),
                ],
                &[],
                &[],
            )
        };
        let key = "asm/mingw64".to_string();
        let side = |m: Manifest| Side { manifests: [(key.clone(), m)].into(), ..Side::default() };
        let cfg = config("mingw64", "asm", None);
        let both = compare(&[cfg], &side(m("1", "1")), &side(m("2", "2")), vec![]);
        let shown: Vec<&str> = both.sets[0].shown_files().map(|f| f.path.as_str()).collect();
        assert_eq!(shown, ["crypto/a.s"]);
        let nasm_only = compare(&[cfg], &side(m("1", "1")), &side(m("1", "2")), vec![]);
        let shown: Vec<&str> = nasm_only.sets[0].shown_files().map(|f| f.path.as_str()).collect();
        assert_eq!(shown, ["crypto/a.asm"]);
    }
}
