//! Generation of the asm sets: OpenSSL's Configure and perlasm under a fixed identity, then
//! scan, manifest and hash lock. Everything is staged first and swapped in at the end, so a
//! failed or interrupted run leaves the previous outputs as they were.

mod fips;
mod identity;
mod nasm;
mod openssl;
mod recipes;
pub mod scan;
mod trees;

pub use openssl::{ConfigData, HostTools};

use anyhow::{bail, Context, Result};
use crypto_build::data::{Arch, AsmSyntax, Feature, SetRole, LEGACY};
use crypto_build::lock::{self, Lock};
use crypto_build::manifest::{self, AsmFile, FileHash, Lib, Manifest, Unit};
use crypto_build::sets::Config;
use crypto_build::sha256;
use crypto_build::source::Source;
use openssl::Scratch;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
pub use trees::Trees;

/// What to generate, from which OpenSSL tree, and where the set directories live.
pub struct Request<'a> {
    pub root: &'a Path,
    pub configs: Vec<Config>,
    pub jobs: usize,
    /// Told of each configuration as it is done: (done so far, total, key, seconds).
    pub progress: Option<&'a Progress>,
    /// The pinned one ([`Source::pinned`]) but for `cargo xtask update-openssl`.
    pub source: &'a Source,
    /// Scratch copies of `source`'s tree kept by the caller for its next generations; else
    /// this one's own.
    pub trees: Option<&'a Trees<'a>>,
}

/// A step or check of generation. A configuration's error carries the one it failed (as
/// anyhow context; [`check_of`] reads it back), so that a survey of another release can say
/// which check each failure is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Configure and what it wrote: unknown options, a target renamed or gone.
    Configure,
    /// OpenSSL's generation rules and perlasm.
    Make,
    /// The asm scan: classes a set must not hold, instructions without a class, fast paths.
    Scan,
    RenderingParity,
    LegacyRule,
    SymbolParity,
    VariantsKeepAsm,
}

impl Check {
    pub fn name(self) -> &'static str {
        match self {
            Check::Configure => "configure",
            Check::Make => "make",
            Check::Scan => "scan",
            Check::RenderingParity => "rendering parity",
            Check::LegacyRule => "legacy rule",
            Check::SymbolParity => "symbol parity",
            Check::VariantsKeepAsm => "variants keep asm",
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The check a generation error failed, when it names one.
pub fn check_of(e: &anyhow::Error) -> Option<Check> {
    e.downcast_ref::<Check>().copied()
}

/// Generation's progress callback; see [`Request::progress`].
pub type Progress = dyn Fn(usize, usize, &str, f64) + Sync;

/// A scratch directory beside the outputs (same filesystem, so renames are atomic); removed on
/// drop, whatever happened.
pub struct Staging {
    pub dir: PathBuf,
}

impl Staging {
    pub fn new(root: &Path) -> Result<Staging> {
        remove_stale_staging(root);
        let dir = root.join(format!(".gen-staging-{}", std::process::id()));
        if dir.exists() {
            fs::remove_dir_all(&dir)?;
        }
        fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        Ok(Staging { dir })
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Staging directories of runs that were killed; their process is gone.
fn remove_stale_staging(root: &Path) {
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if let Some(pid) = name.strip_prefix(".gen-staging-") {
            if Path::new("/proc/self").exists() && !Path::new("/proc").join(pid).exists() {
                let _ = fs::remove_dir_all(e.path());
            }
        }
    }
}

/// One set/target, generated into staging.
pub struct Staged {
    pub dir: PathBuf,
    pub manifest: Manifest,
}

/// Generates every requested configuration into `staging`, scanned and checked; the first
/// failure, in the request's order, is the error.
pub fn stage(req: &Request, staging: &Staging) -> Result<Vec<Staged>> {
    let tools = HostTools::find()?;
    let outcomes = stage_concurrently(req, &tools, staging, false);
    let mut staged = Vec::new();
    for outcome in outcomes {
        staged.push(outcome.context("generation stopped before this configuration")??);
    }
    if let Some((_, e)) = cross_checks(&staged).into_iter().next() {
        return Err(e);
    }
    Ok(staged)
}

/// What a generation that goes on past failures made, for a report on another release.
pub struct Survey {
    /// Every configuration that passed its own checks.
    pub staged: Vec<Staged>,
    /// Each failure, with the key of the configuration it stopped (or, for a check across
    /// configurations, the faster set's); [`check_of`] names the check.
    pub failed: Vec<(String, anyhow::Error)>,
}

/// Generates every requested configuration into `staging`, each as far as it goes: a failed
/// configuration or check is recorded and the rest go on.
pub fn survey(req: &Request, staging: &Staging) -> Result<Survey> {
    let tools = HostTools::find()?;
    let outcomes = stage_concurrently(req, &tools, staging, true);
    let mut survey = Survey { staged: Vec::new(), failed: Vec::new() };
    for (config, outcome) in req.configs.iter().zip(outcomes) {
        match outcome.context("generation stopped before this configuration") {
            Ok(Ok(staged)) => survey.staged.push(staged),
            Ok(Err(e)) | Err(e) => survey.failed.push((config.key(), e)),
        }
    }
    survey.failed.extend(cross_checks(&survey.staged));
    Ok(survey)
}

/// The checks across configurations, each failure with the key it is reported under.
fn cross_checks(staged: &[Staged]) -> Vec<(String, anyhow::Error)> {
    let mut out = check_symbol_parity(staged);
    out.extend(check_variants_keep_asm(staged));
    out
}

/// How a group is staged: the tools, the tree, where, and whether to go on past a failure.
struct Env<'a> {
    tools: &'a HostTools,
    staging: &'a Staging,
    source: &'a Source,
    trees: &'a Trees<'a>,
    jobs: usize,
    keep_going: bool,
}

/// Each configuration's outcome, in the request's order; `None` where generation stopped
/// before it (only without `keep_going`).
type Outcomes = Vec<Option<Result<Staged>>>;

/// Groups of configurations side by side, `jobs` at a time (each group but the first on a token
/// of an inherited jobserver: `jobs::each`): Configure and much of make are one perl process
/// each, so one configuration alone leaves cores idle. The costliest groups start first, so
/// that no long one is left running alone at the end. Without `keep_going`, the first failure
/// stops the groups not yet started.
fn stage_concurrently(
    req: &Request,
    tools: &HostTools,
    staging: &Staging,
    keep_going: bool,
) -> Outcomes {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let total = req.configs.len();
    let groups = groups(&req.configs);
    let own = Trees::new(&req.source.dir, staging.dir.join("work"));
    let trees = req.trees.filter(|t| t.of(&req.source.dir)).unwrap_or(&own);
    let env = Env { tools, staging, source: req.source, trees, jobs: req.jobs, keep_going };
    let done = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<Result<Staged>>>> =
        (0..total).map(|_| Mutex::new(None)).collect();
    crypto_build::jobs::each(groups.len(), req.jobs, |g| {
        let configs: Vec<Config> = groups[g].iter().map(|&i| req.configs[i]).collect();
        let finished = |n: usize, outcome: Result<Staged>, seconds: f64| {
            let i = groups[g][n];
            if let Some(progress) = req.progress {
                let count = done.fetch_add(1, Ordering::SeqCst) + 1;
                let key = req.configs[i].key();
                let key = if outcome.is_ok() { key } else { format!("{key} failed") };
                progress(count, total, &key, seconds);
            }
            *results[i].lock().unwrap() = Some(outcome);
        };
        stage_group(&env, &configs, &finished) || keep_going
    });
    results.into_iter().map(|r| r.into_inner().unwrap()).collect()
}

/// What Configure decides for each group of `configs` that shares one Configure (see
/// [`groups`]), without generating anything: each group with its answer.
pub fn configure_only(
    source: &Source,
    configs: &[Config],
    staging: &Staging,
    jobs: usize,
) -> Result<Vec<(Vec<Config>, Result<ConfigData>)>> {
    let tools = HostTools::find()?;
    let groups: Vec<Vec<Config>> =
        groups(configs).iter().map(|g| g.iter().map(|&i| configs[i]).collect()).collect();
    let trees = Trees::new(&source.dir, staging.dir.join("configure"));
    let configure = |c: &Config| {
        let tree = trees.take().context(Check::Configure)?;
        let scratch = Scratch::configure(tree.dir.clone(), &tools, source, c, false);
        let answer = scratch.and_then(|s| Ok((s.config_data()?, s.probed())));
        trees.give_back(tree);
        answer.context(Check::Configure)
    };
    // As in stage_group: a Configure that asked for the identity serves only its own.
    let answers = crypto_build::par_map(&groups, jobs, |g| match configure(&g[0]) {
        Ok((data, true)) if g.len() > 1 => {
            let rest = g[1..].iter().map(|c| (vec![*c], configure(c).map(|(d, _)| d)));
            std::iter::once((vec![g[0]], Ok(data))).chain(rest).collect()
        }
        answer => vec![(g.clone(), answer.map(|(d, _)| d))],
    });
    Ok(answers.into_iter().flatten().collect())
}

fn configure_options(config: &Config) -> Vec<&'static str> {
    let variant = config.variant.map_or(&[][..], |v| v.configure);
    config.set.configure.iter().chain(variant).copied().collect()
}

/// Indices of `configs` that one Configure serves: the same target, variant and options, so
/// they differ only in their set's assembler identity (`asm` and `asm_avx2`). In each group
/// the configuration whose `no-legacy` Configure proves the LEGACY rule comes last, as that
/// Configure rewrites the tree; groups are ordered by their rough cost, costliest first.
fn groups(configs: &[Config]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, c) in configs.iter().enumerate() {
        let same = |g: &&mut Vec<usize>| {
            let f = &configs[g[0]];
            f.target == c.target
                && f.variant == c.variant
                && configure_options(f) == configure_options(c)
        };
        match groups.iter_mut().find(same) {
            Some(g) => g.push(i),
            None => groups.push(vec![i]),
        }
    }
    for g in &mut groups {
        g.sort_by_key(|&i| checks_legacy(&configs[i]));
    }
    // In units of one perl run of Configure, about what C outputs or one asm rendering take.
    let cost = |g: &Vec<usize>| {
        let target = configs[g[0]].target;
        let configures = match target.scheme {
            crypto_build::data::Scheme::UnixMake => 1,
            crypto_build::data::Scheme::Nmake => 2,
        };
        let asm = g.iter().filter(|&&i| makes_asm(&configs[i])).count() * target.syntaxes.len();
        let legacy = g.iter().filter(|&&i| checks_legacy(&configs[i])).count();
        configures + 1 + asm + legacy
    };
    groups.sort_by_key(|g| std::cmp::Reverse(cost(g)));
    groups
}

fn checks_legacy(config: &Config) -> bool {
    config.variant.is_none() && config.set.role == LEGACY_CHECKED_SET
}

/// A variant keeps no asm; `no_asm` has none.
fn makes_asm(config: &Config) -> bool {
    config.variant.is_none() && !config.set.configure.contains(&"no-asm")
}

/// Stages a group of configurations (see [`groups`]) in one scratch tree of `env.trees`,
/// given back when done, Configured once,
/// telling `finished` of each as it is done. The C outputs are made once too, when neither
/// Configure nor their rules asked the fake tools for the identity, the one thing that
/// differs between the group's configurations; else each configuration gets its own.
/// Without `keep_going`, stops at the first failure. Says whether all passed.
fn stage_group(env: &Env, group: &[Config], finished: &dyn Fn(usize, Result<Staged>, f64)) -> bool {
    let first = &group[0];
    let started = std::time::Instant::now();
    let tree = match env.trees.take() {
        Ok(t) => t,
        Err(e) => return fail_group(env, group, e.context(Check::Configure), finished),
    };
    let scratch = Scratch::configure(tree.dir.clone(), env.tools, env.source, first, true);
    let mut scratch = match scratch {
        Ok(s) => s,
        Err(e) => {
            env.trees.give_back(tree);
            return fail_group(env, group, e.context(Check::Configure), finished);
        }
    };
    if group.len() > 1 && scratch.probed() {
        drop(scratch);
        env.trees.give_back(tree);
        let mut all = true;
        for (n, config) in group.iter().enumerate() {
            let one =
                |_: usize, outcome: Result<Staged>, seconds: f64| finished(n, outcome, seconds);
            all &= stage_group(env, std::slice::from_ref(config), &one);
            if !all && !env.keep_going {
                break;
            }
        }
        return all;
    }
    let shared = match Configured::read(&scratch) {
        Ok(c) => c,
        Err(e) => {
            drop(scratch);
            env.trees.give_back(tree);
            return fail_group(env, group, e.context(Check::Configure), finished);
        }
    };
    let mut shared_c = false;
    let mut all = true;
    for (n, config) in group.iter().enumerate() {
        let started = if n == 0 { started } else { std::time::Instant::now() };
        let outcome = stage_member(env, &mut scratch, config, (n, &shared), &mut shared_c);
        let ok = outcome.is_ok();
        let outcome = outcome.with_context(|| format!("generating {}", config.key()));
        finished(n, outcome, started.elapsed().as_secs_f64());
        all &= ok;
        if !ok && !env.keep_going {
            break;
        }
    }
    drop(scratch);
    env.trees.give_back(tree);
    all
}

/// A group whose Configure failed: the first configuration gets the error, the others (with
/// `keep_going`) one that points at it.
fn fail_group(
    env: &Env,
    group: &[Config],
    e: anyhow::Error,
    finished: &dyn Fn(usize, Result<Staged>, f64),
) -> bool {
    let first = group[0].key();
    finished(0, Err(e.context(format!("generating {first}"))), 0.0);
    for (n, config) in group.iter().enumerate().skip(1).filter(|_| env.keep_going) {
        let e = anyhow::anyhow!("not generated: the Configure it shares with {first} failed");
        finished(
            n,
            Err(e.context(Check::Configure).context(format!("generating {}", config.key()))),
            0.0,
        );
    }
    false
}

/// What a group's Configure made, which each of its configurations starts from.
struct Configured {
    layout: openssl::Layout,
    fips: fips::FipsPass,
    cflags: Vec<String>,
    ex_libs: Vec<String>,
    /// Every file of the tree once configured, which [`Scratch::reset`] goes back to.
    files: std::collections::HashSet<PathBuf>,
    c_outputs: Vec<String>,
}

impl Configured {
    fn read(scratch: &Scratch) -> Result<Configured> {
        let layout = scratch.layout()?;
        let fips = scratch
            .fips
            .clone()
            .context("the scratch tree was configured without the FIPS module")?;
        fips.check(&layout.generated).context("the FIPS module")?;
        let (cflags, ex_libs) = scratch.flags()?;
        let files = scratch.files()?;
        let c_outputs: Vec<String> =
            layout.generated.iter().filter(|f| AsmSyntax::of_path(f).is_none()).cloned().collect();
        Ok(Configured { layout, fips, cflags, ex_libs, files, c_outputs })
    }
}

/// The `n`th configuration of a group, from its configured tree: made, checked, its manifest
/// written. `shared_c` says whether the C outputs already made serve it (and is set when
/// its own rules did not ask for the identity).
fn stage_member(
    env: &Env,
    scratch: &mut Scratch,
    config: &Config,
    (n, shared): (usize, &Configured),
    shared_c: &mut bool,
) -> Result<Staged> {
    if n > 0 {
        let keep = if *shared_c { &shared.c_outputs[..] } else { &[] };
        scratch.reset(&shared.files, keep).context(Check::Make)?;
        scratch.set_identity(&config.set.identity).context(Check::Make)?;
    }
    let (mut m, probed) = stage_config(env, scratch, config, shared, !*shared_c)?;
    *shared_c = *shared_c || !probed;
    (m.cflags, m.ex_libs) = (shared.cflags.clone(), shared.ex_libs.clone());
    if checks_legacy(config) {
        let configure = configure_options(config);
        check_legacy_rule(scratch, &configure, &m).context(Check::LegacyRule)?;
    }
    let out = env.staging.dir.join(config.key());
    crypto_build::files::write_atomic(&out.join(manifest::FILE_NAME), m.to_text().as_bytes())?;
    Ok(Staged { dir: out, manifest: m })
}

/// One configuration from a configured tree into its staging directory: its files made (the
/// C outputs only when `make_c`), collected and scanned; its manifest is not yet written.
/// Also says whether the C outputs' rules asked for the identity.
fn stage_config(
    env: &Env,
    scratch: &Scratch,
    config: &Config,
    shared: &Configured,
    make_c: bool,
) -> Result<(Manifest, bool)> {
    let (work, jobs, layout) = (&scratch.dir, env.jobs, &shared.layout);
    let out = env.staging.dir.join(config.key());
    let mut probed = true;
    if make_c {
        scratch.forget_probes()?;
        scratch.make_c(&shared.c_outputs).context(Check::Make)?;
        probed = scratch.probed();
    }
    // A variant shares its set's asm, so only its C outputs are made and kept.
    let generated: Vec<String> = layout
        .generated
        .iter()
        .filter(|f| config.variant.is_none() || AsmSyntax::of_path(f).is_none())
        .cloned()
        .collect();
    let own_asm: Vec<String> =
        generated.iter().filter(|f| AsmSyntax::of_path(f).is_some()).cloned().collect();
    if !own_asm.is_empty() {
        scratch.make(&own_asm, &[], jobs).context(Check::Make)?;
    }
    // Configure names every asm file `.s`; a target whose own rendering is nasm's gets `.asm`.
    let generated = scratch.name_own_rendering(&generated)?;
    let mut files = collect(work, &out, &generated)?;
    let own_asm: Vec<String> =
        generated.iter().filter(|f| AsmSyntax::of_path(f).is_some()).cloned().collect();
    let mut asm_paths = own_asm.clone();
    // A variant keeps no asm, and no_asm has none to render.
    let renderings = if own_asm.is_empty() { &[][..] } else { &config.target.syntaxes[1..] };
    for &syntax in renderings {
        let rendered = scratch.render(&own_asm, syntax, jobs).context(Check::Make)?;
        files.extend(collect(work, &out, &rendered)?);
        asm_paths.extend(rendered);
    }
    // A script's answer from the fake cc must be one it knows, not a failure taken for one.
    scratch.check_no_unexpected().context(Check::Make)?;
    let mut m = Manifest {
        openssl: env.source.version.clone(),
        target: config.target.name.into(),
        set: config.set.name.into(),
        variant: config.variant.map(|v| v.name.into()),
        files,
        ..Manifest::default()
    };
    add_units(&mut m, &layout.units)?;
    shared.fips.add_to(&mut m, &out).context("the FIPS module")?;
    if config.variant.is_none() {
        m.asm = scan_asm(config, &out, &asm_paths).context(Check::Scan)?;
        check_rendering_parity(&m).context(Check::RenderingParity)?;
    }
    Ok((m, probed))
}

/// Scans a configuration's asm files (in `out`) against its set and reads their entries.
fn scan_asm(config: &Config, out: &Path, asm_paths: &[String]) -> Result<Vec<AsmFile>> {
    let target = config.target;
    let asm_texts: Vec<(String, String)> = asm_paths
        .iter()
        .map(|p| {
            let text = fs::read_to_string(manifest::gen_path(out, p))?;
            // x86_64's `.S` has no conditionals, and `#` starts its comments; ppc64le's
            // files are all `.s`; s390x's hand-written `.S` has C comments and macros; some
            // of RISC-V's `.S` have `//` comments.
            let text = match target.arch {
                Arch::Aarch64 | Arch::Arm | Arch::Mips64 => {
                    scan::preprocessed(&text, target).context(p.clone())?
                }
                Arch::S390x => scan::s390x_preprocessed(&text).context(p.clone())?,
                Arch::Riscv64 if p.ends_with(".S") => scan::riscv_preprocessed(&text),
                Arch::X86_64 | Arch::X86 | Arch::Ppc64le | Arch::Riscv64 => text,
            };
            Ok((p.clone(), text))
        })
        .collect::<Result<_>>()?;
    let classes = scan::check_set(config.set, config.target, &asm_texts)?;
    asm_texts.iter().zip(classes).map(|((p, t), features)| asm_entry(p, t, features)).collect()
}

/// The set on which each target's generation proves `data::LEGACY` right: the one with the
/// most asm, in case the provider ever brought asm of its own.
const LEGACY_CHECKED_SET: SetRole = SetRole::Avx512;

/// What a build leaves out without the legacy provider (`Manifest::with_legacy`) must be what
/// Configure's `no-legacy` leaves out.
fn check_legacy_rule(scratch: &Scratch, configure: &[&str], with: &Manifest) -> Result<()> {
    if !with.units.iter().any(|u| u.lib == Lib::Legacy) {
        bail!("no unit of the legacy provider found ({:?})", LEGACY.libs);
    }
    let layout = scratch.layout_reconfigured(configure, &[LEGACY.configure_off])?;
    let mut real = Manifest::default();
    add_units(&mut real, &layout.units)?;
    let mut derived = with.with_legacy(false);
    // The module is no part of the libraries Configure's `no-legacy` lays out.
    derived.units.retain(|u| !u.lib.is_fips());
    let (derived, real) = (derived.resolved_units(), real.resolved_units());
    let differs = derived.iter().zip(&real).find(|(a, b)| a != b);
    if let Some((a, b)) = differs.or((derived.len() != real.len()).then(|| (&derived[0], &real[0])))
    {
        bail!(
            "leaving the legacy provider out as data::LEGACY says differs from Configure's `{}` \
             ({} units against {}; first difference: {a:?} against {b:?})",
            LEGACY.configure_off,
            derived.len(),
            real.len()
        );
    }
    Ok(())
}

/// A variant takes its asm from its set's directory, so it must not want other asm files.
fn check_variants_keep_asm(staged: &[Staged]) -> Vec<(String, anyhow::Error)> {
    let asm_units = |m: &Manifest| -> Vec<String> {
        let asm = m.units.iter().filter(|u| AsmSyntax::of_path(&u.path).is_some());
        asm.map(|u| u.path.clone()).collect()
    };
    let mut out = Vec::new();
    for v in staged.iter().filter(|s| s.manifest.variant.is_some()) {
        let base = staged.iter().find(|b| {
            b.manifest.variant.is_none()
                && b.manifest.set == v.manifest.set
                && b.manifest.target == v.manifest.target
        });
        if let Some(base) = base {
            if asm_units(&v.manifest) != asm_units(&base.manifest) {
                let e = anyhow::anyhow!(
                    "C variant {} changes the asm files of {}; variants may change only C",
                    v.manifest.key(),
                    base.manifest.key()
                );
                out.push((v.manifest.key(), e.context(Check::VariantsKeepAsm)));
            }
        }
    }
    out
}

fn asm_entry(path: &str, text: &str, features: Vec<Feature>) -> Result<AsmFile> {
    let syntax = scan::syntax_of(path)?;
    Ok(AsmFile { path: path.into(), features, globals: scan::globals(text, syntax) })
}

/// Each rendering of a file (`.s` for GNU as, `.asm` for nasm) must export the same symbols,
/// so that the assembler can be chosen without changing the ABI.
fn check_rendering_parity(m: &Manifest) -> Result<()> {
    for a in &m.asm {
        for b in m.asm.iter().filter(|b| b.path > a.path) {
            let twin = AsmSyntax::of_path(&b.path).map(|s| s.rename(&a.path));
            if twin.as_deref() == Some(b.path.as_str()) && a.globals != b.globals {
                bail!(
                    "{}: {} and {} export different symbols: {:?} vs {:?}",
                    m.key(),
                    a.path,
                    b.path,
                    a.globals,
                    b.globals
                );
            }
        }
    }
    Ok(())
}

/// Groups identical per-unit flag lists, so the manifest (and the compile) has few of them.
pub(crate) fn add_units(m: &mut Manifest, units: &[(String, String, Vec<String>)]) -> Result<()> {
    for (lib, path, words) in units {
        let lib = Lib::parse(lib).context("in configdata's layout")?;
        let group = match m.groups.iter().position(|g| g == words) {
            Some(i) => i,
            None => {
                m.groups.push(words.clone());
                m.groups.len() - 1
            }
        };
        m.units.push(Unit { lib, group, path: path.clone() });
    }
    Ok(())
}

/// Copies generated files out of the scratch tree, with the scratch path stripped, and hashes
/// them.
fn collect(work: &Path, out: &Path, generated: &[String]) -> Result<Vec<FileHash>> {
    let work_str = format!("{}/", work.display());
    let mut files = Vec::new();
    for rel in generated {
        let data = fs::read(work.join(rel)).with_context(|| format!("reading generated {rel}"))?;
        let data = strip_path(&data, work_str.as_bytes());
        let dest = manifest::gen_path(out, rel);
        fs::create_dir_all(dest.parent().unwrap())?;
        fs::write(&dest, &data)?;
        files.push(FileHash { path: rel.clone(), sha256: sha256::hex(&data) });
    }
    Ok(files)
}

fn strip_path(data: &[u8], path: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        if data[i..].starts_with(path) {
            i += path.len();
        } else {
            out.push(data[i]);
            i += 1;
        }
    }
    out
}

/// Every file of a faster set must export exactly the symbols of its slower counterpart, so
/// that files can be mixed across sets without breaking the ABI.
fn check_symbol_parity(staged: &[Staged]) -> Vec<(String, anyhow::Error)> {
    let mut out = Vec::new();
    for a in staged.iter().filter(|s| s.manifest.variant.is_none()) {
        for b in staged.iter().filter(|b| b.manifest.target == a.manifest.target) {
            if a.manifest.set >= b.manifest.set {
                continue;
            }
            for fa in &a.manifest.asm {
                let Some(fb) = b.manifest.asm_file(&fa.path) else {
                    continue;
                };
                if fa.globals != fb.globals {
                    let e = anyhow::anyhow!(
                        "{} exports different symbols in {} and {}: {:?} vs {:?}; files of \
                         these sets cannot be mixed",
                        fa.path,
                        a.manifest.set,
                        b.manifest.set,
                        fa.globals,
                        fb.globals
                    );
                    out.push((a.manifest.key(), e.context(Check::SymbolParity)));
                }
            }
        }
    }
    out
}

/// Swaps staged outputs in place of the previous ones and records them in the lock.
pub fn commit(root: &Path, staging: &Staging, staged: Vec<Staged>) -> Result<()> {
    let mut lock = Lock::load(root)?;
    for m in install(root, staging, staged)? {
        lock.update(&Lock::of_manifest(&m));
    }
    lock.save(root)
}

fn install(root: &Path, staging: &Staging, staged: Vec<Staged>) -> Result<Vec<Manifest>> {
    let old = staging.dir.join("old");
    fs::create_dir_all(&old)?;
    let mut installed = Vec::new();
    for s in staged {
        let dest = root.join(s.manifest.key());
        fs::create_dir_all(dest.parent().unwrap())?;
        if dest.exists() {
            let aside = old.join(s.manifest.key().replace('/', "-"));
            fs::rename(&dest, &aside)
                .with_context(|| format!("moving aside {}", dest.display()))?;
        }
        fs::rename(&s.dir, &dest).with_context(|| format!("installing {}", dest.display()))?;
        installed.push(s.manifest);
    }
    Ok(installed)
}

/// Generates into staging and compares with the committed lock and with what is on disk.
/// Returns the list of differences; empty means reproducible and intact.
pub fn check(req: &Request) -> Result<Vec<String>> {
    let lock = Lock::load(req.root)?;
    if lock.entries.is_empty() {
        bail!("{} is missing or empty; run `cargo xtask generate` and commit it", lock::FILE_NAME);
    }
    let staging = Staging::new(req.root)?;
    let staged = stage(req, &staging)?;
    let mut problems = Vec::new();
    for s in &staged {
        let expected = lock.of_key(&s.manifest.key());
        let fresh = Lock::of_manifest(&s.manifest);
        problems.extend(Lock::diff(&expected, &fresh).into_iter().map(|d| format!("fresh {d}")));
        let on_disk = req.root.join(s.manifest.key());
        if on_disk.join(manifest::FILE_NAME).exists() {
            let disk = lock::of_disk(&on_disk)?;
            problems
                .extend(Lock::diff(&expected, &disk).into_iter().map(|d| format!("on disk {d}")));
        }
    }
    Ok(problems)
}

/// Makes sure every configuration exists and matches the committed lock: a missing one is
/// generated (and compared with the lock as it is made), one on disk is hashed. Every
/// configuration must be in the lock, so a fresh generation on any machine is checked.
/// `trees`: scratch copies of `source`'s tree that the caller keeps for its next generations.
pub fn ensure_all(
    root: &Path,
    source: &Source,
    configs: &[Config],
    jobs: usize,
    progress: Option<&Progress>,
    trees: Option<&Trees>,
) -> Result<()> {
    let lock = Lock::load(root)?;
    for config in configs {
        let key = config.key();
        if lock.of_key(&key).entries.is_empty() {
            bail!("{key} is not in {}; run `cargo xtask generate` and commit it", lock::FILE_NAME);
        }
    }
    ensure_many(root, source, &lock, configs, jobs, progress, trees)?;
    for config in configs {
        let key = config.key();
        let diff = Lock::diff(&lock.of_key(&key), &lock::of_disk(&config.dir(root))?);
        if !diff.is_empty() {
            bail!(
                "{key} on disk differs from {}: {}; regenerate it with `cargo xtask generate`",
                lock::FILE_NAME,
                diff[0]
            );
        }
    }
    Ok(())
}

/// For a build (crypto-build's `gen_tool`): makes sure `configs` exist, generating those
/// missing. A fresh generation must match `lock` (the crate's own, wherever `root` is) before
/// it is installed.
pub fn ensure(
    root: &Path,
    source: &Source,
    lock: &Lock,
    configs: &[Config],
    jobs: usize,
) -> Result<()> {
    ensure_many(root, source, lock, configs, jobs, None, None)
}

/// The configurations not yet on disk, generated together, each compared with `lock` before
/// any is installed.
fn ensure_many(
    root: &Path,
    source: &Source,
    lock: &Lock,
    configs: &[Config],
    jobs: usize,
    progress: Option<&Progress>,
    trees: Option<&Trees>,
) -> Result<()> {
    let missing = |c: &&Config| !c.dir(root).join(manifest::FILE_NAME).exists();
    if !configs.iter().any(|c| missing(&c)) {
        return Ok(());
    }
    // Another build may be generating the same configurations: wait for it, then look again.
    let _lock = crypto_build::files::WriteLock::acquire(root, true)?;
    let configs: Vec<Config> = configs.iter().filter(missing).copied().collect();
    if configs.is_empty() {
        return Ok(());
    }
    let req = Request { root, configs, jobs, progress, source, trees };
    let staging = Staging::new(root)?;
    let staged = stage(&req, &staging)?;
    for s in &staged {
        let key = s.manifest.key();
        let diff = Lock::diff(&lock.of_key(&key), &Lock::of_manifest(&s.manifest));
        if !diff.is_empty() {
            bail!("generated {key} differs from {}: {}", lock::FILE_NAME, diff[0]);
        }
    }
    install(root, &staging, staged).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// data::OPENSSL_VERSION is what the pinned tree says it is.
    #[test]
    fn the_pinned_source_holds_openssl_version() {
        let pinned = Source::pinned();
        assert_eq!(Source::at(&pinned.dir).unwrap(), pinned);
        let e = Source::at(Path::new("/nonexistent")).unwrap_err();
        assert!(format!("{e:#}").contains("not an OpenSSL tree"), "{e:#}");
    }

    #[test]
    fn groups_share_configure_only_across_identities() {
        let targets: Vec<&'static crypto_build::data::Target> =
            crypto_build::data::TARGETS.iter().collect();
        let sets: Vec<&'static crypto_build::data::AsmSet> =
            crypto_build::data::SETS.iter().collect();
        let configs = Config::expand(&targets, &sets);
        let groups = groups(&configs);
        let mut seen: Vec<usize> = groups.iter().flatten().copied().collect();
        seen.sort();
        assert_eq!(seen, (0..configs.len()).collect::<Vec<_>>());
        for g in &groups {
            let f = &configs[g[0]];
            for c in g.iter().map(|&i| &configs[i]) {
                assert_eq!((c.target, c.variant), (f.target, f.variant));
                assert_eq!(configure_options(c), configure_options(f));
            }
            // The `no-legacy` Configure rewrites the tree, so it comes last.
            assert!(g[..g.len() - 1].iter().all(|&i| !checks_legacy(&configs[i])));
        }
        let shared = groups.iter().filter(|g| g.len() > 1).count();
        assert!(shared > 0, "asm and asm_avx2 share Configure options");
    }
}
