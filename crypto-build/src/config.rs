//! The build's configuration, read from the environment in this module only. Every variable is
//! declared once, typed, and announces itself with `rerun-if-env-changed`.

use crate::data::{self, AsmSet, CVariant, Date, OpensslLine, Target};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;

/// What the user asked for: the best set per file, or one set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetChoice {
    Auto,
    Named(&'static AsmSet),
}

impl SetChoice {
    pub fn parse(s: &str) -> Result<SetChoice> {
        match s {
            "auto" | "" => Ok(SetChoice::Auto),
            name => Ok(SetChoice::Named(data::set_by_name(name)?)),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            SetChoice::Auto => "auto",
            SetChoice::Named(s) => s.name,
        }
    }
}

/// Which C variant the user asked for: the best one the C compiler passes, none, or one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VariantChoice {
    Auto,
    None,
    Named(&'static CVariant),
}

impl VariantChoice {
    pub fn parse(s: &str) -> Result<VariantChoice> {
        match s {
            "auto" | "" => Ok(VariantChoice::Auto),
            data::NO_C_VARIANT => Ok(VariantChoice::None),
            name => Ok(VariantChoice::Named(data::variant_by_name(name)?)),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            VariantChoice::Auto => "auto",
            VariantChoice::None => data::NO_C_VARIANT,
            VariantChoice::Named(v) => v.name,
        }
    }
}

/// The assembler the user asked for, instead of the one behind the C compiler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssemblerChoice {
    Gas,
    Clang,
    Nasm,
}

impl AssemblerChoice {
    /// Every choice, in the order messages and `--help` list them.
    pub const ALL: [AssemblerChoice; 3] =
        [AssemblerChoice::Gas, AssemblerChoice::Clang, AssemblerChoice::Nasm];

    pub fn parse(s: &str) -> Result<Option<AssemblerChoice>> {
        if s.is_empty() {
            return Ok(None);
        }
        match AssemblerChoice::ALL.into_iter().find(|a| a.name() == s) {
            Some(a) => Ok(Some(a)),
            None => {
                let names: Vec<&str> = AssemblerChoice::ALL.iter().map(|a| a.name()).collect();
                bail!("unknown assembler `{s}`; accepted: {}", names.join(", "))
            }
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            AssemblerChoice::Gas => "gas",
            AssemblerChoice::Clang => "clang",
            AssemblerChoice::Nasm => "nasm",
        }
    }
}

/// Everything crypto-sys's build script needs to know from cargo and the user.
#[derive(Debug, Clone)]
pub struct BuildConfig {
    pub triple: String,
    pub target: &'static Target,
    /// The OpenSSL line built: the default, or the one a crypto-sys feature chose.
    pub line: &'static OpensslLine,
    pub choice: SetChoice,
    pub variant: VariantChoice,
    pub strict: bool,
    pub allow_downgrade: bool,
    pub assembler: Option<AssemblerChoice>,
    /// nasm's path, when NASM names it (nasm-rs reads the same variable).
    pub nasm: Option<PathBuf>,
    pub out_dir: PathBuf,
    /// Where the `asm/`, `asm_avx2/` and `no_asm/` directories are.
    pub sets_root: PathBuf,
    /// Whether `sets_root` is the `sets/` a published package carries (never generated into).
    pub packaged: bool,
    /// Where the crate's own `generate.lock` is (the workspace, or a package's `sets/`): every
    /// set is checked against it, wherever `sets_root` points.
    pub lock_dir: PathBuf,
    pub jobs: usize,
    /// Whether the legacy provider is built in: crypto-sys's `legacy` feature (default).
    pub legacy: bool,
    /// Whether the `openssl` program is linked too (`OUT_DIR/bin`).
    pub apps: bool,
    /// Whether the FIPS provider module is linked too (`OUT_DIR/lib/ossl-modules`):
    /// crypto-sys's `fips` feature, or the caller's word without cargo.
    pub fips: bool,
    /// OPENSSLDIR, when not the one the sets were configured with (an absolute path).
    pub openssldir: Option<String>,
    /// The build's notion of today, for the line's support date ([`today`]).
    pub today: Date,
    /// Releases known newer than a line's: the crate's list, and [`KNOWN_RELEASES_VAR`]'s file.
    pub known_releases: Vec<data::KnownRelease>,
    /// The C compiler the user named for the target, as cc reads it ([`named_cc`]): (the
    /// variable, its value); `None` where cc takes its default.
    pub cc_named: Option<(String, String)>,
    /// crypto-sys's versioned symbol prefix (its build only: the patch crate's and a prefix's
    /// libraries keep OpenSSL's names); `None` where [`SYMBOL_PREFIX_VAR`] turns it off.
    pub symbol_prefix: Option<crate::symbols::Prefix>,
}

/// Environment variables a user may set, with what they accept.
pub const ASM_SET_VAR: &str = "CRYPTO_SYS_ASM_SET";
pub const C_VARIANT_VAR: &str = "CRYPTO_SYS_C_VARIANT";
pub const STRICT_VAR: &str = "CRYPTO_SYS_STRICT";
pub const ALLOW_DOWNGRADE_VAR: &str = "CRYPTO_SYS_ALLOW_DOWNGRADE";
pub const ASSEMBLER_VAR: &str = "CRYPTO_SYS_ASSEMBLER";
pub const SETS_DIR_VAR: &str = "CRYPTO_SYS_SETS_DIR";
pub const NASM_VAR: &str = "NASM";
pub const APPS_VAR: &str = "CRYPTO_SYS_APPS";
pub const SYMBOL_PREFIX_VAR: &str = "CRYPTO_SYS_SYMBOL_PREFIX";
pub const OPENSSLDIR_VAR: &str = "CRYPTO_SYS_OPENSSLDIR";
pub const KNOWN_RELEASES_VAR: &str = "CRYPTO_SYS_KNOWN_RELEASES";
/// cc's own: the C compiler, also as `CC_<triple>` and `TARGET_CC` ([`named_cc`]).
pub const CC_VAR: &str = "CC";
pub const TARGET_CC_VAR: &str = "TARGET_CC";
pub const OPENSSL_LINE_VAR: &str = "CRYPTO_SYS_OPENSSL_LINE";
/// The reproducible-builds convention for a build's notion of now (seconds since the epoch).
pub const SOURCE_DATE_EPOCH_VAR: &str = "SOURCE_DATE_EPOCH";
/// Set by cargo when crypto-sys's `legacy` feature is on.
const LEGACY_FEATURE_VAR: &str = "CARGO_FEATURE_LEGACY";
const FIPS_FEATURE_VAR: &str = "CARGO_FEATURE_FIPS";

/// Where the user's variables are read: the process's environment (under cargo, each one
/// announced so that changing it reruns the build script), or a table (the fuzz tests).
#[derive(Clone, Copy)]
pub(crate) struct Vars<'a> {
    cargo: bool,
    table: Option<&'a [(&'a str, &'a str)]>,
}

impl Vars<'_> {
    const ENV: Vars<'static> = Vars { cargo: false, table: None };
    const CARGO: Vars<'static> = Vars { cargo: true, table: None };

    /// The variables of `table` only, as without cargo.
    #[cfg(test)]
    pub(crate) fn table<'a>(table: &'a [(&'a str, &'a str)]) -> Vars<'a> {
        Vars { cargo: false, table: Some(table) }
    }

    /// A variable's value; one holding a control character (a line break, a tab) is refused,
    /// so that every message quoting it stays one line.
    fn get(&self, name: &str) -> Result<Option<String>> {
        let value = match self.table {
            Some(table) => table.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string()),
            None => {
                if self.cargo {
                    println!("cargo:rerun-if-env-changed={name}");
                }
                std::env::var(name).ok()
            }
        };
        if let Some(v) = value.as_deref().filter(|v| v.contains(char::is_control)) {
            bail!("{name}={v:?} holds a control character");
        }
        Ok(value)
    }

    /// Whether cargo set one of its own variables (never announced: cargo sets them).
    fn is_set(&self, name: &str) -> bool {
        match self.table {
            Some(table) => table.iter().any(|(n, _)| *n == name),
            None => std::env::var_os(name).is_some(),
        }
    }
}

/// The cargo running the build, to build crypto-gen's binary with in crypto-sys's repository
/// (`gen_tool`); `cargo` from PATH outside a build script.
pub fn cargo_program() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

fn cargo_var(name: &str) -> Result<String> {
    std::env::var(name).with_context(|| format!("cargo did not set {name}; run through cargo"))
}

/// crypto-sys's symbol prefix for a target: its `links` key and `_`, the key checked to be its
/// version's (`symbols::links_key`), so that a version bump moves both.
pub fn crypto_sys_prefix(
    target: &Target,
    name: &str,
    version: &str,
    links: &str,
) -> Result<crate::symbols::Prefix> {
    let expected = crate::symbols::links_key(name, version);
    if links != expected {
        bail!(
            "{name} {version}'s `links` key is `{links}`, not its version's `{expected}`: set \
             `links = \"{expected}\"` in its Cargo.toml, as the symbol prefix is named after \
             the version too"
        );
    }
    Ok(crate::symbols::Prefix { prefix: format!("{links}_"), decoration: target.symbol_prefix })
}

/// `CRYPTO_SYS_ASM_SET_<triple with underscores>` wins over `CRYPTO_SYS_ASM_SET`.
pub fn per_target_var(base: &str, triple: &str) -> String {
    format!("{base}_{}", triple.replace(['-', '.'], "_"))
}

/// The per-target form of `base` if set, else `base`: (variable name, value).
fn per_target_or_plain(vars: Vars, base: &str, triple: &str) -> Result<Option<(String, String)>> {
    let specific = per_target_var(base, triple);
    Ok(match vars.get(&specific)? {
        Some(v) => Some((specific, v)),
        None => vars.get(base)?.map(|v| (base.to_string(), v)),
    })
}

/// The C compiler named for `triple`, as cc looks for it (a cross build's variables: the
/// first set of `CC_<triple>`, `CC_<triple with underscores>`, `TARGET_CC` and `CC`, whose
/// value empty means cc's default): (the variable, its value), or `None`.
fn named_cc(vars: Vars, triple: &str) -> Result<Option<(String, String)>> {
    let names = [
        format!("{CC_VAR}_{triple}"),
        per_target_var(CC_VAR, triple),
        TARGET_CC_VAR.to_string(),
        CC_VAR.to_string(),
    ];
    for name in names {
        if let Some(v) = vars.get(&name)? {
            let v = v.trim().to_string();
            return Ok((!v.is_empty()).then_some((name, v)));
        }
    }
    Ok(None)
}

/// The spellings of a boolean variable (unset and empty are false too).
pub const TRUE: [&str; 3] = ["1", "true", "yes"];
pub const FALSE: [&str; 3] = ["0", "false", "no"];

/// Today, as a build sees it: SOURCE_DATE_EPOCH's day when set (the reproducible-builds
/// convention), else the system clock's. Only a warning depends on it, never the bytes built.
pub fn today() -> Result<Date> {
    read_today(Vars::ENV)
}

fn read_today(vars: Vars) -> Result<Date> {
    match vars.get(SOURCE_DATE_EPOCH_VAR)?.filter(|v| !v.is_empty()) {
        Some(v) => {
            let secs: i64 = v.trim().parse().with_context(|| {
                format!("{SOURCE_DATE_EPOCH_VAR}=`{v}` is not a number of seconds since 1970")
            })?;
            Ok(Date::from_unix(secs))
        }
        None => {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
            let secs = now.context("the system clock is before 1970")?.as_secs();
            Ok(Date::from_unix(i64::try_from(secs).unwrap_or(i64::MAX)))
        }
    }
}

impl BuildConfig {
    /// The line's warnings, one line each: past its support, behind a newer release.
    pub fn line_warnings(&self) -> Vec<String> {
        let past = self.line.support_warning(self.today);
        past.into_iter().chain(self.line.behind_warning(&self.known_releases)).collect()
    }
}

/// The crate's list of releases newer than a line's, and the file the variable names (a list
/// newer than the crate's), which must exist and read.
fn read_known_releases(vars: Vars) -> Result<Vec<data::KnownRelease>> {
    let mut known = data::known_releases()?;
    if let Some(file) = vars.get(KNOWN_RELEASES_VAR)?.filter(|v| !v.is_empty()) {
        if vars.cargo {
            println!("cargo:rerun-if-changed={file}");
        }
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("{KNOWN_RELEASES_VAR}={file}: reading it"))?;
        let more = data::parse_releases(&text).with_context(|| {
            format!("{KNOWN_RELEASES_VAR}={file} is not in {}'s format", data::RELEASES_FILE)
        })?;
        known.extend(more);
    }
    Ok(known)
}

pub fn parse_bool(name: &str, value: &str) -> Result<bool> {
    if TRUE.contains(&value) {
        Ok(true)
    } else if value.is_empty() || FALSE.contains(&value) {
        Ok(false)
    } else {
        let accepted = [TRUE, FALSE].concat().join(", ");
        bail!("{name}=`{value}` is not valid; accepted: {accepted}")
    }
}

impl BuildConfig {
    /// For crypto-sys's build script: cargo's variables, and the user's.
    pub fn from_cargo_env() -> Result<BuildConfig> {
        let jobs = std::env::var("NUM_JOBS").ok().and_then(|n| n.parse().ok()).unwrap_or(2);
        BuildConfig::read(
            Vars::CARGO,
            cargo_var("TARGET")?,
            PathBuf::from(cargo_var("OUT_DIR")?),
            crate::crate_dir(),
            jobs,
            crypto_sys_line(Vars::CARGO)?,
        )
        .and_then(BuildConfig::with_symbol_prefix)
    }

    /// crypto-sys's prefix, from its `links` key, which must be its version's
    /// (`symbols::links_key`): the key keeps two versions of crypto-sys apart in cargo's graph,
    /// the prefix in the binary, so the two move together.
    fn with_symbol_prefix(mut self) -> Result<BuildConfig> {
        let vars = Vars::CARGO;
        let on = vars.get(SYMBOL_PREFIX_VAR)?;
        let on = on.map_or(Ok(true), |v| parse_bool(SYMBOL_PREFIX_VAR, &v))?;
        let (name, version) = (cargo_var("CARGO_PKG_NAME")?, cargo_var("CARGO_PKG_VERSION")?);
        let links = cargo_var("CARGO_MANIFEST_LINKS")?;
        let prefix = crypto_sys_prefix(self.target, &name, &version, &links)?;
        self.symbol_prefix = on.then_some(prefix);
        Ok(self)
    }

    /// For a caller that names the target and OUT_DIR itself (the `openssl-src` patch crate,
    /// run by openssl-sys's build script): the line of its feature (`by_feature`) or of
    /// [`OPENSSL_LINE_VAR`], the user's variables announced to cargo as for crypto-sys, the
    /// legacy provider as the caller says.
    pub fn for_caller(
        triple: &str,
        out_dir: PathBuf,
        legacy: bool,
        by_feature: Option<&'static OpensslLine>,
    ) -> Result<BuildConfig> {
        let jobs = std::env::var("NUM_JOBS").ok().and_then(|n| n.parse().ok()).unwrap_or(2);
        let dir = crate::crate_dir();
        let line = patch_line_of(Vars::CARGO, by_feature)?;
        let mut config = BuildConfig::read(Vars::CARGO, triple.into(), out_dir, dir, jobs, line)?;
        config.legacy = legacy;
        Ok(config)
    }

    /// For `cargo xtask build --target`, which runs the same pipeline without cargo (for a
    /// target whose Rust std is not installed): the same user variables, nothing announced.
    pub fn for_target(
        triple: &str,
        out_dir: PathBuf,
        manifest_dir: &std::path::Path,
        jobs: usize,
        line: &'static OpensslLine,
    ) -> Result<BuildConfig> {
        BuildConfig::read(Vars::ENV, triple.to_string(), out_dir, manifest_dir, jobs, line)
    }

    pub(crate) fn read(
        vars: Vars,
        triple: String,
        out_dir: PathBuf,
        manifest_dir: &std::path::Path,
        jobs: usize,
        line: &'static OpensslLine,
    ) -> Result<BuildConfig> {
        let var = |name: &str| vars.get(name);
        let target = data::target_for(&triple)?;
        line.check_target(target.name)?;
        let choice = match per_target_or_plain(vars, ASM_SET_VAR, &triple)? {
            Some((name, v)) => SetChoice::parse(&v).with_context(|| format!("{name}={v}"))?,
            None => SetChoice::Auto,
        };
        let variant = match per_target_or_plain(vars, C_VARIANT_VAR, &triple)? {
            Some((name, v)) => VariantChoice::parse(&v).with_context(|| format!("{name}={v}"))?,
            None => VariantChoice::Auto,
        };
        let flag = |name: &str| var(name)?.map_or(Ok(false), |v| parse_bool(name, &v));
        let strict = flag(STRICT_VAR)?;
        let apps = flag(APPS_VAR)?;
        // Without cargo (`xtask build --target`) the caller says; on by default as under cargo.
        let legacy = !vars.cargo || vars.is_set(LEGACY_FEATURE_VAR);
        let fips = vars.cargo && vars.is_set(FIPS_FEATURE_VAR);
        let allow_downgrade = flag(ALLOW_DOWNGRADE_VAR)?;
        let assembler = match var(ASSEMBLER_VAR)? {
            Some(v) => {
                AssemblerChoice::parse(&v).with_context(|| format!("{ASSEMBLER_VAR}={v}"))?
            }
            None => None,
        };
        let openssldir = match var(OPENSSLDIR_VAR)?.filter(|v| !v.is_empty()) {
            Some(v) => Some(crate::openssldir::check(&v).map(|()| v).context(OPENSSLDIR_VAR)?),
            None => None,
        };
        let today = read_today(vars)?;
        let known_releases = read_known_releases(vars)?;
        let cc_named = named_cc(vars, &triple)?;
        let (lock_dir, packaged) = default_sets_root(manifest_dir);
        // Packaged, each line's sets are its package's `sets/` (crypto-build's, or the line's
        // sets crate's); in the workspace, the line's root.
        let lock_dir = match packaged {
            true => crate::packed::package_sets(line)?,
            false => line.root(&lock_dir),
        };
        let (sets_root, packaged) = match var(SETS_DIR_VAR)?.filter(|d| !d.is_empty()) {
            Some(dir) => (line.root(&existing_sets_dir(&dir)?), false),
            None => (lock_dir.clone(), packaged),
        };
        Ok(BuildConfig {
            triple,
            target,
            line,
            choice,
            variant,
            strict,
            allow_downgrade,
            assembler,
            nasm: var(NASM_VAR)?.filter(|v| !v.is_empty()).map(PathBuf::from),
            out_dir,
            sets_root,
            packaged,
            lock_dir,
            jobs,
            legacy,
            apps,
            fips,
            openssldir,
            today,
            known_releases,
            cc_named,
            symbol_prefix: None,
        })
    }
}

/// What cargo tells a build script about its own build, as openssl-src's `Build::new` reads
/// it: for the `openssl-src` patch crate, run by openssl-sys's build script. Each is `None`
/// outside a build script (a program calling `Build` names them itself).
#[derive(Debug, Clone, Default)]
pub struct CallerEnv {
    pub target: Option<String>,
    pub host: Option<String>,
    pub out_dir: Option<PathBuf>,
    /// The calling build script's package: (name, version), to refuse an openssl-sys too old
    /// for the line built.
    pub package: Option<(String, String)>,
}

impl CallerEnv {
    pub fn from_env() -> CallerEnv {
        let name = std::env::var("CARGO_PKG_NAME").ok();
        let version = std::env::var("CARGO_PKG_VERSION").ok();
        CallerEnv {
            target: std::env::var("TARGET").ok(),
            host: std::env::var("HOST").ok(),
            out_dir: std::env::var_os("OUT_DIR").map(PathBuf::from),
            package: name.zip(version),
        }
    }
}

/// A `CRYPTO_SYS_SETS_DIR` must exist. Creating it silently would turn a typo into a fresh
/// directory and minutes of perl generating into it; creating it by hand is the opt-in.
fn existing_sets_dir(dir: &str) -> Result<PathBuf> {
    let path = PathBuf::from(dir);
    if !path.is_dir() {
        bail!(
            "{SETS_DIR_VAR}={dir}: no such directory; create it (the build then generates the \
             sets it needs there, which takes perl) or unset {SETS_DIR_VAR} to use crypto-sys's own"
        );
    }
    Ok(path)
}

impl BuildConfig {
    /// How to repair the sets under `sets_root`, for messages.
    pub fn regenerate_hint(&self) -> String {
        if self.packaged {
            "this package is damaged; reinstall it (packages are made by `cargo xtask package`)"
                .into()
        } else if self.sets_root == self.lock_dir {
            "regenerate them with `cargo xtask generate`".into()
        } else {
            format!(
                "regenerate them with `cargo xtask generate --root {}`, or unset {SETS_DIR_VAR}",
                self.sets_root.display()
            )
        }
    }
}

/// The line crypto-sys's features choose (cargo sets `CARGO_FEATURE_<NAME>` for each one on);
/// `None` when none does.
fn line_of_features() -> Result<Option<&'static OpensslLine>> {
    let on = |feature: &str| {
        let var = format!("CARGO_FEATURE_{}", feature.to_uppercase().replace('-', "_"));
        std::env::var_os(var).is_some()
    };
    let chosen: Vec<&'static OpensslLine> =
        data::OPENSSL_LINES.iter().filter(|l| l.feature().is_some_and(|f| on(&f))).collect();
    match chosen[..] {
        [] => Ok(None),
        [line] => Ok(Some(line)),
        _ => {
            let features: Vec<String> = chosen.iter().filter_map(|l| l.feature()).collect();
            bail!(
                "crypto-sys's features {} each choose an OpenSSL line; enable one",
                features.join(", ")
            )
        }
    }
}

/// The line [`OPENSSL_LINE_VAR`] names, if set (empty is unset).
fn line_of_var(vars: Vars) -> Result<Option<&'static OpensslLine>> {
    match vars.get(OPENSSL_LINE_VAR)?.filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) => match data::OPENSSL_LINES.iter().find(|l| l.name() == v) {
            Some(line) => Ok(Some(line)),
            None => bail!(
                "{OPENSSL_LINE_VAR}=`{v}` is not valid; accepted: {}",
                Accepts::Line.values().join(", ")
            ),
        },
    }
}

/// crypto-sys's line: its feature's; the variable, which the patch crate follows, may only name
/// the same one (crypto-sys's bindings are its feature's line's).
fn crypto_sys_line(vars: Vars) -> Result<&'static OpensslLine> {
    let line = line_of_features()?.unwrap_or(data::DEFAULT_LINE);
    match line_of_var(vars)? {
        Some(named) if named != line => bail!(
            "{OPENSSL_LINE_VAR}={} names OpenSSL {}, but crypto-sys builds {} (its line is its \
             feature's{}): turn on the feature of the line the patch builds, so that one binary \
             links one OpenSSL",
            named.name(),
            named.version,
            line.version,
            named.feature().map_or(String::new(), |f| format!(": `{f}`"))
        ),
        _ => Ok(line),
    }
}

/// The line the `openssl-src` patch crate builds: its feature's (`by_feature`), else the
/// variable's, else the default; the two naming different lines is an error.
pub fn patch_line(by_feature: Option<&'static OpensslLine>) -> Result<&'static OpensslLine> {
    patch_line_of(Vars::ENV, by_feature)
}

fn patch_line_of(
    vars: Vars,
    by_feature: Option<&'static OpensslLine>,
) -> Result<&'static OpensslLine> {
    match (by_feature, line_of_var(vars)?) {
        (Some(f), Some(v)) if f != v => bail!(
            "the openssl-src patch's `{}` feature chooses OpenSSL {}, but {OPENSSL_LINE_VAR}={} \
             names {}: keep one",
            f.feature().unwrap_or_default(),
            f.version,
            v.name(),
            v.version
        ),
        (Some(line), _) | (None, Some(line)) => Ok(line),
        (None, None) => Ok(data::DEFAULT_LINE),
    }
}

/// In the workspace the sets sit beside crypto-build (and crypto-sys); a packaged crypto-build
/// carries them inside, for crypto-sys and the `openssl-src` patch crate alike.
fn default_sets_root(manifest_dir: &std::path::Path) -> (PathBuf, bool) {
    let workspace = manifest_dir.parent().map(|p| p.to_path_buf());
    match workspace {
        Some(w) if data::DEFAULT_LINE.root(&w).join(crate::lock::FILE_NAME).exists() => (w, false),
        _ => (manifest_dir.join("sets"), true),
    }
}

/// Who sets a variable the build reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetBy {
    /// The user, for a cargo build; `cargo xtask build`'s options set most of them.
    User,
    /// Cargo, for every build script.
    Cargo,
    /// `cargo xtask build`, for the build it runs.
    Xtask,
}

/// What a variable accepts: a table's names, a boolean, or what its meaning says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accepts {
    /// `auto` or a set of `data::SETS`.
    Set,
    /// `auto`, `none` or a variant of `data::C_VARIANTS`.
    CVariant,
    /// One of [`AssemblerChoice::ALL`].
    Assembler,
    /// An OpenSSL line's name (`data::OPENSSL_LINES`).
    Line,
    /// [`TRUE`] or [`FALSE`].
    Bool,
    /// Free text, described by the meaning.
    Text,
}

impl Accepts {
    /// The values, in the order error messages list them; none for [`Accepts::Text`].
    pub fn values(self) -> Vec<&'static str> {
        match self {
            Accepts::Set => [&["auto"][..], &data::set_names()].concat(),
            Accepts::CVariant => {
                let named = data::C_VARIANTS.iter().map(|v| v.name);
                ["auto", data::NO_C_VARIANT].into_iter().chain(named).collect()
            }
            Accepts::Assembler => AssemblerChoice::ALL.iter().map(|a| a.name()).collect(),
            Accepts::Line => data::OPENSSL_LINES.iter().map(|l| l.name()).collect(),
            Accepts::Bool => [TRUE, FALSE].concat(),
            Accepts::Text => vec![],
        }
    }
}

/// A variable the build reads. docs/configuration.md's tables are rendered from [`VARS`] (`cargo
/// xtask docs`), and a test finds every variable crypto-build's code reads among its rows.
#[derive(Debug, Clone, Copy)]
pub struct Var {
    /// Its name; `<…>` stands for a part that varies (`CARGO_FEATURE_<FEATURE>`).
    pub name: &'static str,
    pub set_by: SetBy,
    /// `NAME_<triple with underscores>` is read too, and wins over `NAME` ([`per_target_var`]).
    pub per_target: bool,
    pub accepts: Accepts,
    /// What unset means.
    pub default: &'static str,
    pub meaning: &'static str,
}

impl Var {
    /// Whether `name` is this variable, or a name its pattern stands for.
    pub fn matches(&self, name: &str) -> bool {
        match self.name.split_once('<') {
            Some((prefix, _)) => name.starts_with(prefix) && name.len() > prefix.len(),
            None => self.name == name,
        }
    }
}

/// Every variable the build reads, the user's first.
#[rustfmt::skip]
pub const VARS: &[Var] = &[
    Var { name: ASM_SET_VAR, set_by: SetBy::User, per_target: true, accepts: Accepts::Set, default: "`auto`",
          meaning: "The asm set. `auto` takes, file by file, the fastest set the assembler can assemble; a named set is taken whole, and one the assembler cannot fully assemble is an error naming the files and the missing features" },
    Var { name: C_VARIANT_VAR, set_by: SetBy::User, per_target: true, accepts: Accepts::CVariant, default: "`auto`",
          meaning: "The C variant. `auto` takes the first whose probe the C compiler passes (a failed probe is a downgrade); `none` is OpenSSL's default C configuration; a target that refuses a variant says why" },
    Var { name: ASSEMBLER_VAR, set_by: SetBy::User, per_target: false, accepts: Accepts::Assembler, default: "the C compiler's; nasm for MSVC",
          meaning: "The assembler, instead of the one behind the C compiler; `nasm` for targets with a nasm rendering (Windows). Its probes decide, never its version banner" },
    Var { name: NASM_VAR, set_by: SetBy::User, per_target: false, accepts: Accepts::Text, default: "`nasm` on `PATH`",
          meaning: "The nasm to run, when nasm assembles (nasm-rs reads it too). Missing when nasm is asked for, or too old for AVX2: an error naming how to install it" },
    Var { name: CC_VAR, set_by: SetBy::User, per_target: true, accepts: Accepts::Text, default: "cc's: the target's own compiler; for an `-msvc` triple off Windows, clang run as clang-cl",
          meaning: "The C compiler, read by cc (as `CC_<triple>` too, which wins). The build reads it to tell a named compiler from cc's default: for an `-msvc` triple it must be MSVC-mode (cl.exe, or clang-cl such as `clang-19 --driver-mode=cl`), else the build is refused in one line" },
    Var { name: TARGET_CC_VAR, set_by: SetBy::User, per_target: false, accepts: Accepts::Text, default: "unset",
          meaning: "cc's C compiler of a cross build, between `CC_<triple>` and `CC`; read as `CC` is" },
    Var { name: STRICT_VAR, set_by: SetBy::User, per_target: false, accepts: Accepts::Bool, default: "`0`",
          meaning: "Under `auto`, any downgrade (an asm file from a slower set, no C variant, a whole arm set to `no_asm`) is an error instead of one warning line; so is a line behind a release known to fix security issues" },
    Var { name: ALLOW_DOWNGRADE_VAR, set_by: SetBy::User, per_target: false, accepts: Accepts::Bool, default: "`0`",
          meaning: "A named set may fall back file by file, and a named C variant to none, each reported in one warning line" },
    Var { name: APPS_VAR, set_by: SetBy::User, per_target: false, accepts: Accepts::Bool, default: "`0`",
          meaning: "Also compile OpenSSL's `apps/` and link the `openssl` program into `OUT_DIR/bin`" },
    Var { name: SYMBOL_PREFIX_VAR, set_by: SetBy::User, per_target: false, accepts: Accepts::Bool, default: "`1`",
          meaning: "crypto-sys's symbols under its versioned prefix (its `links` key and `_`: `crypto_sys_0_1_0_EVP_sha256`), so that it lives beside any other OpenSSL in one binary; `0` links OpenSSL's own names, which another OpenSSL in the binary then mixes with (the coexistence test's control). The `openssl-src` patch crate and an installed prefix keep OpenSSL's names either way" },
    Var { name: OPENSSLDIR_VAR, set_by: SetBy::User, per_target: false, accepts: Accepts::Text, default: "`/usr/local/ssl`, as the sets were configured",
          meaning: "OPENSSLDIR, an absolute path: where OpenSSL looks for `openssl.cnf`, certificates and keys. Only the units that use it are compiled again" },
    Var { name: OPENSSL_LINE_VAR, set_by: SetBy::User, per_target: false, accepts: Accepts::Line, default: "the line of the crate's features: the default without one",
          meaning: "The OpenSSL line the `openssl-src` patch crate builds, for a project that cannot turn on the patch's `openssl-3-5` feature (a patched crate's features are its dependents'), through a path or git patch (a packaged patch needs the feature, which brings the line's source crate); a feature that chooses another line is an error. crypto-sys's line is its feature's: a build of crypto-sys that this names another line for is refused, so that one binary links one OpenSSL" },
    Var { name: SETS_DIR_VAR, set_by: SetBy::User, per_target: false, accepts: Accepts::Text, default: "crypto-build's own: the workspace's, or its package's `sets/`",
          meaning: "Where the set directories are, laid out as the workspace lays them (the line's in `DIR/lines/openssl-X.Y/`): an existing directory (create it: in crypto-sys's repository the build generates the sets it needs there, with perl; a packaged crypto-sys needs them made by `cargo xtask generate --root DIR`). Its sets must match crypto-sys's own `generate.lock`" },
    Var { name: SOURCE_DATE_EPOCH_VAR, set_by: SetBy::User, per_target: false, accepts: Accepts::Text, default: "the system clock",
          meaning: "The build's today, in seconds since 1970 (the reproducible-builds convention): a line past its end of support prints one warning line; nothing built depends on it" },
    Var { name: KNOWN_RELEASES_VAR, set_by: SetBy::User, per_target: false, accepts: Accepts::Text, default: "unset: the crate's own list only",
          meaning: "A file of OpenSSL releases known to be newer than a line's, in the format of crypto-build's `src/data/releases.tsv`, read beside the crate's own list: a build of a line behind one prints one warning line naming it, an error under `CRYPTO_SYS_STRICT` when it fixes security issues" },
    Var { name: "PATH", set_by: SetBy::User, per_target: false, accepts: Accepts::Text, default: "",
          meaning: "Where generation (crypto-gen's binary) finds perl and make: only a build in crypto-sys's repository that lacks a set generates it" },
    Var { name: crate::progress::PROGRESS_VAR, set_by: SetBy::Xtask, per_target: false, accepts: Accepts::Text, default: "nothing is written",
          meaning: "A file the build script keeps its phase and counts in, which `cargo xtask build` shows as the build goes" },
    Var { name: "TARGET", set_by: SetBy::Cargo, per_target: false, accepts: Accepts::Text, default: "",
          meaning: "The Rust target triple built for: its row of the target table; a triple the table lacks is an error naming the nearest row" },
    Var { name: "OUT_DIR", set_by: SetBy::Cargo, per_target: false, accepts: Accepts::Text, default: "",
          meaning: "Where the build writes its objects, libraries, headers and facts" },
    Var { name: "HOST", set_by: SetBy::Cargo, per_target: false, accepts: Accepts::Text, default: "",
          meaning: "The `openssl-src` patch crate only (its `Build::new`, as openssl-src's): the host triple, for cc" },
    Var { name: "CARGO_PKG_NAME", set_by: SetBy::Cargo, per_target: false, accepts: Accepts::Text, default: "",
          meaning: "The package whose build script runs the build: crypto-sys (its symbol prefix is named after it and `CARGO_PKG_VERSION`), or, for the `openssl-src` patch crate, its caller, whose version an openssl-sys too old for the line built is refused by" },
    Var { name: "CARGO_PKG_VERSION", set_by: SetBy::Cargo, per_target: false, accepts: Accepts::Text, default: "",
          meaning: "That package's version" },
    Var { name: "CARGO_MANIFEST_LINKS", set_by: SetBy::Cargo, per_target: false, accepts: Accepts::Text, default: "",
          meaning: "crypto-sys's `links` key, its symbol prefix without the last `_`; a key that is not its version's is refused in one line" },
    Var { name: "CARGO", set_by: SetBy::Cargo, per_target: false, accepts: Accepts::Text, default: "`cargo`",
          meaning: "In crypto-sys's repository only (a clone, a git or path dependency): the cargo that builds crypto-gen's binary, which makes a source tree or a set a fresh clone lacks" },
    Var { name: "NUM_JOBS", set_by: SetBy::Cargo, per_target: false, accepts: Accepts::Text, default: "`2`",
          meaning: "How many compiles run at once, at most (a jobserver's tokens bound them too)" },
    Var { name: "CARGO_FEATURE_<FEATURE>", set_by: SetBy::Cargo, per_target: false, accepts: Accepts::Text, default: "",
          meaning: "crypto-sys's features that are on: `legacy`, and the one choosing an OpenSSL line" },
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Another line is refused, in one line that names it, for a target it has no sets
    /// for; a package holds its sets in its sets crate's `sets/`.
    #[test]
    // generated by `cargo xtask lines`: other-lines-test
    #[cfg_attr(
        not(all(feature = "openssl-3-5")),
        ignore = "the other lines' crates come with their features, which `cargo test --workspace` turns on"
    )]
    // end of other-lines-test
    fn a_line_builds_only_its_targets_and_from_a_package_its_own_sets() {
        let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
        let other = data::OPENSSL_LINES.iter().find(|l| !l.default).expect("a second line");
        let crate_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let out = tempfile::tempdir().unwrap();
        let read = |triple: &str, manifest_dir: &std::path::Path| {
            let out_dir = out.path().to_path_buf();
            BuildConfig::read(Vars::ENV, triple.into(), out_dir, manifest_dir, 1, other)
        };
        // Every line has every target's sets; a line naming its targets refuses the others.
        let arm =
            read("aarch64-unknown-linux-gnu", &crate_dir.parent().unwrap().join("crypto-sys"));
        assert_eq!(arm.unwrap().target.name, "linux-aarch64");
        let partial = data::OpensslLine { targets: Some(&["linux-x86_64"]), ..*other };
        let e = partial.check_target("linux-aarch64").unwrap_err().to_string();
        let named = format!("OpenSSL {}", other.version);
        assert!(e.contains(&named) && e.contains("linux-x86_64 only"), "{e}");
        let packaged = tempfile::tempdir().unwrap();
        let p = read("x86_64-unknown-linux-gnu", packaged.path()).unwrap();
        let sets = crate::packed::package_sets(other).unwrap();
        assert!(sets.ends_with(format!("{}/sets", other.dir())), "{}", sets.display());
        assert_eq!((p.packaged, &p.lock_dir, &p.sets_root), (true, &sets, &sets));
        let c = read("x86_64-unknown-linux-gnu", &crate_dir.parent().unwrap().join("crypto-sys"));
        let c = c.unwrap();
        assert_eq!((c.line.version, c.packaged), (other.version, false));
        let dir = format!("openssl-{}", other.name());
        assert!(c.lock_dir.ends_with(&dir) && c.sets_root == c.lock_dir, "{dir}");
    }

    /// The patch's line: its feature's, else the variable's, else the default; the two
    /// naming different lines, or a line the table lacks, refused in one line. crypto-sys's
    /// is its feature's, which the variable may only repeat.
    #[test]
    fn the_patch_follows_its_feature_or_the_variable_and_crypto_sys_its_feature() {
        let other = data::OPENSSL_LINES.iter().find(|l| !l.default).expect("a second line");
        let var = |v: &str| [(OPENSSL_LINE_VAR, v.to_string())];
        let of = |vars: &[(&str, String)], feature| {
            let table: Vec<(&str, &str)> = vars.iter().map(|(n, v)| (*n, v.as_str())).collect();
            patch_line_of(Vars::table(&table), feature).map_err(|e| e.to_string())
        };
        assert_eq!(of(&[], None).unwrap(), data::DEFAULT_LINE);
        assert_eq!(of(&var(""), None).unwrap(), data::DEFAULT_LINE);
        assert_eq!(of(&var(other.name()), None).unwrap(), other);
        assert_eq!(of(&[], Some(other)).unwrap(), other);
        assert_eq!(of(&var(other.name()), Some(other)).unwrap(), other);
        let e = of(&var(data::DEFAULT_LINE.name()), Some(other)).unwrap_err();
        assert!(e.contains(&other.feature().unwrap()) && e.contains("keep one"), "{e}");
        let e = of(&var("9.9"), None).unwrap_err();
        assert!(e.contains("`9.9` is not valid; accepted: ") && e.contains(other.name()), "{e}");
        let table = [(OPENSSL_LINE_VAR, other.name())];
        let e = crypto_sys_line(Vars::table(&table)).unwrap_err().to_string();
        assert!(e.contains("crypto-sys builds") && e.contains(&other.feature().unwrap()), "{e}");
        let table = [(OPENSSL_LINE_VAR, data::DEFAULT_LINE.name())];
        assert_eq!(crypto_sys_line(Vars::table(&table)).unwrap(), data::DEFAULT_LINE);
    }

    /// SOURCE_DATE_EPOCH is the build's today when set; a value that is no number is refused
    /// in one line naming it. (The variable is read here only, so the test sets it itself.)
    #[test]
    fn source_date_epoch_is_today_when_set() {
        let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
        std::env::set_var(SOURCE_DATE_EPOCH_VAR, "1810339199");
        assert_eq!(today().unwrap(), Date::ymd(2027, 5, 14));
        std::env::set_var(SOURCE_DATE_EPOCH_VAR, "yesterday");
        let e = today().unwrap_err().to_string();
        assert!(e.contains("SOURCE_DATE_EPOCH=`yesterday`"), "{e}");
        std::env::remove_var(SOURCE_DATE_EPOCH_VAR);
        assert!(today().unwrap() >= Date::ymd(2026, 1, 1), "the system clock's day");
    }

    /// Tests that set a variable of this process take turns.
    static ENV: std::sync::Mutex<()> = std::sync::Mutex::new(());

    #[test]
    fn set_choice_accepts_auto_and_named_sets_only() {
        assert_eq!(SetChoice::parse("auto").unwrap(), SetChoice::Auto);
        assert_eq!(SetChoice::parse("asm_avx2").unwrap().name(), "asm_avx2");
        let e = SetChoice::parse("avx512").unwrap_err().to_string();
        assert!(e.contains("accepted: auto, asm, asm_avx2, no_asm"), "{e}");
    }

    #[test]
    fn variant_choice_accepts_auto_none_and_known_variants() {
        assert_eq!(VariantChoice::parse("").unwrap(), VariantChoice::Auto);
        assert_eq!(VariantChoice::parse("none").unwrap(), VariantChoice::None);
        assert_eq!(
            VariantChoice::parse("ec_nistp_64_gcc_128").unwrap().name(),
            "ec_nistp_64_gcc_128"
        );
        let e = VariantChoice::parse("nistp").unwrap_err().to_string();
        assert!(e.contains("accepted: auto, none, ec_nistp_64_gcc_128"), "{e}");
    }

    #[test]
    fn assembler_choice_lists_accepted_values() {
        assert_eq!(AssemblerChoice::parse("clang").unwrap(), Some(AssemblerChoice::Clang));
        let e = AssemblerChoice::parse("yasm").unwrap_err().to_string();
        assert!(e.contains("accepted: gas, clang, nasm"), "{e}");
    }

    #[test]
    fn a_package_reads_its_sets_and_lock_from_sets() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let krate = dir.join("crypto-sys-0.1.0");
        std::fs::create_dir_all(&krate).unwrap();
        // No default line's generate.lock beside the crate: it is not the workspace.
        assert_eq!(default_sets_root(&krate), (krate.join("sets"), true));
        std::fs::write(dir.join(crate::lock::FILE_NAME), "").unwrap();
        assert_eq!(default_sets_root(&krate), (krate.join("sets"), true), "a lock at the root");
        let line = data::DEFAULT_LINE.root(dir);
        std::fs::create_dir_all(&line).unwrap();
        std::fs::write(line.join(crate::lock::FILE_NAME), "").unwrap();
        assert_eq!(default_sets_root(&krate), (dir.to_path_buf(), false));
    }

    #[test]
    fn per_target_names_use_underscores() {
        assert_eq!(
            per_target_var(ASM_SET_VAR, "x86_64-unknown-linux-gnu"),
            "CRYPTO_SYS_ASM_SET_x86_64_unknown_linux_gnu"
        );
    }

    /// The names crypto-build's code reads: each `…_VAR` constant's, and each literal handed
    /// to `env::var`, `env::var_os` or `cargo_var`, in every source file under `dir`.
    fn variables_read(dir: &std::path::Path, names: &mut std::collections::BTreeSet<String>) {
        let needles = ["_VAR: &str = \"", "env::var(\"", "env::var_os(\"", "cargo_var(\""];
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                variables_read(&path, names);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for needle in needles {
                    for (at, _) in text.match_indices(needle) {
                        let rest = &text[at + needle.len()..];
                        names.insert(rest[..rest.find('"').unwrap()].to_string());
                    }
                }
            }
        }
    }

    /// docs/configuration.md's tables are rendered from VARS: so every variable the code
    /// reads must be a row, and every row a variable the code reads.
    #[test]
    fn vars_are_every_variable_the_code_reads() {
        let mut read = std::collections::BTreeSet::new();
        // With crypto-gen's, whose binary the build runs in crypto-sys's repository.
        for krate in ["crypto-build", "crypto-gen"] {
            variables_read(&crate::crate_dir().join("..").join(krate).join("src"), &mut read);
        }
        assert!(read.contains(ASM_SET_VAR) && read.contains("OUT_DIR"), "{read:?}");
        let missing: Vec<&String> =
            read.iter().filter(|n| !VARS.iter().any(|v| v.matches(n))).collect();
        assert!(missing.is_empty(), "read, but not a row of config::VARS: {missing:?}");
        let unread: Vec<&str> =
            VARS.iter().filter(|v| !read.iter().any(|n| v.matches(n))).map(|v| v.name).collect();
        assert!(unread.is_empty(), "rows of config::VARS the code never reads: {unread:?}");
    }

    #[test]
    fn booleans_list_accepted_values() {
        assert!(parse_bool(STRICT_VAR, "1").unwrap());
        assert!(!parse_bool(STRICT_VAR, "0").unwrap());
        let e = parse_bool(STRICT_VAR, "maybe").unwrap_err().to_string();
        assert!(e.contains("CRYPTO_SYS_STRICT=`maybe`") && e.contains("accepted"), "{e}");
    }
}
