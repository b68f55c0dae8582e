//! The command line, declared with clap: one struct per command, its doc comments the help;
//! the options several commands share are one struct each, flattened into them; every value a
//! table defines (sets, OpenSSL lines, C variants, assemblers, test steps) is parsed against
//! that table, so the commands get typed values and a name the table lacks is refused here.

use crate::step_names::StepName;
use clap::builder::{PossibleValue, TypedValueParser};
use clap::{Args, Parser, Subcommand};
use crypto_build::config::{AssemblerChoice, SetChoice, VariantChoice};
use crypto_build::data::{self, AsmSet, CVariant, OpensslLine, Target};
use std::ffi::OsStr;
use std::path::PathBuf;

/// crypto-sys's orchestrator: generates OpenSSL's asm sets, builds crypto-sys with them,
/// checks and measures the result.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask", arg_required_else_help = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Generate(Generate),
    Build(Build),
    Detect(Detect),
    Bench(Bench),
    Package(Package),
    Verify(Verify),
    Toolchains(Toolchains),
    UpdateOpenssl(UpdateOpenssl),
    Sources(Sources),
    Test(Test),
    Docs(Docs),
    Lines(Lines),
}

/// The OpenSSL line a command works on (`data::OPENSSL_LINES`).
#[derive(Debug, Clone, Copy, Args)]
pub struct Openssl {
    /// The OpenSSL line: its own sets and generate.lock, and crypto-sys's feature that builds
    /// it
    #[arg(
        long = "openssl",
        value_name = "LINE",
        default_value = data::DEFAULT_LINE.name(),
        value_parser = lines(),
    )]
    pub line: &'static OpensslLine,
}

/// How a build chooses its asm and C, shared by `build` and `detect`. Each option says which
/// of the variables that plain cargo builds read it stands for.
#[derive(Debug, Clone, Copy, Args)]
pub struct Selection {
    /// The asm set; `auto` takes, file by file, the fastest set the assembler can take
    /// (CRYPTO_SYS_ASM_SET)
    #[arg(long, value_name = "SET", value_parser = set_choices())]
    pub asm_set: Option<SetChoice>,
    /// The C variant; `auto` takes one whose probe compiles with the C compiler, `none` is
    /// OpenSSL's default C configuration (CRYPTO_SYS_C_VARIANT)
    #[arg(long, value_name = "VARIANT", value_parser = variant_choices())]
    pub c_variant: Option<VariantChoice>,
    /// The assembler, instead of the one behind the C compiler (CRYPTO_SYS_ASSEMBLER)
    #[arg(long, value_name = "ASSEMBLER", value_parser = assemblers())]
    pub assembler: Option<AssemblerChoice>,
    /// Under `auto`, fail instead of taking a slower set or no C variant
    /// (CRYPTO_SYS_STRICT=1)
    #[arg(long)]
    pub strict: bool,
    /// Let a named set fall back file by file, and a named C variant to none
    /// (CRYPTO_SYS_ALLOW_DOWNGRADE=1)
    #[arg(long)]
    pub allow_downgrade: bool,
}

/// Generate the asm sets from OpenSSL's perlasm.
///
/// Every set, target and C variant of the line by default; each option narrows that.
#[derive(Debug, Args)]
pub struct Generate {
    /// Regenerate in a scratch directory and compare with generate.lock and with the outputs
    /// on disk, changing nothing
    #[arg(long)]
    pub check: bool,
    /// Only this set (repeat for more)
    #[arg(long = "set", value_name = "SET", value_parser = sets())]
    pub sets: Vec<&'static AsmSet>,
    /// Only this target: a Rust triple or a Configure name (repeat for more)
    #[arg(long = "target", value_name = "TARGET", value_parser = data::target_for)]
    pub targets: Vec<&'static Target>,
    /// Only this C variant (repeat for more); `none` is OpenSSL's default C configuration
    /// alone
    #[arg(long = "c-variant", value_name = "VARIANT", value_parser = variants())]
    pub variants: Vec<Option<&'static CVariant>>,
    /// Work on another copy of the line's sets: the directory of its set directories and
    /// generate.lock (the workspace's is lines/openssl-X.Y/)
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    #[command(flatten)]
    pub openssl: Openssl,
}

/// Build crypto-sys and print one summary line.
///
/// With --prefix, also install an OpenSSL-style prefix: include/openssl, lib/libcrypto.a,
/// lib/libssl.a, lib/pkgconfig, lib/cmake/OpenSSL, and bin/openssl with --apps; usable as
/// OPENSSL_DIR for openssl-sys with OPENSSL_STATIC=1, or through PKG_CONFIG_PATH. It also gets
/// what `make install_ssldirs` installs: openssl.cnf (never over an existing one),
/// openssl.cnf.dist, ct_log_list.cnf, certs/ and private/, in OPENSSLDIR when it lies under
/// the prefix, else in its ssl/.
#[derive(Debug, Args)]
pub struct Build {
    #[command(flatten)]
    pub selection: Selection,
    /// The Rust target triple to build for; the host by default
    #[arg(long, value_name = "TRIPLE")]
    pub target: Option<String>,
    /// Build in cargo's release profile
    #[arg(long)]
    pub release: bool,
    /// Also install an OpenSSL-style prefix in DIR, a new or empty directory or one this
    /// command installed
    #[arg(long, value_name = "DIR")]
    pub prefix: Option<PathBuf>,
    /// Leave the legacy provider out (crypto-sys without its `legacy` feature)
    #[arg(long)]
    pub no_legacy: bool,
    /// Also link the `openssl` program (CRYPTO_SYS_APPS=1) and run `openssl version -a` where
    /// the target's programs can run here
    #[arg(long)]
    pub apps: bool,
    /// Also build the FIPS provider module (crypto-sys's `fips` feature); with --prefix, install
    /// it in lib/ossl-modules and write OPENSSLDIR's fipsmodule.cnf by `openssl fipsinstall`
    /// (which needs --apps)
    #[arg(long)]
    pub fips: bool,
    /// Install the FIPS module of a validated OpenSSL release (3.1.2, 3.0.8) instead, built by
    /// that release's own Configure and make from its openssl-src crate, and loaded into this
    /// build's libcrypto by the prefix's `openssl fipsinstall` (this machine's target only)
    #[arg(long, value_name = "RELEASE", requires_all = ["prefix", "apps"], conflicts_with = "fips")]
    pub fips_release: Option<String>,
    /// OPENSSLDIR, where OpenSSL looks for openssl.cnf, certificates and keys
    /// (CRYPTO_SYS_OPENSSLDIR, absolute)
    ///
    /// A relative DIR lies under the prefix, as with Configure, and needs --prefix. By
    /// default it is /usr/local/ssl, as in openssl-sys's vendored build, and the libraries do
    /// not depend on the prefix.
    #[arg(long, value_name = "DIR")]
    pub openssldir: Option<String>,
    #[command(flatten)]
    pub openssl: Openssl,
}

/// Print the toolchain and the plan a build would take, building nothing.
///
/// The toolchain cc would use (honouring CC, CFLAGS, ...), its assembler and C probe results,
/// and the plan: each asm file's set, the C variant.
#[derive(Debug, Args)]
pub struct Detect {
    /// The Rust target triple; the host by default
    #[arg(long, value_name = "TRIPLE")]
    pub target: Option<String>,
    #[command(flatten)]
    pub selection: Selection,
    /// Print JSON instead of text
    #[arg(long)]
    pub json: bool,
}

/// Measure every set, and other builds of the same figures, interleaved.
///
/// Builds the benchmark harness with each set (and with each --against library), runs them
/// interleaved for --rounds rounds, and prints each figure with its ratio to asm, then ours
/// against openssl-src built the same way and against ring and aws-lc-rs (n/a where a library
/// lacks a figure), then clean build times.
#[derive(Debug, Args)]
pub struct Bench {
    /// The sets to build and measure, comma-separated; every set by default
    #[arg(long, value_name = "SETS", value_delimiter = ',', value_parser = set_choices())]
    pub sets: Vec<SetChoice>,
    /// Also measure these, comma-separated: OpenSSL's own build (openssl-src), ring and
    /// aws-lc-rs through their own APIs
    #[arg(long, value_name = "LIBRARIES")]
    pub against: Option<String>,
    /// Also measure asm and openssl-src built with CC=COMPILER
    #[arg(long, value_name = "COMPILER")]
    pub cc: Option<String>,
    /// Instead, compare the C driver's figures under wine (GNU as and nasm objects) with the
    /// native Linux build
    #[arg(long)]
    pub windows: bool,
    /// Instead, the `openssl` crate's clean release builds, on vendored and through the
    /// packaged patch: the time, the CPU, the CPU before the first C compiler, the patch's
    /// C-compile floor (its units' core-seconds over the cores), the crates' bytes (Linux)
    #[arg(long, conflicts_with_all = ["windows", "against", "sets", "cc"])]
    pub build_cost: bool,
    /// Also write the figures as JSON to FILE
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Also draw them as an SVG chart in FILE
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Rounds of every contender [default: 3, 5 with --windows]
    #[arg(long, value_name = "N")]
    pub rounds: Option<usize>,
    /// Seconds each figure runs a round [default: 0.3, 1 with --windows]
    #[arg(long, value_name = "S")]
    pub seconds: Option<f64>,
    #[command(flatten)]
    pub openssl: Openssl,
}

/// Make the .crate files and run `cargo publish --dry-run` on them.
///
/// crypto-build's, carrying every OpenSSL line's pre-generated sets (checked against each
/// line's generate.lock), crypto-sys's, each line's source crate (its tree checked against its
/// list), and the `openssl-src` patch crate's (not published).
#[derive(Debug, Args)]
pub struct Package {
    /// Only this line's sets in crypto-build's package (repeat for more): a package that
    /// builds those lines only, cheaper to make; every line's by default
    #[arg(long = "openssl", value_name = "LINE", value_parser = lines())]
    pub lines: Vec<&'static OpensslLine>,
}

/// Make each OpenSSL line's source crate (lines/openssl-X.Y/source/) from the archive its
/// source.lock names, then check every file against its list.
///
/// The archive is the registry's openssl-src crate that holds the release (fetched through
/// cargo, its checksum the lock's), or a release tarball kept in lines/tarballs/ (its SHA-256
/// the lock's). Every other command makes the crates it lacks first; a plain cargo build makes
/// the default line's from crypto-build's openssl-src dependency.
#[derive(Debug, Args)]
pub struct Sources {
    /// Only this line's crate (repeat for more); every line's by default
    #[arg(long = "openssl", value_name = "LINE", value_parser = lines())]
    pub lines: Vec<&'static OpensslLine>,
}

/// Build, then check the linked libcrypto.a against the plan.
///
/// Fast paths taken from asm are real code, downgraded ones are stubs, the legacy provider is
/// linked (or, with --no-legacy, left out as asked), and the eligibility functions are true
/// where the CPU allows.
#[derive(Debug, Args)]
pub struct Verify {
    /// Build without the legacy provider and check that it is left out
    #[arg(long)]
    pub no_legacy: bool,
    /// Check the archives of a prefix `cargo xtask build --prefix` installed, of any target,
    /// instead of building the host's (its legacy provider as its build facts say; the C
    /// driver, which `cargo xtask test` runs on it, checks the eligibility functions)
    #[arg(long, value_name = "DIR", conflicts_with = "no_legacy")]
    pub prefix: Option<PathBuf>,
    #[command(flatten)]
    pub openssl: Openssl,
}

/// Write docs/toolchains.md: each tested toolchain against the plan chosen for it.
#[derive(Debug, Args)]
pub struct Toolchains {
    /// Compare with the committed file instead of writing it
    #[arg(long)]
    pub check: bool,
}

/// Write the generated parts of the docs from the code's tables, and check the rest.
///
/// Renders docs/configuration.md's tables (crypto-sys's features, the variables the build
/// reads, the DEP_CRYPTO_SYS_* keys it emits) and crypto-sys's features in its README.md (the
/// lines' tables are `cargo xtask lines`'s); then checks the hand-written parts: every `cargo xtask` command
/// line parses, every relative link resolves, and every variable, feature, OpenSSL release,
/// crate version, MSRV and license named is the code's.
#[derive(Debug, Args)]
pub struct Docs {
    /// Compare with the committed files instead of writing them
    #[arg(long)]
    pub check: bool,
}

/// Write every file that depends on the OpenSSL lines from their data (data::OPENSSL_LINES,
/// data::TREE_SUPPLIER): the crates' dependencies and features, the releases the tests and
/// consumers expect, the workflows' line jobs and the docs' line tables; then the docs'
/// generated parts that read them (`cargo xtask docs`).
#[derive(Debug, Args)]
pub struct Lines {
    /// Compare with the committed files instead of writing them
    #[arg(long)]
    pub check: bool,
}

/// Compare another openssl-src release with the pin, and move the pin to it.
///
/// Fetches openssl-src VERSION through cargo, generates every configuration from it in
/// scratch space and compares with generate.lock and the manifests: per target and set, asm
/// files, entry points and instruction classes added and removed, the oldest assembler each
/// set takes, Configure's defines, disabled features and generated headers, the C variants
/// still accepted, and every failed configuration or check as a finding. Writes
/// target/update-openssl/FROM-to-TO.md and .json; fails after writing them when there is a
/// finding. Without --report-only, and only when there is none, then moves the pin:
/// the line's row of data::OPENSSL_LINES, its source crate, generate.lock and the sets,
/// Cargo.lock, and every file `cargo xtask lines` writes from the data moved to, all or
/// nothing, and the report to docs/openssl-updates/. A release older than the
/// oldest series OpenSSL supports (data::SUPPORT), of a series past its support or of one with
/// no support date there is refused before anything is touched.
#[derive(Debug, Args)]
pub struct UpdateOpenssl {
    /// openssl-src's crate version (400.0.2), or an OpenSSL release (4.0.3: the newest crate
    /// of its line, which must hold it)
    #[arg(required_unless_present_any = ["status", "source", "newest"], conflicts_with_all = ["status", "source", "newest"])]
    pub version: Option<String>,
    /// Instead of VERSION: the newest openssl-src of the line's series on crates.io, when it
    /// holds a newer release than the line's (else nothing to do, and it succeeds); what the
    /// scheduled workflow (.github/workflows/update-openssl.yml) runs for each line
    #[arg(long, conflicts_with_all = ["status", "source", "from"])]
    pub newest: bool,
    /// A release tarball instead (openssl-X.Y.Z.tar.gz, for a release the registry lacks):
    /// checked whole before anything is touched; a move makes the line's source crate from it
    /// (lines/openssl-X.Y/source/), the tarball kept in lines/tarballs/
    #[arg(long, value_name = "FILE", requires = "sha256", conflicts_with = "status")]
    pub source: Option<PathBuf>,
    /// The SHA-256 --source's tarball must have, from its publisher
    #[arg(long, value_name = "HEX", requires = "source")]
    pub sha256: Option<String>,
    /// Compare with this openssl-src release, generated in scratch too, instead of the
    /// line's pinned one (a report only)
    #[arg(long, value_name = "VERSION", conflicts_with = "status")]
    pub from: Option<String>,
    /// Only this target row's configurations (its Configure name; repeat for more; a report
    /// only)
    #[arg(long = "target", value_name = "NAME", value_parser = target_rows(), conflicts_with = "status")]
    pub targets: Vec<&'static Target>,
    /// Only this set's configurations (repeat for more; a report only)
    #[arg(long = "set", value_name = "SET", value_parser = sets(), conflicts_with = "status")]
    pub sets: Vec<&'static AsmSet>,
    /// Write the report only; leave the pin where it is
    #[arg(long)]
    pub report_only: bool,
    /// The line moved, instead of the default; a move to another series renames what is named
    /// after it (the line's directory, feature and openssl-src dependency)
    #[arg(long = "openssl", value_name = "LINE", value_parser = lines())]
    pub openssl: Option<&'static OpensslLine>,
    /// List each line: its release, the newest openssl-src of its series on crates.io, with
    /// --releases OpenSSL's own newest release of it, the end of its support; fail when the
    /// default line is past that end, when a line has a newer release, or when it cannot
    /// tell. SOURCE_DATE_EPOCH, when set, is its today
    #[arg(long)]
    pub status: bool,
    /// A saved answer of crates.io's index of openssl-src, for --status and --newest (else it
    /// is fetched)
    // Not `requires = "status"`: a flag's default counts as present for clap's `requires`.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["version", "source"])]
    pub registry_answer: Option<PathBuf>,
    /// OpenSSL's own releases, for --status: a saved answer of GitHub's API for
    /// openssl/openssl's releases (docs/lines.md), which names releases crates.io lacks
    #[arg(long, value_name = "FILE", conflicts_with_all = ["version", "source"])]
    pub releases: Option<PathBuf>,
    /// Where --status --releases records the releases newer than a line's, for builds to warn
    /// of (else crypto-build/src/data/releases.tsv, which a maintainer commits)
    #[arg(long, value_name = "FILE", requires = "releases")]
    pub known_releases: Option<PathBuf>,
}

impl UpdateOpenssl {
    /// What clap cannot say: --from, --target and --set make a report only (a flag's default counts
    /// as present for `requires`), and --sha256 goes with --source (clap drops a requirement
    /// that conflicts with an argument given, here VERSION).
    pub fn check(&self) -> anyhow::Result<()> {
        if self.sha256.is_some() && self.source.is_none() {
            anyhow::bail!("--sha256 is the SHA-256 of --source's tarball: give both, or VERSION");
        }
        let limited = !self.targets.is_empty() || !self.sets.is_empty();
        if !self.report_only && (self.from.is_some() || limited) {
            anyhow::bail!(
                "--from, --target and --set make a report only (a move starts from the pin and \
                 takes every configuration): add --report-only"
            );
        }
        Ok(())
    }
}

/// Every check CI runs, as named steps (`--list` names each, with what it covers).
///
/// Steps run side by side: those that build through cargo in turn, beside them those that
/// never call cargo, one per core (and, once the cargo steps are done, in their lane too),
/// each line tagged with its step. A table of each step's time ends the run. With --openssl,
/// the steps whose checks depend on the line run on it; each other one is named once with
/// the reason it is left out.
#[derive(Debug, Args)]
pub struct Test {
    /// Print each step, what it covers, its targets and its time in the last run here
    #[arg(long)]
    pub list: bool,
    /// Run only this step (repeat for more; a step named twice runs twice); the names are
    /// `--list`'s
    #[arg(long = "step", value_name = "NAME", value_parser = steps(), hide_possible_values = true)]
    pub steps: Vec<StepName>,
    /// Only the steps that check this triple's toolchain rows (repeat for more)
    #[arg(long = "target", value_name = "TRIPLE")]
    pub targets: Vec<String>,
    /// Add the steps CI's default run leaves out (`--list` marks them --full)
    #[arg(long)]
    pub full: bool,
    #[command(flatten)]
    pub openssl: Openssl,
}

/// A value parser over one table's rows: its names are `--help`'s possible values, and a name
/// the table lacks is refused in one line that lists them.
#[derive(Clone)]
pub struct Table<T> {
    /// What a row is, for the refusal: "asm set".
    what: &'static str,
    rows: Vec<(&'static str, T)>,
}

impl<T: Clone + Send + Sync + 'static> Table<T> {
    fn new(
        what: &'static str,
        rows: impl IntoIterator<Item = T>,
        name: fn(&T) -> &'static str,
    ) -> Self {
        Table { what, rows: rows.into_iter().map(|r| (name(&r), r)).collect() }
    }

    fn find(&self, name: &str) -> Result<T, String> {
        match self.rows.iter().find(|(n, _)| *n == name) {
            Some((_, row)) => Ok(row.clone()),
            None => {
                let names: Vec<&str> = self.rows.iter().map(|(n, _)| *n).collect();
                Err(format!("unknown {} `{name}`; accepted: {}", self.what, names.join(", ")))
            }
        }
    }
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for Table<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        // Through clap's parser of a function, so that the refusal reads as clap's others do:
        // "invalid value 'x' for '--asm-set <SET>': unknown asm set `x`; accepted: ...".
        let table = self.clone();
        (move |name: &str| table.find(name)).parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.rows.iter().map(|(n, _)| PossibleValue::new(*n))))
    }
}

fn lines() -> Table<&'static OpensslLine> {
    Table::new("OpenSSL line", data::OPENSSL_LINES, |l| l.name())
}

/// A row of `data::TARGETS`, by its Configure name.
fn target_rows() -> Table<&'static Target> {
    Table::new("target row", data::TARGETS, |t| t.name)
}

fn sets() -> Table<&'static AsmSet> {
    Table::new("asm set", data::SETS, |s| s.name)
}

/// A set, or `auto`.
fn set_choices() -> Table<SetChoice> {
    let named = data::SETS.iter().map(SetChoice::Named);
    Table::new("asm set", std::iter::once(SetChoice::Auto).chain(named), |c| c.name())
}

/// A C variant, or OpenSSL's default C configuration (`data::NO_C_VARIANT`).
fn variants() -> Table<Option<&'static CVariant>> {
    let named = data::C_VARIANTS.iter().map(Some);
    Table::new("C variant", std::iter::once(None).chain(named), |v| data::variant_name(*v))
}

/// A C variant, none, or `auto`.
fn variant_choices() -> Table<VariantChoice> {
    let named = data::C_VARIANTS.iter().map(VariantChoice::Named);
    let choices = [VariantChoice::Auto, VariantChoice::None].into_iter().chain(named);
    Table::new("C variant", choices, |v| v.name())
}

fn assemblers() -> Table<AssemblerChoice> {
    Table::new("assembler", AssemblerChoice::ALL, |a| a.name())
}

fn steps() -> Table<StepName> {
    Table::new("step", StepName::ALL.iter().copied(), |s| s.name())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::error::ErrorKind;
    use clap::CommandFactory;

    fn parse(line: &str) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("cargo xtask").chain(line.split_whitespace()))
    }

    /// The refusal's first line, without clap's `error: `.
    fn refusal(line: &str) -> String {
        let e = parse(line).err().unwrap_or_else(|| panic!("`{line}` should be refused"));
        e.to_string().lines().next().unwrap().trim_start_matches("error: ").to_string()
    }

    #[test]
    fn the_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn values_arrive_typed_in_both_spellings() {
        let Command::Test(t) = parse("test --step=lock --step lint --openssl=4.0").unwrap().command
        else {
            panic!("not test")
        };
        let names: Vec<&str> = t.steps.iter().map(|s| s.name()).collect();
        assert_eq!(names, ["lock", "lint"]);
        assert_eq!(t.openssl.line.version, data::DEFAULT_LINE.version);
        let Command::Build(b) =
            parse("build --asm-set=asm_avx2 --c-variant none --assembler=nasm").unwrap().command
        else {
            panic!("not build")
        };
        assert_eq!(b.selection.asm_set.map(|s| s.name()), Some("asm_avx2"));
        assert_eq!(b.selection.c_variant, Some(VariantChoice::None));
        assert_eq!(b.selection.assembler, Some(AssemblerChoice::Nasm));
        assert!(b.openssl.line.is_default(), "no --openssl: the default line");
        let Command::Generate(g) = parse("generate --c-variant none --set no_asm").unwrap().command
        else {
            panic!("not generate")
        };
        assert_eq!(
            (g.variants, g.sets.iter().map(|s| s.name).collect::<Vec<_>>()),
            (vec![None], vec!["no_asm"])
        );
        let Command::Bench(b) = parse("bench --sets asm,no_asm").unwrap().command else {
            panic!("not bench")
        };
        assert_eq!(b.sets.iter().map(|s| s.name()).collect::<Vec<_>>(), ["asm", "no_asm"]);
    }

    /// Each table's every name is accepted, and a name it lacks is refused in one line that
    /// lists them all.
    #[test]
    fn a_value_the_table_lacks_is_refused_naming_the_accepted_ones() {
        let set_names = data::set_names();
        let variant_names: Vec<&str> = data::C_VARIANTS.iter().map(|v| v.name).collect();
        let line_names: Vec<&str> = data::OPENSSL_LINES.iter().map(|l| l.name()).collect();
        let step_names: Vec<&str> = StepName::ALL.iter().map(|s| s.name()).collect();
        let cases: [(&str, Vec<&str>); 6] = [
            ("build --asm-set", [&["auto"][..], &set_names].concat()),
            ("generate --set", set_names.clone()),
            ("detect --c-variant", [&["auto", data::NO_C_VARIANT][..], &variant_names].concat()),
            ("generate --c-variant", [&[data::NO_C_VARIANT][..], &variant_names].concat()),
            ("verify --openssl", line_names),
            ("test --step", step_names),
        ];
        for (option, accepted) in cases {
            for name in &accepted {
                parse(&format!("{option} {name}")).unwrap();
            }
            let e = refusal(&format!("{option} avx512"));
            assert!(e.contains("`avx512`; accepted: ") && e.ends_with(&accepted.join(", ")), "{e}");
        }
        let e = refusal("detect --assembler yasm");
        assert!(e.ends_with("unknown assembler `yasm`; accepted: gas, clang, nasm"), "{e}");
        assert!(refusal("generate --c-variant auto").contains("unknown C variant `auto`"));
        assert!(refusal("generate --target sparc-sun-solaris").contains("unsupported target"));
    }

    #[test]
    fn help_and_errors_follow_clap() {
        for line in ["", "help", "--help"] {
            let e = parse(line).unwrap_err();
            let text = e.to_string();
            assert!(text.contains("Usage: cargo xtask <COMMAND>"), "{text}");
            for cmd in Cli::command().get_subcommands().map(|c| c.get_name().to_string()) {
                assert!(text.contains(&cmd), "{cmd} missing from the help:\n{text}");
            }
        }
        for line in ["help build", "build --help", "build -h"] {
            let e = parse(line).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::DisplayHelp, "{line}");
            let text = e.to_string();
            assert!(text.contains("Usage: cargo xtask build [OPTIONS]"), "{text}");
            for flag in ["--asm-set <SET>", "--strict", "--openssl <LINE>", "--prefix <DIR>"] {
                assert!(text.contains(flag), "{flag} missing from `{line}`:\n{text}");
            }
        }
        assert_eq!(parse("frob").unwrap_err().kind(), ErrorKind::InvalidSubcommand);
        assert_eq!(parse("build --frob").unwrap_err().kind(), ErrorKind::UnknownArgument);
        assert_eq!(parse("test --step").unwrap_err().kind(), ErrorKind::InvalidValue);
    }

    #[test]
    fn update_openssl_takes_one_version() {
        let Command::UpdateOpenssl(u) =
            parse("update-openssl 400.0.2 --report-only").unwrap().command
        else {
            panic!("not update-openssl")
        };
        assert_eq!((u.version.as_deref(), u.report_only), (Some("400.0.2"), true));
        let e = parse("update-openssl").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::MissingRequiredArgument);
        assert!(e.to_string().contains("<VERSION>"), "{e}");
        assert_eq!(
            parse("update-openssl 4.0.3 3.5.5").unwrap_err().kind(),
            ErrorKind::UnknownArgument
        );
        let other = data::OPENSSL_LINES.iter().find(|l| !l.default).unwrap();
        let line = format!("update-openssl 300.5.5 --openssl {}", other.name());
        let Command::UpdateOpenssl(u) = parse(&line).unwrap().command else {
            panic!("not update-openssl")
        };
        assert_eq!((u.version.as_deref(), u.openssl), (Some("300.5.5"), Some(other)));
        let status = "update-openssl --status --registry-answer a.json --releases r.json";
        let Command::UpdateOpenssl(u) = parse(status).unwrap().command else {
            panic!("not update-openssl")
        };
        assert!(u.status && u.version.is_none());
        assert_eq!(u.registry_answer, Some(PathBuf::from("a.json")));
        assert_eq!(u.releases, Some(PathBuf::from("r.json")));
        let e = parse("update-openssl --status 4.0.3").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ArgumentConflict, "{e}");
        for extra in ["--registry-answer a.json", "--releases r.json"] {
            let e = parse(&format!("update-openssl 4.0.3 {extra}")).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::ArgumentConflict, "{e}");
        }
    }

    #[test]
    fn update_openssl_takes_a_tarball_and_its_sha256() {
        let line = "update-openssl --source openssl-3.6.3.tar.gz --sha256 ab --report-only \
                    --from 300.6.1 --target linux-x86_64 --target linux-aarch64";
        let Command::UpdateOpenssl(u) = parse(line).unwrap().command else {
            panic!("not update-openssl")
        };
        assert_eq!(u.source, Some(PathBuf::from("openssl-3.6.3.tar.gz")));
        assert_eq!((u.sha256.as_deref(), u.from.as_deref()), (Some("ab"), Some("300.6.1")));
        let names: Vec<&str> = u.targets.iter().map(|t| t.name).collect();
        assert_eq!(names, ["linux-x86_64", "linux-aarch64"]);
        u.check().unwrap();
        let refused = [
            ("update-openssl --source a.tar.gz", ErrorKind::MissingRequiredArgument),
            ("update-openssl --sha256 ab", ErrorKind::MissingRequiredArgument),
            ("update-openssl 4.0.3 --source a.tar.gz --sha256 ab", ErrorKind::ArgumentConflict),
            ("update-openssl --status --source a.tar.gz --sha256 ab", ErrorKind::ArgumentConflict),
        ];
        for (line, kind) in refused {
            assert_eq!(parse(line).unwrap_err().kind(), kind, "{line}");
        }
        let checked = [
            ("update-openssl 4.0.3 --from 3.6.3", "add --report-only"),
            ("update-openssl 4.0.3 --target linux-x86_64", "add --report-only"),
            ("update-openssl --sha256 ab 4.0.3", "give both, or VERSION"),
        ];
        for (line, want) in checked {
            let Command::UpdateOpenssl(u) = parse(line).unwrap().command else {
                panic!("not update-openssl")
            };
            let e = u.check().unwrap_err().to_string();
            assert!(e.contains(want) && !e.contains('\n'), "{line}: {e}");
        }
    }
}
