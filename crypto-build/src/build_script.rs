//! crypto-sys's build script, end to end: configuration → sets → plan → compile → cargo
//! metadata and the embedded build facts.

use crate::config::{BuildConfig, SetChoice};
use crate::data::{self, AsmSet, AsmSyntax, CVariant, Feature, Target};
use crate::detect::{self, Assembler};
use crate::facts::{self, BuildFacts, PlannedFile};
use crate::lock::{self, Lock};
use crate::manifest::Manifest;
use crate::progress::Progress;
use crate::select::{self, Facts, Plan, Policy};
use crate::sets::Config;
use crate::source::Source;
use crate::{compile, gen_tool, manifest, openssldir, sha256};
use anyhow::{bail, Context, Result};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// Name of the file in OUT_DIR with the system libraries to link (Configure's ex_libs, one per
/// line, without `-l`), for the prefix's pkg-config files.
pub const EX_LIBS_FILE: &str = "crypto-sys-ex-libs.txt";

/// Sets loaded on demand: generated when missing, verified against their hashes once; and the
/// C compiler's answers to the variants' probes, asked once.
pub struct SetFacts<'a> {
    pub sets_root: &'a Path,
    /// The OpenSSL tree a missing set is generated from.
    pub source: &'a Source,
    pub target: &'static Target,
    pub assembler: &'a Assembler,
    pub c_compiler: &'a cc::Tool,
    /// Where probe objects go.
    pub scratch: &'a Path,
    pub loaded: Vec<Manifest>,
    pub c_probes: Vec<(&'static CVariant, bool)>,
    /// The crate's own generate.lock, which every set must match, wherever it was found.
    pub lock: &'a Lock,
    /// Where that lock lies.
    pub lock_dir: &'a Path,
    /// How to repair a set that does not match, for messages.
    pub regenerate: String,
    /// Whether a missing set may be generated: in crypto-sys's repository, not in a package.
    pub generates: bool,
}

impl SetFacts<'_> {
    fn load(&mut self, config: Config) -> Result<&Manifest> {
        let key = config.key();
        if let Some(i) = self.loaded.iter().position(|m| m.key() == key) {
            return Ok(&self.loaded[i]);
        }
        let dir = config.dir(self.sets_root);
        if !dir.join(manifest::FILE_NAME).exists() {
            if !self.generates {
                bail!("{} holds no {key}; {}", self.sets_root.display(), self.regenerate);
            }
            gen_tool::make_sets(self.sets_root, self.lock_dir, self.source, &[config])?;
        }
        let m = Manifest::load(&dir)?;
        self.check_against_lock(&key, &dir, &m)?;
        m.verify_files(&dir)?;
        self.loaded.push(m);
        Ok(self.loaded.last().unwrap())
    }

    /// A manifest pinned by the lock pins every generated file (verify_files then checks them
    /// against it), so a file changed together with its manifest entry is caught here.
    fn check_against_lock(&self, key: &str, dir: &Path, m: &Manifest) -> Result<()> {
        if m.openssl != self.source.version {
            bail!(
                "{} holds sets of OpenSSL {}, but crypto-sys builds OpenSSL {}; {}",
                dir.display(),
                m.openssl,
                self.source.version,
                self.regenerate
            );
        }
        let path = dir.join(manifest::FILE_NAME);
        let Some(locked) = self.lock.entries.get(&(key.to_string(), manifest::FILE_NAME.into()))
        else {
            bail!("{key} is not in {}; {}", lock::FILE_NAME, self.regenerate);
        };
        let data = fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        let actual = sha256::hex(&data);
        if actual != *locked {
            bail!(
                "{} does not match {} (sha256 {actual}, the lock has {locked}): the set was \
                 changed after generation; {}",
                path.display(),
                lock::FILE_NAME,
                self.regenerate
            );
        }
        Ok(())
    }

    /// The manifest of the C configuration the plan compiles.
    pub fn c_manifest(&mut self, plan: &Plan) -> Result<Manifest> {
        let config = Config { target: self.target, set: plan.c_set, variant: plan.c_variant };
        self.load(config).cloned()
    }
}

impl Facts for SetFacts<'_> {
    fn supports(&self, f: Feature) -> bool {
        self.assembler.supports(f)
    }

    fn syntax(&self) -> AsmSyntax {
        self.assembler.syntax
    }

    fn manifest(&mut self, set: &'static AsmSet) -> Result<&Manifest> {
        self.load(Config { target: self.target, set, variant: None })
    }

    fn c_compiles(&mut self, v: &'static CVariant) -> bool {
        if let Some((_, ok)) = self.c_probes.iter().find(|(p, _)| p.name == v.name) {
            return *ok;
        }
        let c = self.c_compiler;
        let ok = detect::probe::c_compiles(c.path(), c.args(), v.probe, self.scratch);
        self.c_probes.push((v, ok));
        ok
    }

    fn c_compiler_refuses(&self, v: &'static CVariant) -> Option<&'static str> {
        let cl_exe = self.c_compiler.is_like_msvc() && !self.c_compiler.is_like_clang_cl();
        data::cl_exe_refuses(v.name).filter(|_| cl_exe)
    }

    fn target(&self) -> &'static Target {
        self.target
    }
}

/// What the pipeline built, for its caller to report.
pub struct Built {
    pub plan: Plan,
    pub assembler: Assembler,
    pub artifacts: compile::Artifacts,
    pub c_manifest: Manifest,
    /// The one line that reports every downgrade, if anything was downgraded.
    pub warning: Option<String>,
    /// Manifests read and the lock that pins them, whose change must rerun the build.
    pub inputs: Vec<std::path::PathBuf>,
}

/// What crypto-sys's Rust code reads its symbol prefix from (`env!`), for its `link_name`s.
pub const SYMBOL_PREFIX_ENV: &str = "CRYPTO_SYS_LINK_PREFIX";

/// crypto-sys's build script: the pipeline, reported to cargo.
pub fn run() -> Result<()> {
    let config = BuildConfig::from_cargo_env()?;
    let built = build(&config, cc::Build::new())?;
    report(&config, &built);
    emit_link(&config, &built);
    emit_asm_cfgs(config.target, &built.plan);
    emit_line_cfgs(config.line);
    Ok(())
}

/// Lets crypto-sys and its tests tell the line built by its release rather than by a feature's
/// name: `crypto_sys_openssl_major = "3"` (the API a major changes: bindings.rs's prototypes
/// whose constness 4.0 changed) and `crypto_sys_openssl = "3.5"` (its series' facts), each
/// value any line's, so that a line's move changes no cfg.
fn emit_line_cfgs(line: &data::OpensslLine) {
    let quoted = |v: Vec<&str>| v.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ");
    let majors = data::OPENSSL_LINES.iter().map(|l| l.major()).collect();
    let series = data::OPENSSL_LINES.iter().map(|l| l.name()).collect();
    println!("cargo:rustc-check-cfg=cfg(crypto_sys_openssl_major, values({}))", quoted(majors));
    println!("cargo:rustc-check-cfg=cfg(crypto_sys_openssl, values({}))", quoted(series));
    println!("cargo:rustc-cfg=crypto_sys_openssl_major={:?}", line.major());
    println!("cargo:rustc-cfg=crypto_sys_openssl={:?}", line.name());
}

/// The warnings (one line each) and the inputs whose change reruns the build, to cargo.
fn report(config: &BuildConfig, built: &Built) {
    if let Some(w) = &built.warning {
        println!("cargo:warning={w}");
    }
    // After the build, which it leaves as it is: the same bytes whatever the date.
    for w in config.line_warnings() {
        println!("cargo:warning={w}");
    }
    for m in &built.inputs {
        println!("cargo:rerun-if-changed={}", m.display());
    }
}

/// What a caller other than crypto-sys's build script asks the pipeline for, naming what cargo's
/// environment would say: the `openssl-src` patch crate's `Build`, as openssl-sys's build
/// script (or a program, for a cross target) calls it.
pub struct Request<'a> {
    pub target: &'a str,
    pub host: &'a str,
    pub out_dir: &'a Path,
    /// OPENSSLDIR, when the caller sets one (openssl-sys: `OPENSSL_CONFIG_DIR`); it wins over
    /// `CRYPTO_SYS_OPENSSLDIR`.
    pub openssldir: Option<&'a str>,
    pub legacy: bool,
    /// The calling build script's package, (name, version) ([`CallerEnv`](crate::config::CallerEnv)).
    pub caller: Option<(&'a str, &'a str)>,
    /// The line the caller's feature chooses, if one does; else [`OPENSSL_LINE_VAR`](crate::config::OPENSSL_LINE_VAR)'s,
    /// else the default.
    pub line: Option<&'static data::OpensslLine>,
}

/// The pipeline for [`Request`]: its line, the user's `CRYPTO_SYS_*` variables as for crypto-sys,
/// warnings and inputs reported to cargo the same way.
pub fn build_for(req: &Request) -> Result<Built> {
    let (target, out_dir) = (req.target, req.out_dir.to_path_buf());
    let mut config = BuildConfig::for_caller(target, out_dir, req.legacy, req.line)?;
    if let Some((name, version)) = req.caller {
        check_caller(name, version, config.line)?;
    }
    if let Some(dir) = req.openssldir {
        openssldir::check(dir).context("the OPENSSLDIR asked for")?;
        config.openssldir = Some(dir.to_string());
    }
    let mut base = cc::Build::new();
    base.target(req.target).host(req.host).out_dir(req.out_dir.join("cc")).cargo_metadata(false);
    let built = build(&config, base)?;
    report(&config, &built);
    Ok(built)
}

/// openssl-sys accepts an OpenSSL major only from a release on ([`data::OPENSSL_SYS_MIN`]): an
/// older one would fail on the headers' version, far from the cause.
pub fn check_caller(name: &str, version: &str, line: &data::OpensslLine) -> Result<()> {
    let major = line.version.split('.').next().unwrap_or_default();
    let min = data::OPENSSL_SYS_MIN.iter().find(|(m, _)| *m == major);
    match min {
        Some((_, min)) if name == "openssl-sys" && !crate::version::at_least(version, min) => {
            bail!(
                "openssl-sys {version} does not accept OpenSSL {} (its {major}.x from openssl-sys \
                 {min} on), which the openssl-src patch builds: run `cargo update -p openssl-sys`",
                line.version
            )
        }
        _ => Ok(()),
    }
}

/// configuration → sets → plan → compile → build facts, the same whether cargo or xtask runs
/// it. `base` is a cc::Build that knows the target (from cargo's environment, or set by xtask).
pub fn build(config: &BuildConfig, mut base: cc::Build) -> Result<Built> {
    let lock_path = config.lock_dir.join(lock::FILE_NAME);
    if config.packaged && !(config.sets_root.exists() && lock_path.exists()) {
        bail!(
            "this crypto-build package carries no pre-generated asm sets of OpenSSL {} or no {} \
             (expected {}); packages must be made with `cargo xtask package`, which packs every \
             line's",
            config.line.version,
            lock::FILE_NAME,
            lock_path.display()
        );
    }
    let progress = Progress::from_env(&config.out_dir.join("obj"));
    progress.phase("probe");
    let lock = Lock::load(&config.lock_dir)?;
    let sets_root = crate::packed::restore(&config.sets_root, config.target.name, &config.out_dir)
        .context("restoring the packaged sets")?;
    // OpenSSL's flags whatever the profile: -O3 and no debug info, as its own build.
    base.cargo_warnings(false).warnings(false).opt_level(3).debug(false);
    let compiler = c_compiler(config, &mut base)?;
    let asm_needed = !matches!(config.choice, SetChoice::Named(s) if s.allowed.is_empty());
    let assembler = detect::assembler(
        config.assembler,
        &compiler,
        config.target,
        config.nasm.as_deref(),
        asm_needed,
        &config.out_dir,
    )?;
    // The line's source crate, every file checked against its list before anything compiles;
    // in the repository, made first when a fresh clone lacks it.
    let krate = crate::source::SourceCrate::of_line(config.line)?;
    if !krate.is_packaged() && !krate.is_made(&krate.lock_for(config.line)?) {
        gen_tool::make_tree(config.line)?;
    }
    let tree = krate.checked(config.line)?;
    let source = Source { dir: tree.dir.clone(), version: config.line.version.into() };
    let mut facts = SetFacts {
        sets_root: &sets_root,
        source: &source,
        target: config.target,
        assembler: &assembler,
        c_compiler: &compiler,
        scratch: &config.out_dir,
        loaded: vec![],
        c_probes: vec![],
        lock: &lock,
        lock_dir: &config.lock_dir,
        regenerate: config.regenerate_hint(),
        generates: !config.packaged && crate::repository().is_some(),
    };
    let policy = Policy { strict: config.strict, allow_downgrade: config.allow_downgrade };
    let plan = select::plan(config.choice, config.variant, policy, &mut facts)?;
    // After the toolchain's own refusals, so that those are named first.
    if config.strict && config.line.behind_security_release(&config.known_releases) {
        let w = config.line.behind_warning(&config.known_releases).unwrap_or_default();
        bail!("strict mode: {w}");
    }
    let warning = plan.degraded().then(|| {
        let mut toolchain = vec![];
        if !plan.downgrades.is_empty() {
            toolchain.push(assembler.describe());
        }
        if plan.variant_refused.is_some() {
            toolchain.push(format!("C compiler {}", compiler.path().display()));
        }
        format!("{} ({})", select::describe(&plan), toolchain.join("; "))
    });
    let mut c_manifest = facts.c_manifest(&plan)?.with_legacy(config.legacy);
    if compiler.is_like_clang() {
        let clang = data::CLANG_EX_LIBS.iter().filter(|(t, _)| *t == config.target.name);
        c_manifest.ex_libs.extend(clang.flat_map(|(_, libs)| libs.iter().map(|l| l.to_string())));
    }
    let openssldir = match &config.openssldir {
        Some(dir) => dir.clone(),
        None => openssldir::configured(&c_manifest)?,
    };
    let cflags = openssldir::cflags(&c_manifest, &openssldir)?;
    let manifests = facts.loaded.iter().map(|m| sets_root.join(m.key()));
    let manifests = manifests.map(|dir| dir.join(manifest::FILE_NAME));
    // The lock vouches for the manifests: a changed or removed lock checks them again; the
    // source crate's list and tree (cargo scans a directory whole), so that a file changed
    // there is checked and refused.
    let list = krate.list_path();
    let inputs = manifests.chain([lock_path, list, tree.dir.clone()]).collect();
    let job = compile::Job {
        plan: &plan,
        c_manifest: &c_manifest,
        set_manifests: &facts.loaded,
        sets_root: &sets_root,
        src_root: &source.dir,
        src_files: &tree.list,
        out_dir: &config.out_dir,
        assembler: &assembler,
        target: config.target,
        buildinf: buildinf(config, &plan, &assembler, &compiler, &cflags),
        base,
        progress: &progress,
        apps: config.apps,
        fips: config.fips,
        openssldir: &openssldir,
        symbol_prefix: config.symbol_prefix.as_ref(),
    };
    let artifacts = compile::compile(&job)?;
    progress.phase("done");
    let tools = Tools { assembler: &assembler, c_compiler: detect::c_compiler(&compiler) };
    write_facts(config, &plan, &tools, &artifacts, openssldir)?;
    artifacts.write_cost(&config.out_dir)?;
    let ex_libs: String = c_manifest.ex_libs.iter().map(|l| format!("{l}\n")).collect();
    fs::write(config.out_dir.join(EX_LIBS_FILE), ex_libs)?;
    Ok(Built { plan, assembler, artifacts, c_manifest, warning, inputs })
}

/// The C compiler, found as cc finds it (an MSVC row's in MSVC mode, `msvc::choose_compiler`)
/// and checked, with what `base` must add for it to find its C library's headers (Linux's for
/// a musl compiler, wine's for clang-cl off Windows).
pub fn c_compiler(config: &BuildConfig, base: &mut cc::Build) -> Result<cc::Tool> {
    crate::msvc::choose_compiler(base, config)?;
    let compiler = base.try_get_compiler().context("finding the C compiler")?;
    // A missing compiler would fail every probe and read as a downgrade; it is not one.
    if which::which(compiler.path()).is_err() {
        bail!(
            "C compiler `{}` not found for {}: set CC to an installed one, or {}",
            compiler.path().display(),
            config.triple,
            config.target.cc_hint_for(&config.triple)
        );
    }
    check_c_library(&compiler, config)?;
    if let Some(dir) = kernel_headers(&compiler, config)? {
        base.flag("-idirafter").flag(dir);
    }
    if let Some(rt) = crate::msvc::runtime(config.target, &compiler) {
        for flag in crate::msvc::system_headers(&compiler, rt, &config.out_dir)? {
            base.flag(flag);
        }
    }
    Ok(compiler)
}

/// The C library the triple names is what the compiler compiles against, or one line saying
/// what to install: a cross libc missing would fail every unit in turn, and a glibc compiler
/// for a musl triple would build a library no musl program can link.
fn check_c_library(compiler: &cc::Tool, config: &BuildConfig) -> Result<()> {
    // cl.exe takes no gcc-style probe; the Windows SDK is its C library.
    if compiler.is_like_msvc() {
        return Ok(());
    }
    let probe = data::c_library_probe(&config.triple);
    let scratch = &config.out_dir;
    fs::create_dir_all(scratch)?;
    if detect::probe::c_compiles(compiler.path(), compiler.args(), &probe, scratch) {
        return Ok(());
    }
    let library = if data::is_musl(&config.triple) { "musl's" } else { "its" };
    bail!(
        "C compiler `{}` for {} cannot compile against {library} C library (<stdio.h>): {}",
        compiler.path().display(),
        config.triple,
        config.target.cc_hint_for(&config.triple)
    )
}

/// For a musl compiler without Linux's headers (`data::MUSL_KERNEL_HEADERS`), a directory of
/// links to the host's, to be read after its own; `None` where the compiler has them. Their
/// absence is one line naming the package.
fn kernel_headers(compiler: &cc::Tool, config: &BuildConfig) -> Result<Option<PathBuf>> {
    let Some(kh) = data::MUSL_KERNEL_HEADERS.iter().find(|k| k.triple == config.triple) else {
        return Ok(None);
    };
    let (probe, scratch) = (data::KERNEL_HEADERS_PROBE, &config.out_dir);
    let (path, args) = (compiler.path(), compiler.args());
    if detect::probe::c_compiles(path, args, probe, scratch) {
        return Ok(None);
    }
    let dir = config.out_dir.join("kernel-headers");
    fs::create_dir_all(&dir)?;
    for (name, target) in kh.links {
        let link = dir.join(name);
        let _ = fs::remove_file(&link);
        #[cfg(unix)]
        std::os::unix::fs::symlink(target, &link)?;
    }
    let mut with: Vec<std::ffi::OsString> = args.to_vec();
    with.extend(["-idirafter".into(), dir.clone().into_os_string()]);
    if !detect::probe::c_compiles(path, &with, probe, scratch) {
        bail!(
            "C compiler `{}` for {} has no Linux headers (<linux/mman.h>), which OpenSSL's C \
             includes, and neither has this host: install linux-libc-dev (Debian), or name a \
             musl C compiler that has them in CC_{}",
            path.display(),
            config.triple,
            config.triple.replace('-', "_")
        );
    }
    Ok(Some(dir))
}

/// crypto/buildinf.h naming what was built, for `OpenSSL_version(OPENSSL_PLATFORM)` and
/// `OPENSSL_CFLAGS` (`openssl version -a`: the library flags `cflags` and the target's speed
/// flags, as compiled). No date and no path, so the build stays reproducible.
fn buildinf(
    c: &BuildConfig,
    plan: &Plan,
    asm: &Assembler,
    cc: &cc::Tool,
    cflags: &[String],
) -> String {
    let platform = format!(
        "platform: {} (crypto-sys: set {} requested {}, {}, C variant {}, legacy provider {})",
        c.target.name,
        plan.c_set.name,
        plan.requested.name(),
        asm.describe(),
        data::variant_name(plan.c_variant),
        if c.legacy { "built in" } else { "left out" },
    );
    // clang-cl by its kind: a clang run in cl mode may be named anything (`clang-19`).
    let name = match cc.path().file_name() {
        _ if cc.is_like_clang_cl() => detect::CLANG_CL.into(),
        Some(n) => n.to_string_lossy(),
        None => "cc".into(),
    };
    let own = cflags.iter().filter(|f| !compile::owned_by_cc(c.target, f)).map(String::as_str);
    let flags: Vec<&str> = own.chain(c.target.speed_cflags.iter().copied()).collect();
    let compiler = format!("compiler: {name} {}", flags.join(" "));
    // ASCII throughout, so Rust's quoting is C's.
    let quoted = |s: &str| format!("{s:?}");
    format!(
        "/* Written by crypto-sys's build for this build's set, assembler and C variant. */\n\
         #define PLATFORM {}\n\
         #define DATE \"built on: reproducible build, date unspecified\"\n\
         static const char compiler_flags[] = {};\n",
        quoted(&platform),
        quoted(&compiler)
    )
}

/// What the build hands the build scripts of crates that depend on crypto-sys, for
/// [`LINK_METADATA`]'s values.
pub struct Linked<'a> {
    pub artifacts: &'a compile::Artifacts,
    /// The symbol prefix (`symbols::Prefix::prefix`), or empty.
    pub prefix: &'a str,
    pub manifest: &'a Manifest,
    pub plan: &'a Plan,
    pub legacy: bool,
}

/// A key of cargo's metadata (`cargo:KEY=VALUE`), which reaches dependents' build scripts as
/// `DEP_CRYPTO_SYS_<KEY>` (`links = "crypto_sys"`).
pub struct LinkKey {
    pub key: &'static str,
    /// What it holds, for docs/configuration.md (rendered from this table).
    pub meaning: &'static str,
    pub value: fn(&Linked) -> String,
}

/// Every key the build emits, each with its value: the one list of them.
#[rustfmt::skip]
pub const LINK_METADATA: &[LinkKey] = &[
    LinkKey { key: "root", meaning: "the libraries crypto-sys links and their headers: `include/` and `lib/` below it, the libraries named and every symbol prefixed by `symbol_prefix` (`libcrypto_sys_0_1_0_crypto.a` and `…_ssl.a`; `lib…_crypto.lib` for MSVC; `libcrypto.a` and `libssl.a` when it is off)",
              value: |l| l.artifacts.linked_dirs().0.parent().unwrap().display().to_string() },
    LinkKey { key: "include", meaning: "the directory holding `openssl/*.h`, for a dependent's own C: its `configuration.h` maps each OpenSSL name the headers declare to the prefixed one, so that C written for OpenSSL links against crypto-sys's libraries",
              value: |l| l.artifacts.linked_dirs().1.display().to_string() },
    LinkKey { key: "symbol_prefix", meaning: "the prefix every symbol of crypto-sys's libraries carries (`crypto_sys_0_1_0_`: its `links` key and `_`), empty when `CRYPTO_SYS_SYMBOL_PREFIX=0`",
              value: |l| l.artifacts.prefixed.as_ref().map_or(String::new(), |_| l.prefix.to_string()) },
    LinkKey { key: "version", meaning: "the OpenSSL release built (its line's), `X.Y.Z`",
              value: |l| l.manifest.openssl.clone() },
    LinkKey { key: "asm_set", meaning: "the set whose C configuration was compiled: `asm`, `asm_avx2`, or `no_asm` (after a full fallback too)",
              value: |l| l.plan.c_set.name.to_string() },
    LinkKey { key: "c_variant", meaning: "the C variant compiled, or `none` (OpenSSL's default C configuration)",
              value: |l| data::variant_name(l.plan.c_variant).to_string() },
    LinkKey { key: "legacy", meaning: "`1` when the legacy provider is built into libcrypto (the `legacy` feature), else `0`",
              value: |l| u8::from(l.legacy).to_string() },
    LinkKey { key: "fips_module", meaning: "the FIPS provider module (`…/lib/ossl-modules/fips.so`, `fips.dll`) with the `fips` feature, else empty",
              value: |l| l.artifacts.fips_module.as_ref().map_or(String::new(), |p| p.display().to_string()) },
    LinkKey { key: "fips_config", meaning: "the module's `fipsmodule.cnf` (its `[fips_sect]`: the module's HMAC, which it checks on each load) with the `fips` feature, else empty",
              value: |l| l.artifacts.fips_config().map_or(String::new(), |p| p.display().to_string()) },
];

fn emit_link(config: &BuildConfig, built: &Built) {
    let (a, m, plan) = (&built.artifacts, &built.c_manifest, &built.plan);
    println!("cargo:rustc-link-search=native={}", a.linked_dirs().0.display());
    for lib in ["ssl", "crypto"] {
        let name = config.symbol_prefix.as_ref().map_or(lib.to_string(), |p| p.library(lib));
        println!("cargo:rustc-link-lib=static={}", config.target.archive_link_name(&name));
    }
    for lib in &m.ex_libs {
        println!("cargo:rustc-link-lib={}", data::ex_lib_cargo(lib));
    }
    let prefix = config.symbol_prefix.as_ref().map_or("", |p| p.prefix.as_str());
    // crypto-sys's bindings name each symbol `concat!(env!(...), "NAME")`.
    println!("cargo:rustc-env={}={prefix}", SYMBOL_PREFIX_ENV);
    let linked = Linked { artifacts: a, prefix, manifest: m, plan, legacy: config.legacy };
    for k in LINK_METADATA {
        println!("cargo:{}={}", k.key, (k.value)(&linked));
    }
}

/// Lets crypto-sys declare what the asm defines only when it is linked: OPENSSL_ia32cap_P
/// with x86 or x86_64 asm (`crypto_sys_ia32cap`), x86_64's eligibility functions
/// (`crypto_sys_asm`; 32-bit x86 has none).
fn emit_asm_cfgs(target: &Target, plan: &Plan) {
    println!("cargo:rustc-check-cfg=cfg(crypto_sys_asm)");
    println!("cargo:rustc-check-cfg=cfg(crypto_sys_ia32cap)");
    let asm = !plan.files.is_empty();
    if asm && matches!(target.arch, data::Arch::X86_64 | data::Arch::X86) {
        println!("cargo:rustc-cfg=crypto_sys_ia32cap");
    }
    if asm && target.arch == data::Arch::X86_64 {
        println!("cargo:rustc-cfg=crypto_sys_asm");
    }
    // And each eligibility function only where this release has its file (3.5 has no
    // aes-cfb-avx512): `cfg(crypto_sys_eligible = "SYMBOL")`.
    let symbols: Vec<String> =
        data::ELIGIBILITIES.iter().map(|e| format!("{:?}", e.symbol)).collect();
    println!("cargo:rustc-check-cfg=cfg(crypto_sys_eligible, values({}))", symbols.join(", "));
    for symbol in linked_eligibilities(plan) {
        println!("cargo:rustc-cfg=crypto_sys_eligible={symbol:?}");
    }
}

/// The eligibility functions (`data::ELIGIBILITIES`) whose file the plan links, in any syntax.
pub fn linked_eligibilities(plan: &Plan) -> Vec<&'static str> {
    let stem = crate::facts::stem;
    let linked = |file: &str| plan.files.iter().any(|f| stem(&f.path) == stem(file));
    data::ELIGIBILITIES.iter().filter(|e| linked(e.file)).map(|e| e.symbol).collect()
}

/// The build's facts: [`BuildFacts`] in its file, and as Rust constants for `build_info()`.
/// The toolchain a build ran, as its facts name it.
struct Tools<'a> {
    assembler: &'a Assembler,
    /// `detect::c_compiler`'s words.
    c_compiler: String,
}

fn write_facts(
    c: &BuildConfig,
    plan: &Plan,
    tools: &Tools,
    a: &compile::Artifacts,
    openssldir: String,
) -> Result<()> {
    let asm = tools.assembler;
    let facts = BuildFacts {
        target: c.triple.clone(),
        openssl_version: c.line.version.into(),
        requested_set: plan.requested.name().into(),
        effective_set: plan.c_set.name.into(),
        requested_c_variant: plan.requested_variant.name().into(),
        c_variant: plan.c_variant.map(|v| v.name.into()),
        c_variant_refused: plan.variant_refused.map(|v| v.name.into()),
        legacy_provider: c.legacy,
        apps: c.apps,
        fips_module: a.fips_module.is_some(),
        openssldir,
        assembler_kind: asm.kind.name().into(),
        assembler_version: asm.version.clone(),
        units: a.units,
        compiled: a.compiled,
        c_compiler: tools.c_compiler.clone(),
        asm_files: plan
            .files
            .iter()
            .map(|f| PlannedFile { path: f.path.clone(), set: f.set.name.into() })
            .collect(),
        downgrades: plan
            .downgrades
            .iter()
            .map(|d| facts::Downgrade {
                path: d.path.clone(),
                from: d.from.name.into(),
                to: d.to.name.into(),
                missing: d.missing.iter().map(|f| f.name().into()).collect(),
            })
            .collect(),
    };
    facts.write(&c.out_dir)?;
    let include_dir = a.linked_dirs().1.display().to_string();
    let prefix = c.symbol_prefix.as_ref().map_or("", |p| p.prefix.as_str());
    let fips = a.fips_module.as_ref().zip(a.fips_config());
    let fips = fips.map(|(m, c)| (m.display().to_string(), c.display().to_string()));
    let rs = build_info_rs(&facts, &include_dir, prefix, fips.as_ref())?;
    fs::write(c.out_dir.join("build_info.rs"), rs)?;
    Ok(())
}

/// The constants crypto-sys's `build_info()` returns.
fn build_info_rs(
    f: &BuildFacts,
    include_dir: &str,
    prefix: &str,
    fips: Option<&(String, String)>,
) -> Result<String> {
    let files: Vec<String> =
        f.asm_files.iter().map(|p| format!("({:?}, {:?})", p.path, p.set)).collect();
    let downgrades: Vec<String> = f
        .downgrades
        .iter()
        .map(|d| {
            format!(
                "super::Downgrade {{ path: {:?}, from: {:?}, to: {:?}, missing: {:?} }}",
                d.path,
                d.from,
                d.to,
                d.missing.join("+")
            )
        })
        .collect();
    let consts = [
        ("OPENSSL_VERSION", "&str", format!("{:?}", f.openssl_version)),
        ("TARGET", "&str", format!("{:?}", f.target)),
        ("REQUESTED_SET", "&str", format!("{:?}", f.requested_set)),
        ("EFFECTIVE_SET", "&str", format!("{:?}", f.effective_set)),
        // The set whose files hold the AVX-512 fast paths, for `fast_paths()`: asked of the
        // table here, so that crypto-sys never spells a set's name.
        ("AVX512_SET", "&str", format!("{:?}", data::AsmSet::avx512().name)),
        ("REQUESTED_C_VARIANT", "&str", format!("{:?}", f.requested_c_variant)),
        ("C_VARIANT", "Option<&str>", format!("{:?}", f.c_variant)),
        ("C_VARIANT_REFUSED", "Option<&str>", format!("{:?}", f.c_variant_refused)),
        ("LEGACY_PROVIDER", "bool", format!("{:?}", f.legacy_provider)),
        ("C_COMPILER", "&str", format!("{:?}", f.c_compiler)),
        ("ASSEMBLER_KIND", "&str", format!("{:?}", f.assembler_kind)),
        (
            "ASSEMBLER_VERSION",
            "&str",
            format!("{:?}", f.assembler_version.as_deref().unwrap_or("")),
        ),
        ("INCLUDE_DIR", "&str", format!("{include_dir:?}")),
        ("SYMBOL_PREFIX", "&str", format!("{prefix:?}")),
        ("FIPS_MODULE", "Option<&str>", format!("{:?}", fips.map(|f| f.0.as_str()))),
        ("FIPS_CONFIG", "Option<&str>", format!("{:?}", fips.map(|f| f.1.as_str()))),
        ("ASM_FILES", "&[(&str, &str)]", format!("&[{}]", files.join(", "))),
        ("DOWNGRADES", "&[super::Downgrade]", format!("&[{}]", downgrades.join(", "))),
    ];
    let mut rs = String::new();
    for (name, ty, value) in consts {
        writeln!(rs, "pub const {name}: {ty} = {value};")?;
    }
    // For `openssl_extern!` in dependents: a literal, as `link_name` takes only one.
    writeln!(
        rs,
        "#[doc(hidden)]\n#[macro_export]\nmacro_rules! __link_prefix {{ () => {{ {prefix:?} }} }}"
    )?;
    Ok(rs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The patch refuses an openssl-sys older than the one that accepts the line's major, in one
    /// line naming both and the fix; other callers, and newer openssl-sys, pass.
    #[test]
    fn an_openssl_sys_too_old_for_the_line_is_refused() {
        let line = data::DEFAULT_LINE;
        assert!(line.version.starts_with("4."), "the check is for OpenSSL 4's openssl-sys");
        let e = check_caller("openssl-sys", "0.9.113", line).unwrap_err().to_string();
        assert!(!e.contains('\n'), "{e}");
        assert!(e.contains("openssl-sys 0.9.113") && e.contains("from openssl-sys 0.9.114"), "{e}");
        assert!(e.contains(line.version) && e.contains("cargo update -p openssl-sys"), "{e}");
        check_caller("openssl-sys", "0.9.114", line).unwrap();
        check_caller("openssl-sys", "0.9.118", line).unwrap();
        check_caller("my-program", "0.1.0", line).unwrap();
        let three = data::OPENSSL_LINES.iter().find(|l| l.version.starts_with("3."));
        check_caller("openssl-sys", "0.9.100", three.expect("a 3.x line")).unwrap();
    }
}
