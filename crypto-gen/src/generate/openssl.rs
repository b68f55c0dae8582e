//! Drives OpenSSL's own Configure and Makefile in a scratch tree, under a controlled environment,
//! and reads back what libcrypto and libssl are made of.

use super::identity::FakeTools;
use super::{Config, Source};
use anyhow::{bail, Context, Result};
use crypto_build::data::{self, AsmIdentity, AsmSyntax, Scheme, Target, LEGACY};
use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fixed build date for crypto/buildinf.h (mkbuildinf.pl honours SOURCE_DATE_EPOCH).
const SOURCE_DATE_EPOCH: &str = "0";

/// The host tools generation needs. Nothing else of the host is consulted.
#[derive(Debug, Clone)]
pub struct HostTools {
    pub perl: PathBuf,
    pub make: PathBuf,
    /// The PATH given to OpenSSL's scripts, after the fake tools directory.
    pub path: String,
}

impl HostTools {
    /// Finds perl and make, or fails with one line that says what to do.
    pub fn find() -> Result<HostTools> {
        let perl = which::which("perl").map_err(|_| {
            anyhow::anyhow!(
                "perl not found on PATH: generating OpenSSL's asm sets needs perl; install perl, \
                 or run `cargo xtask generate` on a machine that has it and copy the sets"
            )
        })?;
        let make = which::which("make").map_err(|_| {
            anyhow::anyhow!("make not found on PATH: generating OpenSSL's asm sets needs GNU make")
        })?;
        let path = std::env::var("PATH").unwrap_or_default();
        Ok(HostTools { perl, make, path })
    }
}

/// Rewrites of a scratch copy's Configure that make it faster and change nothing it decides.
/// Each is a group of (text, replacement) pairs, applied when each text is found exactly once
/// (a release whose Configure reads differently is configured unchanged, at its own speed).
/// `generate.lock`, made by the unchanged Configure, pins every output and each manifest's
/// units and flags, and the `lock` step of `cargo xtask test` regenerates them all.
const CONFIGURE_REWRITES: [&[(&str, &str)]; 2] = [
    // `build.info`'s reader (`collect_information`) matched every line against every
    // collector's pattern with `/$re/`, which perl compiles anew each time, after testing the
    // pattern's own name against `/^OTHERWISE|BEFORE|AFTER$/`: 167,000 times each. The
    // patterns are picked and compiled once per file read instead, in the hash's own order
    // (a hash's order does not change while it is not written to). 7 s to 1.7 s.
    &[
        (
            "    my %collectors = @_;\n",
            "    my %collectors = @_;\n    my @crypto_build_res = grep { !/^OTHERWISE|BEFORE|AFTER$/ } \
             keys %collectors;\n    my %crypto_build_qr = map { $_ => qr/$_/ } @crypto_build_res;\n",
        ),
        (
            "        foreach my $re (keys %collectors) {\n            if ($re !~ \
             /^OTHERWISE|BEFORE|AFTER$/ && /$re/) {",
            "        foreach my $re (@crypto_build_res) {\n            if ($_ =~ $crypto_build_qr{$re}) {",
        ),
    ],
    // Whether a dependency is generated looked for it among every generated file's name,
    // 2,300 times: a hash lookup says the same.
    &[(
        "|| (grep { $d2 eq $_ }\n                        keys %{$unified_info{generate}})",
        "|| exists $unified_info{generate}->{$d2}",
    )],
];

/// Applies each group of [`CONFIGURE_REWRITES`] whose every text is found exactly once; says
/// how many groups it applied.
fn speed_up_configure(configure: &Path) -> Result<usize> {
    let mut text = fs::read_to_string(configure)
        .with_context(|| format!("reading {}", configure.display()))?;
    let mut applied = 0;
    for group in CONFIGURE_REWRITES {
        if group.iter().all(|(from, _)| text.matches(from).count() == 1) {
            text = group.iter().fold(text, |t, (from, to)| t.replacen(from, to, 1));
            applied += 1;
        }
    }
    if applied > 0 {
        fs::write(configure, text).with_context(|| format!("writing {}", configure.display()))?;
    }
    Ok(applied)
}

/// Copies an OpenSSL tree to `to`, ready for [`Scratch::configure`].
pub fn prepare(from: &Path, to: &Path) -> Result<()> {
    crypto_build::files::copy_tree(from, to)?;
    speed_up_configure(&to.join("Configure")).map(drop)
}

/// One scratch OpenSSL tree, configured for a target and set.
pub struct Scratch<'a> {
    pub dir: PathBuf,
    tools: &'a HostTools,
    fake: FakeTools,
    target: &'static Target,
    /// `data::CONFIGURE_COMMON`'s options for the tree's release.
    common: Vec<&'static str>,
    /// What Configure printed on its standard error though it succeeded (another release's
    /// `***** Deprecated options: no-ssl3`): an option it now ignores must not pass unseen.
    pub warnings: Vec<String>,
    /// The FIPS module as the `enable-fips` Configure before this one laid it out, when asked.
    pub fips: Option<super::fips::FipsPass>,
}

/// What Configure decided: configdata.pm's %config, %target and %disabled as [`DUMP_CONFIG`]
/// prints them, and its warnings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigData {
    pub config: BTreeMap<String, String>,
    pub target: BTreeMap<String, String>,
    /// Each disabled feature, with Configure's reason (`default`, `option`, `cascade`, ...).
    pub disabled: BTreeMap<String, String>,
    pub warnings: Vec<String>,
}

impl ConfigData {
    fn parse(dump: &str, warnings: Vec<String>) -> Result<ConfigData> {
        let mut entries: Vec<(&str, &str, String)> = Vec::new();
        for line in dump.lines() {
            let f: Vec<&str> = line.splitn(3, '\t').collect();
            match (f[0], f.len()) {
                ("config" | "target" | "disabled", 2 | 3) => {
                    entries.push((f[0], f[1], f.get(2).unwrap_or(&"").to_string()))
                }
                // A value with a newline in it (a target's perl snippet) goes on.
                _ => {
                    let (_, _, value) =
                        entries.last_mut().context("the configdata dump starts mid-value")?;
                    value.push('\n');
                    value.push_str(line);
                }
            }
        }
        let mut data = ConfigData { warnings, ..ConfigData::default() };
        for (kind, key, value) in entries {
            let map = match kind {
                "config" => &mut data.config,
                "target" => &mut data.target,
                _ => &mut data.disabled,
            };
            map.insert(key.to_string(), value);
        }
        Ok(data)
    }
}

/// For a `Scheme::Nmake` target: a Configure target of our own that is the same target built
/// by OpenSSL's Unix Makefile, so GNU make runs the very generation rules. The Makefile
/// template's Windows file naming comes from the mingw platform module (no output uses it). Its name must keep the `VC-` prefix, which build.info files test (MSVC
/// gets bn_asm.c, not the gcc inline asm of asm/x86_64-gcc.c); the one place the name is
/// written into an output, buildinf.h's PLATFORM, gets the real name back from `make`.
const UNIX_MAKE_SHIM: &str = r#"# crypto-build: @TARGET@, with the Unix Makefile instead of nmake's.
my %targets = (
    "@TARGET@-crypto-build" => {
        inherit_from    => [ "@TARGET@" ],
        build_scheme    => [ "unified", "unix" ],
        build_file      => "Makefile",
        perl_platform   => "mingw",
    },
);
"#;
const SHIM_FILE: &str = ".crypto-build-targets.conf";

/// What the dump of configdata.pm says libcrypto and libssl are built from.
#[derive(Debug, Default)]
pub struct Layout {
    /// (library, source path, per-object include and define words)
    pub units: Vec<(String, String, Vec<String>)>,
    /// Generated files to produce and collect.
    pub generated: Vec<String>,
}

impl<'a> Scratch<'a> {
    /// Runs Configure in `dir`, a copy of `source`'s tree made by [`prepare`], as `config`
    /// wants it (its target, its set's identity and options, its C variant's options).
    /// With `fips`, the tree is first configured as `enable-fips` and the module read
    /// ([`super::fips::pass`]), then taken back to its copied state.
    pub fn configure(
        dir: PathBuf,
        tools: &'a HostTools,
        source: &Source,
        config: &Config,
        fips: bool,
    ) -> Result<Scratch<'a>> {
        let target = config.target;
        let identity = &config.set.identity;
        let fake = FakeTools::write(&dir.join(".fake-bin"), &tools.perl, target, identity)?;
        let common = data::configure_common(&source.version);
        let mut scratch =
            Scratch { dir, tools, fake, target, common, warnings: Vec::new(), fips: None };
        let options = super::configure_options(config);
        if fips {
            let copied = scratch.files()?;
            let pass = super::fips::pass(&scratch, &options).context("the FIPS module")?;
            scratch.reset(&copied, &[])?;
            scratch.forget_probes()?;
            scratch.fips = Some(pass);
        }
        scratch.warnings = match target.scheme {
            Scheme::UnixMake => scratch.run_configure(target.name, &options, false)?,
            Scheme::Nmake => scratch.configure_through_shim(&options)?,
        };
        Ok(scratch)
    }

    /// Runs Configure; returns what it printed on its standard error.
    fn run_configure(&self, target: &str, options: &[&str], insist: bool) -> Result<Vec<String>> {
        self.run_configure_as(&self.common, target, options, insist)
    }

    /// Runs Configure with `common` for [`data::CONFIGURE_COMMON`]'s options.
    fn run_configure_as(
        &self,
        common: &[&str],
        target: &str,
        options: &[&str],
        insist: bool,
    ) -> Result<Vec<String>> {
        let mut cmd = self.command(&self.tools.perl);
        cmd.arg("Configure").arg(target).args(common).args(options);
        if insist {
            cmd.env("CONFIGURE_INSIST", "1");
        }
        let stderr = run(&mut cmd, "OpenSSL's Configure")?;
        Ok(stderr.lines().filter(|l| !l.trim().is_empty()).map(String::from).collect())
    }

    /// What Configure decided for this tree.
    pub fn config_data(&self) -> Result<ConfigData> {
        let dump = self.dump(".dump-config.pl", DUMP_CONFIG)?;
        ConfigData::parse(&dump, self.warnings.clone())
    }

    pub(super) fn dump(&self, name: &str, script: &str) -> Result<String> {
        let path = self.dir.join(name);
        fs::write(&path, script)?;
        let mut cmd = self.command(&self.tools.perl);
        cmd.arg(&path);
        capture(&mut cmd, "reading configdata.pm")
    }

    /// Configures the shim target, after proving it equivalent: the real target, configured
    /// first (CONFIGURE_INSIST lets a Unix perl past its checker, though its nmake makefile
    /// is of no use here), must show the same sources, defines, generated files, config and
    /// disabled features.
    fn configure_through_shim(&self, options: &[&str]) -> Result<Vec<String>> {
        let name = self.target.name;
        let warnings = self.run_configure(name, options, true)?;
        let reference = self.configdata_dump()?;
        // GNU make would read nmake's `makefile` before the shim's `Makefile`.
        fs::remove_file(self.dir.join("makefile")).context("removing nmake's makefile")?;
        let shim = UNIX_MAKE_SHIM.replace("@TARGET@", name);
        fs::write(self.dir.join(SHIM_FILE), shim)?;
        let config = format!("--config={SHIM_FILE}");
        let options: Vec<&str> =
            std::iter::once(config.as_str()).chain(options.iter().copied()).collect();
        self.run_configure(&format!("{name}-crypto-build"), &options, false)?;
        let ours = self.configdata_dump()?;
        let differs = reference.lines().zip(ours.lines()).find(|(a, b)| a != b);
        if let Some((a, b)) = differs.or((reference != ours).then_some(("(end)", "(end)"))) {
            bail!("configuring {name} through the Unix Makefile changed its configdata: `{a}` became `{b}`");
        }
        Ok(warnings)
    }

    /// Configures with `common` and `options` through the Makefile a build reads: an nmake
    /// target's through its Unix Makefile shim, which [`Scratch::configure_through_shim`]
    /// proves equivalent.
    pub(super) fn configure_for_make(&self, common: &[&str], options: &[&str]) -> Result<()> {
        let name = self.target.name;
        match self.target.scheme {
            Scheme::UnixMake => self.run_configure_as(common, name, options, false).map(drop),
            Scheme::Nmake => {
                fs::write(self.dir.join(SHIM_FILE), UNIX_MAKE_SHIM.replace("@TARGET@", name))?;
                let config = format!("--config={SHIM_FILE}");
                let all: Vec<&str> =
                    std::iter::once(config.as_str()).chain(options.iter().copied()).collect();
                self.run_configure_as(common, &format!("{name}-crypto-build"), &all, false)
                    .map(drop)
            }
        }
    }

    /// The common options of this tree's release.
    pub(super) fn common(&self) -> &[&'static str] {
        &self.common
    }

    /// What a configuration builds, in text: the layout dump, and every config, target and
    /// disabled entry except those naming the target, its build file or the config files.
    fn configdata_dump(&self) -> Result<String> {
        let layout = self.dump(".dump-layout.pl", &dump_layout_script(LIBRARIES))?;
        Ok(layout + &self.dump(".dump-config.pl", DUMP_CONFIG)?)
    }

    /// Gives the fake tools another set's identity, for a configuration sharing this tree.
    pub fn set_identity(&mut self, identity: &AsmIdentity) -> Result<()> {
        self.fake = FakeTools::write(&self.fake.dir, &self.tools.perl, self.target, identity)?;
        Ok(())
    }

    /// Whether anything run since the last [`Scratch::forget_probes`] asked for the identity.
    pub fn probed(&self) -> bool {
        self.fake.probed()
    }

    pub fn forget_probes(&self) -> Result<()> {
        self.fake.forget_probes()
    }

    /// An error if the fake cc met an invocation it does not know (`FakeTools`).
    pub fn check_no_unexpected(&self) -> Result<()> {
        self.fake.check_no_unexpected()
    }

    /// Every file in the tree, relative to it: what a [`Scratch::reset`] goes back to.
    pub fn files(&self) -> Result<HashSet<PathBuf>> {
        let mut out = HashSet::new();
        walk(&self.dir, &mut |p| {
            out.insert(p.strip_prefix(&self.dir).unwrap().to_path_buf());
        })?;
        Ok(out)
    }

    /// Removes every file made since `files` was taken, except `keep`, so that make remakes
    /// the rest from scratch.
    pub fn reset(&self, files: &HashSet<PathBuf>, keep: &[String]) -> Result<()> {
        let keep: HashSet<PathBuf> = keep.iter().map(PathBuf::from).collect();
        let mut made = Vec::new();
        walk(&self.dir, &mut |p| {
            let rel = p.strip_prefix(&self.dir).unwrap();
            if !files.contains(rel) && !keep.contains(rel) {
                made.push(p.to_path_buf());
            }
        })?;
        for p in made {
            fs::remove_file(&p).with_context(|| format!("removing {}", p.display()))?;
        }
        Ok(())
    }

    /// Renames Configure's asm files (all `.s`) to the extension of the target's own
    /// rendering; returns the list with the new names.
    pub fn name_own_rendering(&self, generated: &[String]) -> Result<Vec<String>> {
        let own = self.target.syntaxes[0];
        generated
            .iter()
            .map(|f| {
                if AsmSyntax::of_path(f).is_none_or(|s| s == own) {
                    return Ok(f.clone());
                }
                let renamed = own.rename(f);
                fs::rename(self.dir.join(f), self.dir.join(&renamed))
                    .with_context(|| format!("renaming {f}"))?;
                self.fit_for(own, &renamed)?;
                Ok(renamed)
            })
            .collect()
    }

    /// A command with a cleared environment: only the fake tools, PATH, a C locale and a fixed
    /// build date reach OpenSSL's scripts.
    fn command(&self, program: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(&self.dir)
            .env_clear()
            .env("PATH", format!("{}:{}", self.fake.dir.display(), self.tools.path))
            .env("LC_ALL", "C")
            .env("SOURCE_DATE_EPOCH", SOURCE_DATE_EPOCH)
            .env("CC", "cc")
            .env("ASM", "nasm");
        cmd
    }

    pub fn layout(&self) -> Result<Layout> {
        parse_layout(&self.dump(".dump-layout.pl", &dump_layout_script(LIBRARIES))?)
    }

    /// The layout of the FIPS module alone (library `fips`), in a tree configured with it.
    pub(super) fn fips_layout(&self) -> Result<Layout> {
        parse_layout(&self.dump(".dump-layout.pl", &dump_layout_script(FIPS_MODULE))?)
    }

    /// Make variables as the Makefile resolves them, the words of each in turn: each list
    /// ends with a `--` word.
    pub(super) fn make_words(&self, vars: &[&str]) -> Result<Vec<Vec<String>>> {
        let extra = self.dir.join(".print-vars.mk");
        let printed: String = vars.iter().map(|v| format!(" $({v}) '--'")).collect();
        fs::write(&extra, format!("crypto-build-vars:\n\t@printf '%s\\n'{printed}\n"))?;
        let mut cmd = self.command(&self.tools.make);
        cmd.args(["-s", "-f", "Makefile", "-f"]).arg(&extra).arg("crypto-build-vars");
        let out = capture(&mut cmd, "reading the Makefile's variables")?;
        let _ = fs::remove_file(&extra);
        let mut lists = vec![vec![]];
        for w in out.lines() {
            match w {
                "--" => lists.push(vec![]),
                w => lists.last_mut().expect("one list at least").push(w.to_string()),
            }
        }
        lists.pop();
        if lists.len() != vars.len() {
            bail!("the Makefile printed {} lists for {} variables", lists.len(), vars.len());
        }
        Ok(lists)
    }

    /// Runs OpenSSL's own Makefile rules for the generated files, with variable overrides;
    /// `jobs` at a time, or as the inherited jobserver allows.
    pub fn make(&self, files: &[String], overrides: &[String], jobs: usize) -> Result<()> {
        let mut cmd = self.command(&self.tools.make);
        crypto_build::jobs::configure_make(&mut cmd, jobs);
        cmd.args(overrides).args(files);
        // The shim's Makefile would write its own name into buildinf.h.
        cmd.arg(format!("PLATFORM={}", self.target.name));
        run(&mut cmd, "OpenSSL's generation rules (make)").map(drop)
    }

    /// OpenSSL's recipes for its generated C files and headers, as make spells them
    /// (`make -n`), run in order by one perl (see [`super::recipes`]).
    pub fn make_c(&self, files: &[String]) -> Result<()> {
        let mut cmd = self.command(&self.tools.make);
        cmd.arg("-n").args(files);
        cmd.arg(format!("PLATFORM={}", self.target.name));
        let make_n = capture(&mut cmd, "OpenSSL's generation rules (make -n)")?;
        let perl = self.tools.perl.to_str().context("perl's path is not UTF-8")?;
        let input = super::recipes::records(&make_n, perl)?;
        let runner = self.dir.join(".crypto-build-recipes.pl");
        fs::write(&runner, super::recipes::RUNNER)?;
        let mut cmd = self.command(&self.tools.perl);
        cmd.arg(&runner);
        let what = "OpenSSL's generation rules (their recipes in one perl)";
        run_with_input(&mut cmd, input.as_bytes(), what).map(drop)
    }

    /// Renders Configure's asm files again in another syntax, through the same Makefile rules
    /// with perlasm's flavour overridden; returns the new files' paths (renamed to the
    /// syntax's extension). The originals must have been collected already: they are replaced.
    pub fn render(&self, asm: &[String], syntax: AsmSyntax, jobs: usize) -> Result<Vec<String>> {
        for f in asm {
            fs::remove_file(self.dir.join(f)).with_context(|| format!("removing {f}"))?;
        }
        let scheme = format!("PERLASM_SCHEME={}", syntax.perlasm_scheme(self.target.arch));
        self.make(asm, &[scheme], jobs)?;
        asm.iter()
            .map(|f| {
                let renamed = syntax.rename(f);
                fs::rename(self.dir.join(f), self.dir.join(&renamed))?;
                self.fit_for(syntax, &renamed)?;
                Ok(renamed)
            })
            .collect()
    }

    /// A nasm rendering with x86asm.pl's C preprocessor conditionals written as nasm's, and
    /// for a target GNU ld links without `safeseh` (`super::nasm`); other renderings are as
    /// perlasm wrote them.
    fn fit_for(&self, syntax: AsmSyntax, rel: &str) -> Result<()> {
        if syntax != AsmSyntax::Nasm {
            return Ok(());
        }
        let path = self.dir.join(rel);
        let text = fs::read_to_string(&path).with_context(|| format!("reading {rel}"))?;
        let mut fixed = super::nasm::conditionals_for_nasm(&text).context(rel.to_string())?;
        if self.target.cc_kind == data::CcKind::Gnu {
            fixed = super::nasm::without_safeseh(&fixed);
        }
        if fixed != text {
            fs::write(&path, fixed).with_context(|| format!("writing {rel}"))?;
        }
        Ok(())
    }

    /// OpenSSL's library compile flags and system libraries, as the Makefile resolves them.
    /// The shell's word splitting here is the same the real compile line gets.
    pub fn flags(&self) -> Result<(Vec<String>, Vec<String>)> {
        let extra = self.dir.join(".print-flags.mk");
        fs::write(
            &extra,
            "crypto-build-flags:\n\t@printf '%s\\n' $(LIB_CFLAGS) $(LIB_CPPFLAGS) '--' $(LIB_EX_LIBS)\n",
        )?;
        let mut cmd = self.command(&self.tools.make);
        cmd.args(["-s", "-f", "Makefile", "-f"]).arg(&extra).arg("crypto-build-flags");
        let out = capture(&mut cmd, "reading OpenSSL's compile flags")?;
        let words: Vec<String> = out.lines().map(String::from).collect();
        let split = words.iter().position(|w| w == "--").context("flag dump has no separator")?;
        Ok((words[..split].to_vec(), library_names(&words[split + 1..])))
    }

    /// Configures this scratch tree again with `extra` options and reads that layout. Only
    /// for the end of a configuration's generation: Configure rewrites the Makefile.
    pub fn layout_reconfigured(&self, options: &[&str], extra: &[&str]) -> Result<Layout> {
        let all: Vec<&str> = options.iter().chain(extra).copied().collect();
        match self.target.scheme {
            Scheme::UnixMake => self.run_configure(self.target.name, &all, false)?,
            Scheme::Nmake => {
                let config = format!("--config={SHIM_FILE}");
                let all: Vec<&str> = std::iter::once(config.as_str()).chain(all).collect();
                self.run_configure(&format!("{}-crypto-build", self.target.name), &all, false)?
            }
        };
        self.layout()
    }
}

/// The layout dump's (library, what configdata names it) pairs: the libraries and the program.
const LIBRARIES: &str = "['crypto', 'libcrypto'], ['ssl', 'libssl'], ['apps', 'apps/openssl']";
/// The FIPS module's, in a tree configured `enable-fips`: its own objects, linked whole, and
/// those of the static libraries it links (`fipslib`), from which the linker takes what they
/// need, as OpenSSL links `libfips.a` (it holds units no FIPS algorithm calls, OCB's, whose
/// callees the module lacks).
const FIPS_MODULE: &str = "['fips', 'providers/fips', 'fipslib']";

/// The system libraries of a Makefile's EX_LIBS words, without `-l`: gcc's `-lws2_32`, cl's
/// `ws2_32.lib`, and `-pthread`'s.
pub(super) fn library_names(words: &[String]) -> Vec<String> {
    let name = |w: &String| {
        let lib = w.strip_prefix("-l").or_else(|| w.strip_suffix(".lib"));
        lib.or_else(|| (w == "-pthread").then_some("pthread")).map(String::from)
    };
    words.iter().filter_map(name).collect()
}

fn dump_layout_script(libraries: &str) -> String {
    let list =
        |items: &[&str]| items.iter().map(|i| format!("'{i}'")).collect::<Vec<_>>().join(", ");
    DUMP_LAYOUT
        .replace("@LIBRARIES@", libraries)
        .replace("@LEGACY_LIBS@", &list(LEGACY.libs))
        .replace("@LEGACY_SOURCES@", &list(LEGACY.sources))
}

fn parse_layout(out: &str) -> Result<Layout> {
    let mut layout = Layout::default();
    for line in out.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f[0] {
            "unit" if f.len() >= 3 => layout.units.push((
                f[1].to_string(),
                f[2].to_string(),
                f[3..].iter().filter(|w| !w.is_empty()).map(|w| w.to_string()).collect(),
            )),
            "gen" if f.len() == 2 => layout.generated.push(f[1].to_string()),
            _ => bail!("unexpected line from the configdata dump: `{line}`"),
        }
    }
    if layout.units.is_empty() {
        bail!("configdata.pm lists no sources for what it was asked of");
    }
    Ok(layout)
}

/// Walks %unified_info the way OpenSSL's gentemplate.pm does: a library or program given as a
/// source or dependency contributes its objects, and so do the static libraries it depends
/// on. Objects of the legacy provider's libraries and sources (`LEGACY` in data.rs, put in
/// by `legacy_rule`) are listed under `legacy`: they go into libcrypto only when it is on.
const DUMP_LAYOUT: &str = r#"
use strict; use warnings;
use lib '.'; use configdata;
my $u = \%unified_info;
my (%seen_obj, %gen);
my %legacy_lib = map { $_ => 1 } (@LEGACY_LIBS@);
my %legacy_src = map { $_ => 1 } (@LEGACY_SOURCES@);
sub libs_of { my ($bin) = @_;
  my @out; my @todo = grep { /\.a$/ } (@{$u->{sources}{$bin} // []}, @{$u->{depends}{$bin} // []});
  while (my $l = shift @todo) { next if grep { $_ eq $l } @out; push @out, $l;
    push @todo, grep { /\.a$/ } (@{$u->{sources}{$l} // []}, @{$u->{depends}{$l} // []}); }
  return @out; }
sub emit_objs { my ($name, $bin) = @_;
  for my $obj (grep { !/\.a$/ } @{$u->{sources}{$bin} // []}) {
    next if $seen_obj{$obj}++;
    my @srcs = @{$u->{sources}{$obj} // []};
    my @incs = (@{$u->{includes}{$obj} // []}, @{$u->{includes}{$bin} // []});
    my @defs = (@{$u->{defines}{$obj} // []}, @{$u->{defines}{$bin} // []});
    for my $src (@srcs) {
      my $lib = $name eq 'crypto' && ($legacy_lib{$bin} || $legacy_src{$src}) ? 'legacy' : $name;
      my @words = $src =~ /\.s$/ ? () : ((map { "-I$_" } @incs), (map { "-D$_" } @defs));
      print join("\t", "unit", $lib, $src, @words), "\n";
    }
    # Hand-written asm (s390x's crypto/bn/asm/s390x.S) is kept in the set as if generated, so
    # it is scanned, locked and chosen per file like the rest.
    for (@srcs, @{$u->{depends}{$obj} // []}) { $gen{$_} = 1 if $u->{generate}{$_} || /\.[sS]$/; }
  } }
for my $lib (@LIBRARIES@) {
  my ($name, $bin, $libs) = @$lib;
  emit_objs($name, $bin);
  emit_objs($libs // $name, $_) for libs_of($bin);
}
# Every generated header of the libraries, including those Configure itself writes.
$gen{$_} = 1 for grep { /\.(h|inc)$/ && !m{^(apps|test|fuzz)/} } keys %{$u->{generate}};
# What `make install_sw` installs for CMake's find_package(OpenSSL CONFIG): its paths are
# relative to the file, so they do not depend on the prefix Configure was given.
$gen{$_} = 1 for grep { m{^exporters/[^/]+\.cmake$} } keys %{$u->{generate}};
print "gen\t$_\n" for sort keys %gen;
"#;

/// configdata's %config, %target and %disabled, less what names the target or how it is
/// built; a code reference shows as `CODE`, not its address.
const DUMP_CONFIG: &str = r#"
use strict; use warnings;
use lib '.'; use configdata;
my $skip_config = qr/^(target|perlargv|build_file|build_file_templates|build_infos|sourcedir|builddir|conf_files|template_files)$/;
my $skip_target = qr/^(build_scheme|build_file|perl_platform|_conf_fname_int|template)$/;
sub show { my $v = shift; $v = ref $v eq 'ARRAY' ? join(' ', @$v) : ref $v eq 'HASH' ? join(' ', map { "$_=$v->{$_}" } sort keys %$v) : ref $v ? ref $v : $v // ''; $v =~ s/\b(CODE|HASH|ARRAY)\(0x[0-9a-f]+\)/$1/g; $v }
for (sort keys %config) { next if /$skip_config/; my $v = show($config{$_}); $v =~ s/--config=\S+ //g if $_ eq 'options'; print "config	$_	$v
"; }
for (sort keys %target) { next if /$skip_target/; print "target	$_	", show($target{$_}), "
"; }
print "disabled	$_	$disabled{$_}
" for sort keys %disabled;
"#;

/// Runs a tool to success; returns its standard error.
fn run(cmd: &mut Command, what: &str) -> Result<String> {
    let out = cmd.output().with_context(|| format!("starting {what}: {cmd:?}"))?;
    succeeded(cmd, out, what)
}

/// [`run`] with `input` on the tool's standard input.
fn run_with_input(cmd: &mut Command, input: &[u8], what: &str) -> Result<String> {
    use std::io::Write as _;
    use std::process::Stdio;
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().with_context(|| format!("starting {what}: {cmd:?}"))?;
    let mut stdin = child.stdin.take().context("the tool's standard input")?;
    // Written from a thread: a tool that fills its output pipe before reading all its input
    // would otherwise wait on this process forever.
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().with_context(|| format!("running {what}"))?;
    let written = writer.join().map_err(|_| anyhow::anyhow!("writing to {what} panicked"))?;
    let stderr = succeeded(cmd, out, what)?;
    written.with_context(|| format!("writing to {what}"))?;
    Ok(stderr)
}

/// A finished tool's standard error, or its failure with the tails of both its outputs.
fn succeeded(cmd: &Command, out: std::process::Output, what: &str) -> Result<String> {
    if !out.status.success() {
        bail!(
            "{what} failed ({}): {:?}\n{}{}",
            out.status,
            cmd,
            tail(&out.stdout),
            tail(&out.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&out.stderr).into_owned())
}

fn capture(cmd: &mut Command, what: &str) -> Result<String> {
    let out = cmd.output().with_context(|| format!("starting {what}: {cmd:?}"))?;
    if !out.status.success() {
        bail!("{what} failed ({}): {:?}\n{}", out.status, cmd, tail(&out.stderr));
    }
    String::from_utf8(out.stdout).with_context(|| format!("{what}: output is not UTF-8"))
}

/// The last lines of a tool's output, enough to see why it failed.
fn tail(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().collect();
    let from = lines.len().saturating_sub(20);
    lines[from..].iter().map(|l| format!("  {l}\n")).collect()
}

fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) -> Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            walk(&entry.path(), f)?;
        } else {
            f(&entry.path());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pinned release's Configure takes every rewrite: generation is not silently back at
    /// Configure's own speed.
    #[test]
    fn configure_takes_every_rewrite_once() {
        let dir = tempfile::tempdir().unwrap();
        let configure = dir.path().join("Configure");
        fs::copy(
            crypto_build::line_source_dir(crypto_build::data::DEFAULT_LINE)
                .unwrap()
                .join("Configure"),
            &configure,
        )
        .unwrap();
        assert_eq!(speed_up_configure(&configure).unwrap(), CONFIGURE_REWRITES.len());
        let text = fs::read_to_string(&configure).unwrap();
        for (from, to) in CONFIGURE_REWRITES.iter().flat_map(|g| g.iter()) {
            assert!(text.contains(to) && (to.contains(from) || !text.contains(from)), "{from}");
        }
        // Applied twice, no text is found, and the file is left as it is.
        assert_eq!(speed_up_configure(&configure).unwrap(), 0);
        assert_eq!(fs::read_to_string(&configure).unwrap(), text);
    }
}
