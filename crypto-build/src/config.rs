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
    pub fn parse(s: &str) -> Result<Option<AssemblerChoice>> {
        match s {
            "" => Ok(None),
            "gas" => Ok(Some(AssemblerChoice::Gas)),
            "clang" => Ok(Some(AssemblerChoice::Clang)),
            "nasm" => Ok(Some(AssemblerChoice::Nasm)),
            other => bail!("unknown assembler `{other}`; accepted: gas, clang, nasm"),
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
    /// OPENSSLDIR, when not the one the sets were configured with (an absolute path).
    pub openssldir: Option<String>,
    /// The build's notion of today, for the line's support date ([`today`]).
    pub today: Date,
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
pub const OPENSSLDIR_VAR: &str = "CRYPTO_SYS_OPENSSLDIR";
/// The reproducible-builds convention for a build's notion of now (seconds since the epoch).
pub const SOURCE_DATE_EPOCH_VAR: &str = "SOURCE_DATE_EPOCH";
/// Set by cargo when crypto-sys's `legacy` feature is on.
const LEGACY_FEATURE_VAR: &str = "CARGO_FEATURE_LEGACY";

/// A user variable; under cargo, announced so that changing it reruns the build script.
fn var(cargo: bool, name: &str) -> Option<String> {
    if cargo {
        println!("cargo:rerun-if-env-changed={name}");
    }
    std::env::var(name).ok()
}

fn cargo_var(name: &str) -> Result<String> {
    std::env::var(name).with_context(|| format!("cargo did not set {name}; run through cargo"))
}

/// `CRYPTO_SYS_ASM_SET_<triple with underscores>` wins over `CRYPTO_SYS_ASM_SET`.
pub fn per_target_var(base: &str, triple: &str) -> String {
    format!("{base}_{}", triple.replace(['-', '.'], "_"))
}

/// The per-target form of `base` if set, else `base`: (variable name, value).
fn per_target_or_plain(cargo: bool, base: &str, triple: &str) -> Option<(String, String)> {
    let specific = per_target_var(base, triple);
    let plain = || var(cargo, base).map(|v| (base.to_string(), v));
    var(cargo, &specific).map(|v| (specific, v)).or_else(plain)
}

/// Today, as a build sees it: SOURCE_DATE_EPOCH's day when set (the reproducible-builds
/// convention), else the system clock's. Only a warning depends on it, never the bytes built.
pub fn today() -> Result<Date> {
    read_today(false)
}

fn read_today(cargo: bool) -> Result<Date> {
    match var(cargo, SOURCE_DATE_EPOCH_VAR).filter(|v| !v.is_empty()) {
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

pub fn parse_bool(name: &str, value: &str) -> Result<bool> {
    match value {
        "1" | "true" | "yes" => Ok(true),
        "0" | "false" | "no" | "" => Ok(false),
        other => bail!("{name}=`{other}` is not valid; accepted: 1, true, yes, 0, false, no"),
    }
}

impl BuildConfig {
    /// For crypto-sys's build script: cargo's variables, and the user's.
    pub fn from_cargo_env() -> Result<BuildConfig> {
        let jobs = std::env::var("NUM_JOBS").ok().and_then(|n| n.parse().ok()).unwrap_or(2);
        BuildConfig::read(
            true,
            cargo_var("TARGET")?,
            PathBuf::from(cargo_var("OUT_DIR")?),
            &PathBuf::from(cargo_var("CARGO_MANIFEST_DIR")?),
            jobs,
            line_of_features()?,
        )
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
        BuildConfig::read(false, triple.to_string(), out_dir, manifest_dir, jobs, line)
    }

    fn read(
        cargo: bool,
        triple: String,
        out_dir: PathBuf,
        manifest_dir: &std::path::Path,
        jobs: usize,
        line: &'static OpensslLine,
    ) -> Result<BuildConfig> {
        let var = |name: &str| var(cargo, name);
        let target = data::target_for(&triple)?;
        line.check_target(target.name)?;
        let choice = match per_target_or_plain(cargo, ASM_SET_VAR, &triple) {
            Some((name, v)) => SetChoice::parse(&v).with_context(|| format!("{name}={v}"))?,
            None => SetChoice::Auto,
        };
        let variant = match per_target_or_plain(cargo, C_VARIANT_VAR, &triple) {
            Some((name, v)) => VariantChoice::parse(&v).with_context(|| format!("{name}={v}"))?,
            None => VariantChoice::Auto,
        };
        let flag = |name: &str| var(name).map_or(Ok(false), |v| parse_bool(name, &v));
        let strict = flag(STRICT_VAR)?;
        let apps = flag(APPS_VAR)?;
        // Without cargo (`xtask build --target`) the caller says; on by default as under cargo.
        let legacy = !cargo || std::env::var_os(LEGACY_FEATURE_VAR).is_some();
        let allow_downgrade = flag(ALLOW_DOWNGRADE_VAR)?;
        let assembler = match var(ASSEMBLER_VAR) {
            Some(v) => {
                AssemblerChoice::parse(&v).with_context(|| format!("{ASSEMBLER_VAR}={v}"))?
            }
            None => None,
        };
        let openssldir = match var(OPENSSLDIR_VAR).filter(|v| !v.is_empty()) {
            Some(v) => Some(crate::openssldir::check(&v).map(|()| v).context(OPENSSLDIR_VAR)?),
            None => None,
        };
        let today = read_today(cargo)?;
        let (lock_dir, packaged) = default_sets_root(manifest_dir);
        if packaged && line != data::DEFAULT_LINE {
            bail!(
                "OpenSSL {} (crypto-sys's `{}` feature) builds from the crypto-sys workspace: \
                 a package carries the sets of OpenSSL {} only",
                line.version,
                line.feature().unwrap_or_default(),
                data::DEFAULT_LINE.version
            );
        }
        let lock_dir = line.root(&lock_dir);
        let (sets_root, packaged) = match var(SETS_DIR_VAR) {
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
            nasm: var(NASM_VAR).filter(|v| !v.is_empty()).map(PathBuf::from),
            out_dir,
            sets_root,
            packaged,
            lock_dir,
            jobs,
            legacy,
            apps,
            openssldir,
            today,
        })
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
/// the default line when none does.
fn line_of_features() -> Result<&'static OpensslLine> {
    let on = |feature: &str| {
        let var = format!("CARGO_FEATURE_{}", feature.to_uppercase().replace('-', "_"));
        std::env::var_os(var).is_some()
    };
    let chosen: Vec<&'static OpensslLine> =
        data::OPENSSL_LINES.iter().filter(|l| l.feature().is_some_and(|f| on(&f))).collect();
    match chosen[..] {
        [] => Ok(data::DEFAULT_LINE),
        [line] => Ok(line),
        _ => {
            let features: Vec<String> = chosen.iter().filter_map(|l| l.feature()).collect();
            bail!(
                "crypto-sys's features {} each choose an OpenSSL line; enable one",
                features.join(", ")
            )
        }
    }
}

/// In the workspace the sets sit beside crypto-sys; a packaged crate carries them inside.
fn default_sets_root(manifest_dir: &std::path::Path) -> (PathBuf, bool) {
    let workspace = manifest_dir.parent().map(|p| p.to_path_buf());
    match workspace {
        Some(w) if w.join(crate::generate::lock::FILE_NAME).exists() => (w, false),
        _ => (manifest_dir.join("sets"), true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Another line is refused, in one line that names it, for a target it has no sets
    /// for, and from a package, which carries the default line's sets only.
    #[test]
    fn a_line_builds_only_its_targets_and_only_from_the_workspace() {
        let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
        let other = data::OPENSSL_LINES.iter().find(|l| !l.default).expect("a second line");
        let crate_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let read = |triple: &str, manifest_dir: &std::path::Path| {
            let out = std::env::temp_dir();
            BuildConfig::read(false, triple.into(), out, manifest_dir, 1, other)
        };
        // Every line has every target's sets; a line naming its targets refuses the others.
        let arm =
            read("aarch64-unknown-linux-gnu", &crate_dir.parent().unwrap().join("crypto-sys"));
        assert_eq!(arm.unwrap().target.name, "linux-aarch64");
        let partial = data::OpensslLine { targets: Some(&["linux-x86_64"]), ..*other };
        let e = partial.check_target("linux-aarch64").unwrap_err().to_string();
        let named = format!("OpenSSL {}", other.version);
        assert!(e.contains(&named) && e.contains("linux-x86_64 only"), "{e}");
        let packaged = std::env::temp_dir().join(format!("crypto-sys-pkg-{}", std::process::id()));
        std::fs::create_dir_all(&packaged).unwrap();
        let e = read("x86_64-unknown-linux-gnu", &packaged).unwrap_err().to_string();
        assert!(e.contains("builds from the crypto-sys workspace"), "{e}");
        let c = read("x86_64-unknown-linux-gnu", &crate_dir.parent().unwrap().join("crypto-sys"));
        let c = c.unwrap();
        assert_eq!((c.line.version, c.packaged), (other.version, false));
        let dir = format!("openssl-{}", other.name());
        assert!(c.lock_dir.ends_with(&dir) && c.sets_root == c.lock_dir, "{dir}");
        std::fs::remove_dir_all(&packaged).unwrap();
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
        let dir = std::env::temp_dir().join(format!("crypto-build-pkg-{}", std::process::id()));
        let krate = dir.join("crypto-sys-0.1.0");
        std::fs::create_dir_all(&krate).unwrap();
        // No generate.lock beside the crate: it is not the workspace.
        assert_eq!(default_sets_root(&krate), (krate.join("sets"), true));
        std::fs::write(dir.join(crate::generate::lock::FILE_NAME), "").unwrap();
        assert_eq!(default_sets_root(&krate), (dir.clone(), false));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn per_target_names_use_underscores() {
        assert_eq!(
            per_target_var(ASM_SET_VAR, "x86_64-unknown-linux-gnu"),
            "CRYPTO_SYS_ASM_SET_x86_64_unknown_linux_gnu"
        );
    }

    #[test]
    fn booleans_list_accepted_values() {
        assert!(parse_bool(STRICT_VAR, "1").unwrap());
        assert!(!parse_bool(STRICT_VAR, "0").unwrap());
        let e = parse_bool(STRICT_VAR, "maybe").unwrap_err().to_string();
        assert!(e.contains("CRYPTO_SYS_STRICT=`maybe`") && e.contains("accepted"), "{e}");
    }
}
