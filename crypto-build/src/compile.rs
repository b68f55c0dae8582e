//! Compiles libcrypto and libssl with cc, from openssl-src's tree plus the chosen sets'
//! generated files, at OpenSSL's own flags whatever the cargo profile, and archives them.

use crate::data::{self, AsmSyntax, Target, NASM_FLAGS};
use crate::detect::{self, Assembler};
use crate::manifest::{self, Lib, Manifest, Product};
use crate::progress::Progress;
use crate::select::Plan;
use crate::sets::set_dir;
use crate::{openssldir, sha256};
use anyhow::{bail, Context, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Inputs of one compile.
pub struct Job<'a> {
    pub plan: &'a Plan,
    /// Manifest of the C configuration built: a set, or a set's C variant.
    pub c_manifest: &'a Manifest,
    /// The loaded (and hash-verified) manifests, among them every set the plan takes asm from.
    pub set_manifests: &'a [Manifest],
    pub sets_root: &'a Path,
    /// The OpenSSL tree of the line built (`data::OPENSSL_LINES`).
    pub src_root: &'a Path,
    /// Each file of the tree and its SHA-256 (its source crate's list, checked): a unit's
    /// identity in the object cache's keys.
    pub src_files: &'a crate::source::list::FileList,
    pub out_dir: &'a Path,
    /// What assembles the asm: a C compiler driver (its rendering `.s`), or nasm (`.asm`).
    pub assembler: &'a Assembler,
    /// The target row: nasm's output format, and the flags cc owns.
    pub target: &'static Target,
    /// A configured cc::Build (target, compiler, env) to clone per flag group.
    pub base: cc::Build,
    pub progress: &'a Progress,
    /// Also link the `openssl` program from the manifest's `apps` units.
    pub apps: bool,
    /// Also link the FIPS provider module from the manifest's `fips` units.
    pub fips: bool,
    /// crypto/buildinf.h as this build writes it (what `openssl version -a` reports).
    pub buildinf: String,
    /// OPENSSLDIR, given to the units that see it when it is not the configured one.
    pub openssldir: &'a str,
    /// crypto-sys's symbol prefix: a renamed copy of the libraries too (`prefixed`).
    pub symbol_prefix: Option<&'a crate::symbols::Prefix>,
}

/// What a successful compile leaves in `out_dir`.
pub struct Artifacts {
    pub lib_dir: PathBuf,
    pub include_dir: PathBuf,
    pub units: usize,
    /// Units this build compiled (the rest came from the object cache).
    pub compiled: usize,
    /// The CPU seconds the compilers and assemblers of the units took (unix: the build's
    /// children, counted around the compile).
    pub units_core_seconds: Option<f64>,
    /// The copy under crypto-sys's symbol prefix, when the build makes one.
    pub prefixed: Option<crate::prefixed::Prefixed>,
    /// The FIPS provider module, `lib/ossl-modules/fips.so`, when asked for.
    pub fips_module: Option<PathBuf>,
}

/// The file in OUT_DIR that says what compiling the units cost, for `cargo xtask bench
/// --build-cost`: not among the facts of what was built, as it changes from run to run.
pub const COST_FILE: &str = "crypto-sys-cost.txt";

impl Artifacts {
    /// The libraries' and headers' directories crypto-sys links and exports: the prefixed
    /// copy's when there is one, else the plain ones.
    pub fn linked_dirs(&self) -> (&Path, &Path) {
        match &self.prefixed {
            Some(p) => (&p.lib_dir, &p.include_dir),
            None => (&self.lib_dir, &self.include_dir),
        }
    }

    /// The module's `fipsmodule.cnf`, beside the build's `openssl.cnf`, when the module was
    /// linked.
    pub fn fips_config(&self) -> Option<PathBuf> {
        let dir = self.lib_dir.parent()?;
        self.fips_module.as_ref().map(|_| dir.join(SSL_DIR).join(crate::fips::CONFIG_FILE))
    }

    /// Writes [`COST_FILE`] into `out_dir` (`units_core_seconds SECONDS`), or removes an older
    /// one when the CPU was not counted.
    pub fn write_cost(&self, out_dir: &Path) -> Result<()> {
        let path = out_dir.join(COST_FILE);
        match self.units_core_seconds {
            Some(s) => fs::write(&path, format!("units_core_seconds {s:.3}\n"))?,
            None => drop(fs::remove_file(&path)),
        }
        Ok(())
    }
}

/// CPU seconds of every child this process has waited for, user and system.
#[cfg(unix)]
fn children_cpu() -> Option<f64> {
    // SAFETY: getrusage writes the struct it is given and nothing else.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        (libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) == 0).then_some(usage)
    }?;
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Some(secs(usage.ru_utime) + secs(usage.ru_stime))
}

#[cfg(not(unix))]
fn children_cpu() -> Option<f64> {
    None
}

/// The unit that includes crypto/buildinf.h, and where this build's copy goes.
const BUILDINF_UNIT: &str = "crypto/cversion.c";
const BUILDINF_DIR: &str = "buildinf";

pub fn compile(job: &Job) -> Result<Artifacts> {
    let m = job.c_manifest;
    let src_root = job.src_root;
    let c_dir = job.sets_root.join(m.key());
    let cache = ObjectCache::new(cache_dir(job.out_dir), m)?;
    let (own_cflags, seers) = own_openssldir(job, src_root, &c_dir)?;
    let by_group = units_by_group(job, &seers)?;
    let units = by_group.values().map(Vec::len).sum();
    job.progress.units(units);
    job.progress.phase("compile");
    let buildinf_dir = job.out_dir.join(BUILDINF_DIR);
    fs::create_dir_all(&buildinf_dir)?;
    fs::write(buildinf_dir.join("buildinf.h"), &job.buildinf)?;
    let prefix_maps = prefix_map_flags(&job.base, &stable_names(job, src_root, &c_dir));
    let mut builds = Vec::new();
    for ((lib, group, is_asm, own_dir), mut units) in by_group {
        let mut build = job.base.clone();
        let dir =
            format!("{}-{group}-{is_asm}{}", lib.name(), if own_dir { "-openssldir" } else { "" });
        build.out_dir(job.out_dir.join("obj").join(dir));
        if is_asm {
            build.compiler(&job.assembler.driver);
        }
        // Ahead of the set's own copy, which names no set, assembler or variant.
        if units.iter().any(|u| u.rel == BUILDINF_UNIT) {
            build.include(&buildinf_dir);
        }
        let cflags = if own_dir { &own_cflags } else { &m.cflags };
        let speed = if is_asm { &[][..] } else { job.target.speed_cflags };
        let own = cflags.iter().filter(|f| !owned_by_cc(job.target, f)).map(String::as_str);
        for f in own.chain(prefix_maps.iter().map(String::as_str)).chain(speed.iter().copied()) {
            build.flag(f);
        }
        for word in &m.groups[group] {
            match word.strip_prefix("-I") {
                Some(dir) => {
                    build.include(manifest::gen_path(&c_dir, dir)).include(src_root.join(dir));
                }
                None => {
                    build.flag(word);
                }
            }
        }
        // Largest first, so the last files to finish are short ones.
        units.sort_by_key(|u| std::cmp::Reverse(u.size));
        builds.push((lib, group, build, units));
    }
    let cpu_before = children_cpu();
    // Groups compile side by side: cc's jobserver bounds the total, and no small group waits
    // for a large one to drain.
    let results: Vec<(Lib, Result<Vec<PathBuf>>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = builds
            .iter_mut()
            .map(|(lib, group, build, units)| {
                let (lib, group, cache, progress) = (*lib, *group, &cache, job.progress);
                let words = &m.groups[group];
                let nasm = (job.assembler.syntax == AsmSyntax::Nasm)
                    .then_some((job.assembler, job.target.nasm_format));
                scope.spawn(move || {
                    let objs = match nasm {
                        Some((asm, format)) if is_nasm_group(units) => {
                            cache.assemble_nasm(asm, format, units, progress)
                        }
                        _ => cache.compile(build, words, units, progress),
                    };
                    let objs = objs.map_err(|e| {
                        anyhow::anyhow!("compiling OpenSSL ({} group {group}): {e:#}", lib.name())
                    });
                    (lib, objs)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("compile thread panicked")).collect()
    });
    let units_core_seconds = children_cpu().zip(cpu_before).map(|(after, before)| after - before);
    // Group order, the same in every build, whatever order the groups finished in.
    let mut objects: BTreeMap<Product, Vec<PathBuf>> = BTreeMap::new();
    for (lib, objs) in results {
        objects.entry(lib.product()).or_default().extend(objs?);
    }
    let lib_dir = job.out_dir.join("lib");
    job.progress.phase("archive");
    for (product, objs) in &objects {
        if let Product::Archive(name) = product {
            archive(&job.base, &lib_dir.join(job.target.archive_file(name)), objs)?;
        }
    }
    match objects.get(&Product::Program) {
        Some(objs) => link_program(job, &lib_dir, objs)?,
        // An earlier build's program is not this build's.
        None => drop(fs::remove_dir_all(job.out_dir.join("bin"))),
    }
    // Likewise its module and the module's configuration.
    let _ = fs::remove_dir_all(lib_dir.join(crate::fips::MODULES_DIR));
    let _ = fs::remove_file(job.out_dir.join(SSL_DIR).join(crate::fips::CONFIG_FILE));
    let fips_module = match objects.get(&Product::Module) {
        Some(own) => {
            let libs = objects.get(&Product::ModuleArchive).map_or(&[][..], Vec::as_slice);
            Some(crate::fips::link_module(job, &lib_dir, own, libs)?)
        }
        None if job.fips => bail!("the manifest {} lists no unit of the FIPS module", m.key()),
        None => None,
    };
    let include_dir = job.out_dir.join("include");
    install_headers(src_root, &c_dir, &include_dir)?;
    install_cmake_config(&c_dir, &job.out_dir.join(CMAKE_DIR))?;
    install_ssl_config(&job.out_dir.join(SSL_DIR))?;
    let libs: Vec<(&str, &[PathBuf])> = objects
        .iter()
        .filter_map(|(p, o)| match p {
            Product::Archive(n) => Some((*n, o.as_slice())),
            _ => None,
        })
        .collect();
    let prefixed = match job.symbol_prefix {
        Some(prefix) => {
            job.progress.phase("prefix");
            Some(crate::prefixed::write(job, prefix, &libs, &include_dir)?)
        }
        None => None,
    };
    let compiled = cache.compiled.load(Ordering::Relaxed);
    Ok(Artifacts {
        lib_dir,
        include_dir,
        units,
        compiled,
        units_core_seconds,
        prefixed,
        fips_module,
    })
}

/// The library flags with the build's OPENSSLDIR, and the units that see it. At the
/// configured OPENSSLDIR no unit is told apart, so the build stays what it always was.
fn own_openssldir(job: &Job, src: &Path, c_dir: &Path) -> Result<(Vec<String>, BTreeSet<String>)> {
    let m = job.c_manifest;
    let own = openssldir::cflags(m, job.openssldir)?;
    if own == m.cflags {
        return Ok((own, BTreeSet::new()));
    }
    let seers = openssldir::units_that_see(src, &manifest::gen_path(c_dir, ""), m)
        .context("finding the units that see OPENSSLDIR")?;
    Ok((own, seers))
}

/// Links `bin/openssl` (xtask finds it there) as OpenSSL's Makefile does: the program's objects, libssl, libcrypto
/// and Configure's ex_libs, by the C compiler driver; an MSVC row's off Windows by lld-link
/// against wine's C runtime (`msvc::link`).
fn link_program(job: &Job, lib_dir: &Path, objs: &[PathBuf]) -> Result<()> {
    job.progress.phase("link");
    let tool = job.base.try_get_compiler().context("finding the C compiler")?;
    let bin = job.out_dir.join("bin");
    fs::create_dir_all(&bin)?;
    let program = bin.join(format!("openssl{}", job.target.exe_suffix));
    let libs = ["ssl", "crypto"].map(|l| lib_dir.join(job.target.archive_file(l)));
    if tool.is_like_msvc() {
        let Some(runtime) = crate::msvc::runtime(job.target, &tool) else {
            bail!(
                "linking the openssl program with cl.exe is not supported yet; build without apps"
            );
        };
        let scratch = job.out_dir.join("msvc-link");
        let mut objects = objs.to_vec();
        objects.push(compile_entry(job, &scratch)?);
        let program = crate::msvc::Program {
            runtime,
            out: &program,
            objects: &objects,
            libs: &libs,
            system: &job.c_manifest.ex_libs,
        };
        return crate::msvc::link(&program, &scratch);
    }
    let mut cmd = tool.to_command();
    cmd.arg("-o").arg(&program).args(objs).args(&libs);
    cmd.args(job.c_manifest.ex_libs.iter().map(|l| crate::data::ex_lib_flag(l)));
    let out = cmd.output().with_context(|| format!("running {cmd:?}"))?;
    if !out.status.success() {
        bail!("linking {} failed: {}", program.display(), String::from_utf8_lossy(&out.stderr));
    }
    Ok(())
}

/// The entry point of a program linked against wine's C runtime (`msvc::ENTRY_C`), compiled
/// by the build's C compiler into `scratch`.
fn compile_entry(job: &Job, scratch: &Path) -> Result<PathBuf> {
    let src = crate::msvc::write_entry(scratch)?;
    let mut build = job.base.clone();
    let objs = build.out_dir(scratch).file(&src).try_compile_intermediates();
    let objs = objs.context("compiling the program's entry point")?;
    objs.into_iter().next().context("the entry point's object")
}

/// The name each path-dependent directory of the build takes inside the objects (`__FILE__`
/// in OpenSSL's error records, debug info), so that two checkouts at different paths build
/// the same bytes. openssl-src's tree and every set's generated files both read `openssl`, as
/// in an in-tree OpenSSL build: a C object is then the same whichever set its file came
/// from, as its cache key already assumes. Ordered from the shortest directory to the longest.
fn stable_names(job: &Job, src_root: &Path, c_dir: &Path) -> Vec<(PathBuf, &'static str)> {
    let sets = job.set_manifests.iter().map(|s| job.sets_root.join(s.key()));
    let gen_dirs = sets.chain([c_dir.to_path_buf()]).map(|d| manifest::gen_path(&d, ""));
    let mut names: BTreeMap<PathBuf, &'static str> = BTreeMap::new();
    for dir in gen_dirs.chain([src_root.to_path_buf()]) {
        names.entry(dir).or_insert("openssl");
    }
    names.entry(job.sets_root.to_path_buf()).or_insert("crypto-sys-sets");
    names.entry(job.out_dir.to_path_buf()).or_insert("crypto-sys-out");
    // The compiler's working directory, which debug info records (CFLAGS=-g).
    if let Ok(cwd) = std::env::current_dir() {
        names.entry(cwd).or_insert(".");
    }
    let mut names: Vec<_> = names.into_iter().collect();
    // gcc applies the last option that matches, clang the longest prefix: shortest first
    // makes both take the most specific one.
    names.sort_by_key(|(dir, _)| dir.as_os_str().len());
    names
}

/// `-ffile-prefix-map=OLD=NEW` per directory (gcc >= 8, clang >= 10); for an older compiler,
/// whichever of the parts it has: `-fdebug-prefix-map` (debug info) and `-fmacro-prefix-map`
/// (`__FILE__`). clang-cl takes them as clang's own options, behind `/clang:`.
fn prefix_map_flags(base: &cc::Build, names: &[(PathBuf, &str)]) -> Vec<String> {
    let clang_cl = base.try_get_compiler().is_ok_and(|c| c.is_like_clang_cl());
    let wrap = if clang_cl { "/clang:" } else { "" };
    let supported =
        |opt: &str| base.is_flag_supported(format!("{opt}=/nonexistent=x")).unwrap_or(false);
    let opts: Vec<String> = ["-ffile-prefix-map", "-fdebug-prefix-map", "-fmacro-prefix-map"]
        .map(|o| format!("{wrap}{o}"))
        .into();
    let opts: Vec<&String> = if supported(&opts[0]) {
        vec![&opts[0]]
    } else {
        opts[1..].iter().filter(|o| supported(o)).collect()
    };
    let pairs = names.iter().flat_map(|(dir, name)| opts.iter().map(move |o| (o, dir, name)));
    pairs.map(|(opt, dir, name)| format!("{opt}={}={name}", dir.display())).collect()
}

/// A prefix map's flag without its directory: the cache key must not depend on where the
/// checkout is, only on the name it maps to.
fn without_old_prefix(arg: &str) -> Option<String> {
    let (opt, map) = arg.split_once('=')?;
    if !opt.ends_with("-prefix-map") {
        return None;
    }
    Some(format!("{opt}={}", map.rsplit_once('=').map_or(map, |(_, new)| new)))
}

/// Beside cargo's target directory (the ancestor holding its CACHEDIR.TAG), so that debug and
/// release builds share objects: OpenSSL's flags are the same in every profile.
fn cache_dir(out_dir: &Path) -> PathBuf {
    out_dir
        .ancestors()
        .find(|d| d.join("CACHEDIR.TAG").exists())
        .map_or_else(|| out_dir.join("objcache"), |t| t.join("crypto-sys-objcache"))
}

/// One source to compile and what identifies its content.
struct Source {
    path: PathBuf,
    /// The path inside OpenSSL's tree, the same whichever set the file comes from.
    rel: String,
    /// The manifest's hash for generated files (verified when loaded); size and mtime for
    /// openssl-src's.
    identity: String,
    size: u64,
}

/// Objects keyed by everything that shapes them, so a rerun (a set switch, a build-script
/// change) recompiles only what really changed: `asm` and `asm_avx2` share every C object.
struct ObjectCache {
    dir: PathBuf,
    /// Hash of the generated C and headers of the C set (the `.s` files are keyed apart).
    c_config: String,
    /// Each tool's identity (banners, binary size and mtime) by path, asked once per build.
    identities: Mutex<BTreeMap<PathBuf, String>>,
    /// Objects this build made and stored.
    compiled: AtomicUsize,
}

impl ObjectCache {
    fn new(dir: PathBuf, m: &Manifest) -> Result<ObjectCache> {
        fs::create_dir_all(&dir)?;
        let c_files: String = m
            .files
            .iter()
            .filter(|f| AsmSyntax::of_path(&f.path).is_none())
            .map(|f| format!("{} {}\n", f.sha256, f.path))
            .collect();
        let identities = Mutex::default();
        let c_config = sha256::hex(c_files.as_bytes());
        Ok(ObjectCache { dir, c_config, identities, compiled: AtomicUsize::new(0) })
    }

    /// What the tool at `path` is, not where it is: a compiler upgraded in place must not
    /// reuse the objects of the old one.
    fn identity(&self, path: &Path) -> String {
        let mut known = self.identities.lock().unwrap_or_else(|e| e.into_inner());
        known.entry(path.to_path_buf()).or_insert_with(|| detect::tool_identity(path)).clone()
    }

    fn compile(
        &self,
        build: &mut cc::Build,
        words: &[String],
        units: &[Source],
        progress: &Progress,
    ) -> Result<Vec<PathBuf>> {
        let tool = build.try_get_compiler()?;
        // Include paths name the set's directory; what they hold is in c_config.
        let mut args = Vec::new();
        // Prefix maps come ordered by their directories' lengths, which differ between
        // checkouts and profiles: keyed as a set of the names they map to.
        let mut maps = std::collections::BTreeSet::new();
        let mut skip = false;
        for a in tool.args() {
            let a = a.to_string_lossy();
            if std::mem::take(&mut skip) || a.starts_with("-I") {
                skip = a == "-I";
                continue;
            }
            match without_old_prefix(&a) {
                Some(map) => {
                    maps.insert(map);
                }
                None => args.push(a.into_owned()),
            }
        }
        args.extend(maps);
        let identity = self.identity(tool.path());
        let base = format!("{identity}\n{args:?}\n{words:?}\n{}", self.c_config);
        let keyed = self.keyed(&base, units, "o");
        let stale: Vec<&(&Source, PathBuf)> = keyed.iter().filter(|(_, o)| !o.exists()).collect();
        if !stale.is_empty() {
            progress.will_compile(stale.len());
            build.files(stale.iter().map(|(u, _)| &u.path));
            let fresh = build.try_compile_intermediates()?;
            for ((_, cached), obj) in stale.iter().zip(&fresh) {
                self.store(obj, cached)?;
            }
            progress.compiled(stale.len());
        }
        Ok(keyed.into_iter().map(|(_, o)| o).collect())
    }

    /// Moves a fresh object into the cache in one rename, so another build sharing the cache
    /// (debug and release at once) sees the whole object or none; when both made it, either
    /// copy serves. Across file systems, a copy under a unique name is renamed in instead.
    fn store(&self, obj: &Path, cached: &Path) -> Result<()> {
        self.compiled.fetch_add(1, Ordering::Relaxed);
        if fs::rename(obj, cached).is_ok() {
            return Ok(());
        }
        let tmp = self.dir.join(unique_name("obj"));
        fs::copy(obj, &tmp).with_context(|| format!("caching {}", obj.display()))?;
        fs::rename(&tmp, cached).with_context(|| format!("caching {}", obj.display()))
    }

    /// Each unit and its object's place in the cache: `base` (what the tool is and how it is
    /// called) with the unit's path and content identity.
    fn keyed<'u>(&self, base: &str, units: &'u [Source], ext: &str) -> Vec<(&'u Source, PathBuf)> {
        units
            .iter()
            .map(|u| {
                let key = sha256::hex(format!("{base}\n{}\n{}", u.rel, u.identity).as_bytes());
                (u, self.dir.join(format!("{}.{ext}", &key[..32])))
            })
            .collect()
    }

    /// Assembles `.asm` files with nasm through nasm-rs, at OpenSSL's nasm flags.
    fn assemble_nasm(
        &self,
        asm: &Assembler,
        format: &str,
        units: &[Source],
        progress: &Progress,
    ) -> Result<Vec<PathBuf>> {
        let base = format!("nasm\n{}\n{format}\n{NASM_FLAGS:?}", self.identity(&asm.driver));
        let keyed = self.keyed(&base, units, "obj");
        let mut stale: Vec<&(&Source, PathBuf)> =
            keyed.iter().filter(|(_, o)| !o.exists()).collect();
        // nasm-rs names each object after its file's base name: assemble in batches whose base
        // names are distinct, so no object overwrites another.
        while !stale.is_empty() {
            let mut seen = std::collections::BTreeSet::new();
            let (batch, rest): (Vec<_>, Vec<_>) =
                stale.into_iter().partition(|(u, _)| seen.insert(u.path.file_name()));
            let tmp = self.dir.join(unique_name("nasm"));
            let mut nasm = nasm_rs::Build::new();
            nasm.nasm(&asm.driver)
                .target(nasm_target(format)?)
                .out_dir(&tmp)
                .debug(false)
                .files(batch.iter().map(|(u, _)| &u.path));
            for f in NASM_FLAGS {
                nasm.flag(f);
            }
            progress.will_compile(batch.len());
            let objs = nasm.compile_objects().map_err(|e| anyhow::anyhow!("nasm: {e}"))?;
            // nasm-rs returns the objects in the order its threads finished, and leaves out
            // (logging it only) a file nasm failed on: each is found by its name instead.
            for (u, cached) in &batch {
                let name = u.path.file_name().context("an asm file name")?;
                let obj = tmp.join(name).with_extension("o");
                if !objs.contains(&obj) || !obj.exists() {
                    bail!("nasm failed on {} (its errors are above)", u.path.display());
                }
                self.store(&obj, cached)?;
            }
            progress.compiled(batch.len());
            let _ = fs::remove_dir_all(&tmp);
            stale = rest;
        }
        Ok(keyed.into_iter().map(|(_, o)| o).collect())
    }
}

/// A name no other build, nor another thread of this one, is using in the cache directory.
fn unique_name(what: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!(".{what}-tmp-{}-{n}", std::process::id())
}

/// A triple that makes nasm-rs pick the `-f` format we want (it derives it from the triple's
/// arch and OS): the first triple of the first target row of that nasm format.
fn nasm_target(format: &str) -> Result<&'static str> {
    let row = data::TARGETS.iter().find(|t| t.nasm_format == format);
    row.and_then(|t| t.triples.first().copied())
        .with_context(|| format!("no target row assembles nasm's `-f {format}`"))
}

fn is_nasm_group(units: &[Source]) -> bool {
    units.iter().all(|u| AsmSyntax::of_path(&u.rel) == Some(AsmSyntax::Nasm))
}

/// Units compiled with the same flags: library, flag group, whether asm, and whether given
/// the build's own OPENSSLDIR (false for all at the configured one, so the order of objects
/// is then what it always was).
type GroupKey = (Lib, usize, bool, bool);

/// Source paths per group: C from the C set or openssl-src, asm from the set the plan picked
/// for that file; `seers` are the units that get the build's own OPENSSLDIR.
fn units_by_group(job: &Job, seers: &BTreeSet<String>) -> Result<BTreeMap<GroupKey, Vec<Source>>> {
    let m = job.c_manifest;
    let src_root = job.src_root;
    let c_dir = job.sets_root.join(m.key());
    let mut groups: BTreeMap<GroupKey, Vec<Source>> = BTreeMap::new();
    // A Windows program's version resource (`apps/openssl.rc`) only describes the file; the
    // program is the same without it, and no resource compiler is needed.
    let wanted = |u: &&manifest::Unit| {
        (job.apps || u.lib != Lib::Apps)
            && (job.fips || !u.lib.is_fips())
            && !u.path.ends_with(".rc")
    };
    for u in m.units.iter().filter(wanted) {
        let is_asm = AsmSyntax::of_path(&u.path).is_some();
        // The assembler's rendering of the file, which may not be Configure's own.
        let rel = if is_asm { job.assembler.syntax.rename(&u.path) } else { u.path.clone() };
        let (path, mut identity) = if is_asm {
            let Some(choice) = job.plan.files.iter().find(|f| f.path == rel) else {
                bail!("the plan has no set for {rel}");
            };
            let set = job
                .set_manifests
                .iter()
                .find(|s| s.set == choice.set.name && s.target == m.target && s.variant.is_none());
            let Some(hash) = set.and_then(|s| s.generated(&rel)) else {
                bail!("no loaded manifest of {} lists {rel}", choice.set.name);
            };
            let dir = set_dir(job.sets_root, choice.set.name, &m.target);
            (manifest::gen_path(&dir, &rel), hash.sha256.clone())
        } else if let Some(g) = m.generated(&u.path) {
            (manifest::gen_path(&c_dir, &u.path), g.sha256.clone())
        } else {
            // The release's own file: its SHA-256 from the source crate's list, checked.
            let Some(sha256) = job.src_files.sha256_of(&u.path) else {
                bail!("{} is not in OpenSSL's source crate, which the manifest names", u.path);
            };
            (src_root.join(&u.path), sha256.to_string())
        };
        let meta = fs::metadata(&path).with_context(|| format!("reading {}", path.display()))?;
        let size = meta.len();
        if u.path == BUILDINF_UNIT {
            identity += &sha256::hex(job.buildinf.as_bytes());
        }
        let source = Source { path, rel, identity, size };
        let key = (u.lib, u.group, is_asm, seers.contains(&u.path));
        groups.entry(key).or_default().push(source);
    }
    Ok(groups)
}

/// Whether one of OpenSSL's library flags is left to cc (`Target::cc_owned_flags`).
pub(crate) fn owned_by_cc(target: &Target, flag: &str) -> bool {
    target.cc_owned_flags.iter().any(|p| flag.starts_with(p))
}

/// `lib` (`Target::archive_file`): `lib<name>.a` by `ar`, or for MSVC `lib<name>.lib` by
/// lib.exe or llvm-lib, whose object list goes through a response file: a thousand cache
/// paths are longer than a Windows command line may be.
pub(crate) fn archive(base: &cc::Build, lib: &Path, objs: &[PathBuf]) -> Result<()> {
    let dir = lib.parent().context("an archive's directory")?;
    fs::create_dir_all(dir)?;
    let msvc = lib.extension().is_some_and(|e| e == "lib");
    let _ = fs::remove_file(lib);
    let mut ar = base.try_get_archiver().context("finding the archiver (AR)")?;
    if msvc {
        // lib.exe and llvm-lib name each member as it is given: from the directory the
        // objects share (the object cache), so no build's path is in the archive.
        let shared = objs
            .first()
            .and_then(|o| o.parent())
            .filter(|d| objs.iter().all(|o| o.parent() == Some(*d)));
        let name = |o: &PathBuf| match shared {
            Some(d) => o.strip_prefix(d).unwrap_or(o).display().to_string(),
            None => o.display().to_string(),
        };
        let rsp = lib.with_extension("rsp");
        let list: String = objs.iter().map(|o| format!("\"{}\"\n", name(o))).collect();
        fs::write(&rsp, list).with_context(|| format!("writing {}", rsp.display()))?;
        if let Some(d) = shared {
            ar.current_dir(d);
        }
        ar.arg("/nologo").arg(format!("/OUT:{}", lib.display())).arg(format!("@{}", rsp.display()));
    } else {
        // D: zero timestamps, uids and gids, mode 644, whatever the archiver's default;
        // members go in the order given, which the manifest fixes.
        ar.arg("crsD").arg(lib).args(objs);
    }
    let out = ar.output().with_context(|| format!("running {ar:?}"))?;
    if !out.status.success() {
        // lib.exe reports on stdout, ar on stderr.
        let (o, e) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        bail!("archiving {} failed: {o}{e}", lib.display());
    }
    Ok(())
}

/// Where in OUT_DIR OpenSSL's CMake config files go; a prefix has them in `lib/cmake/OpenSSL`.
pub const CMAKE_DIR: &str = "cmake";
pub const CMAKE_FILES: &[&str] = &["OpenSSLConfig.cmake", "OpenSSLConfigVersion.cmake"];

/// OpenSSL's exporters for CMake, as its Makefile made them for this configuration.
fn install_cmake_config(c_dir: &Path, dest: &Path) -> Result<()> {
    fs::create_dir_all(dest)?;
    for name in CMAKE_FILES {
        let from = manifest::gen_path(c_dir, &format!("exporters/{name}"));
        fs::copy(&from, dest.join(name)).with_context(|| {
            format!("copying {}; regenerate the sets with `cargo xtask generate`", from.display())
        })?;
    }
    Ok(())
}

/// Where in OUT_DIR the files a prefix installs in OPENSSLDIR go ([`openssldir::FILES`]).
pub const SSL_DIR: &str = "ssl";

fn install_ssl_config(dest: &Path) -> Result<()> {
    fs::create_dir_all(dest)?;
    for (name, text) in openssldir::FILES {
        fs::write(dest.join(name), text).with_context(|| format!("writing {name}"))?;
    }
    Ok(())
}

/// The public headers: openssl-src's, overlaid with the set's generated ones.
fn install_headers(src_root: &Path, c_dir: &Path, include_dir: &Path) -> Result<()> {
    let dest = include_dir.join("openssl");
    if dest.exists() {
        fs::remove_dir_all(&dest)?;
    }
    fs::create_dir_all(&dest)?;
    for dir in [src_root.join("include/openssl"), manifest::gen_path(c_dir, "include/openssl")] {
        for e in fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
            let e = e?;
            let name = e.file_name();
            if name.to_string_lossy().ends_with(".h") {
                fs::copy(e.path(), dest.join(&name))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// nasm-rs gets a triple whose `-f` is each nasm target's format: 32-bit code (`pusha`)
    /// assembles for the 32-bit formats, and would not in a 64-bit one.
    #[test]
    fn nasm_rs_is_told_each_targets_format() {
        let nasm_path = crate::installed("nasm", "nasm");
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let src = dir.join("x86.asm");
        fs::write(&src, "section .text\npusha\npopa\nret\n").unwrap();
        let assembles = |format: &str| {
            let out = dir.join(format);
            fs::create_dir_all(&out).unwrap();
            let mut nasm = nasm_rs::Build::new();
            nasm.nasm(&nasm_path).target(nasm_target(format).unwrap());
            nasm.out_dir(&out).debug(false).file(&src);
            // nasm-rs logs a failed file and returns the others' objects.
            nasm.compile_objects().is_ok_and(|objs| objs.len() == 1)
        };
        let x86: Vec<&str> = crate::data::TARGETS
            .iter()
            .filter(|t| t.arch == crate::data::Arch::X86 && t.syntaxes.contains(&AsmSyntax::Nasm))
            .map(|t| t.nasm_format)
            .collect();
        assert!(!x86.is_empty() && x86.iter().all(|f| assembles(f)), "{x86:?}");
        assert!(!assembles("win64"), "pusha is no 64-bit instruction");
    }

    /// A gcc whose banner is read from a file, as a compiler upgraded in place at one path;
    /// it logs every compile of `unit.c`.
    fn upgradable_cc(dir: &Path) -> PathBuf {
        let cc = dir.join("cc");
        let script = format!(
            "#!/bin/sh\ncase \" $* \" in *' -v '*|*' --version '*) cat {banner}; exit 0 ;; esac\n\
             case \"$*\" in *unit.c*) echo \"$*\" >> {log} ;; esac\nexec gcc \"$@\"\n",
            banner = dir.join("banner").display(),
            log = dir.join("compiles.log").display(),
        );
        fs::write(&cc, script).unwrap();
        std::process::Command::new("chmod").arg("755").arg(&cc).status().unwrap();
        cc
    }

    /// `__FILE__` of a unit in two checkouts at different paths: the same object, under the
    /// same cache key.
    #[test]
    fn checkouts_at_different_paths_make_the_same_object() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let host = "x86_64-unknown-linux-gnu";
        let mut made = Vec::new();
        // The other directory is longer than the checkout in one and shorter in the other, so
        // the maps come in the other order.
        for (checkout, out) in [("a", "out-with-a-long-name"), ("a-longer-name/b", "o")] {
            let root = dir.join(checkout);
            let out = dir.join(out);
            fs::create_dir_all(root.join("crypto")).unwrap();
            let src = root.join("crypto/unit.c");
            fs::write(&src, "const char *unit_file(void) { return __FILE__; }\n").unwrap();
            let mut b = cc::Build::new();
            b.target(host).host(host).opt_level(2).cargo_metadata(false).out_dir(root.join("obj"));
            let mut names = vec![(root.clone(), "openssl"), (out, "crypto-sys-out")];
            names.sort_by_key(|(dir, _)| dir.as_os_str().len());
            let flags = prefix_map_flags(&b, &names);
            assert!(flags.contains(&format!("-ffile-prefix-map={}=openssl", root.display())));
            for f in &flags {
                b.flag(f);
            }
            let cache = ObjectCache::new(dir.join(checkout).join("objcache"), &Manifest::default());
            let unit =
                Source { path: src, rel: "crypto/unit.c".into(), identity: "1".into(), size: 1 };
            let objs = cache.unwrap().compile(&mut b, &[], &[unit], &Progress::default()).unwrap();
            made.push((objs[0].file_name().unwrap().to_owned(), fs::read(&objs[0]).unwrap()));
        }
        assert_eq!(made[0].0, made[1].0, "the cache key depends on the checkout's path");
        assert!(made[0].1 == made[1].1, "the objects differ");
        let text = String::from_utf8_lossy(&made[0].1).into_owned();
        assert!(text.contains("openssl/crypto/unit.c"), "__FILE__ not mapped");
    }

    #[test]
    fn the_cache_key_keeps_only_the_name_a_prefix_maps_to() {
        let key = |a: &str| without_old_prefix(a);
        assert_eq!(
            key("-ffile-prefix-map=/w/a=b=openssl").as_deref(),
            Some("-ffile-prefix-map=openssl")
        );
        assert_eq!(key("-fdebug-prefix-map=/w=.").as_deref(), Some("-fdebug-prefix-map=."));
        assert_eq!(key("-DOPENSSLDIR=\"/x\""), None);
    }

    #[test]
    fn a_compiler_upgraded_at_the_same_path_recompiles_and_only_once() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let cc = upgradable_cc(dir);
        let src = dir.join("unit.c");
        fs::write(&src, "int unit(void) { return 1; }\n").unwrap();
        let unit = Source { path: src, rel: "unit.c".into(), identity: "1".into(), size: 1 };
        let cache_dir = dir.join("objcache");
        let build = |banner: &str| -> usize {
            fs::write(dir.join("banner"), banner).unwrap();
            // A new cache per build, as each cargo build script run makes one.
            let cache = ObjectCache::new(cache_dir.clone(), &Manifest::default()).unwrap();
            let mut b = cc::Build::new();
            let host = "x86_64-unknown-linux-gnu";
            b.compiler(&cc).target(host).host(host).opt_level(0).cargo_metadata(false);
            b.out_dir(dir.join("obj"));
            let objs = cache
                .compile(&mut b, &[], std::slice::from_ref(&unit), &Progress::default())
                .unwrap();
            assert!(objs[0].starts_with(&cache_dir) && objs[0].exists(), "{objs:?}");
            fs::read_dir(&cache_dir).unwrap().count()
        };
        let compiles = || fs::read_to_string(dir.join("compiles.log")).unwrap().lines().count();
        assert_eq!(build("gcc version 12.2.0\n"), 1);
        assert_eq!(compiles(), 1);
        assert_eq!(build("gcc version 13.1.0\n"), 2, "the upgraded compiler got its own object");
        assert_eq!(compiles(), 2, "the upgraded compiler compiled again");
        assert_eq!(build("gcc version 13.1.0\n"), 2, "an identical build adds no object");
        assert_eq!(compiles(), 2, "an identical build compiles nothing");
    }
}
