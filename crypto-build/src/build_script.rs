//! crypto-sys's build script, end to end: configuration → sets → plan → compile → cargo
//! metadata and the embedded build facts.

use crate::config::BuildConfig;
use crate::data::{AsmSet, Feature};
use crate::detect::{self, Assembler};
use crate::manifest::Manifest;
use crate::select::{self, Facts, Plan, Policy};
use crate::{compile, generate};
use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::fs;

/// Name of the file in OUT_DIR that `cargo xtask build` reads for its summary.
pub const SUMMARY_FILE: &str = "crypto-sys-summary.txt";
/// Name of the file in OUT_DIR with the plan: `<asm path>\t<set>` per line; read by verify.
pub const PLAN_FILE: &str = "crypto-sys-plan.tsv";

/// Sets loaded on demand: generated when missing, verified against their hashes once.
pub struct SetFacts<'a> {
    pub sets_root: &'a std::path::Path,
    pub target: &'static crate::data::Target,
    pub jobs: usize,
    pub assembler: &'a Assembler,
    pub loaded: Vec<Manifest>,
}

impl Facts for SetFacts<'_> {
    fn supports(&self, f: Feature) -> bool {
        self.assembler.supports(f)
    }

    fn manifest(&mut self, set: &'static AsmSet) -> Result<&Manifest> {
        if let Some(i) = self.loaded.iter().position(|m| m.set == set.name) {
            return Ok(&self.loaded[i]);
        }
        let dir = generate::set_dir(self.sets_root, set.name, self.target.name);
        generate::ensure(self.sets_root, self.target, set, self.jobs)?;
        let m = Manifest::load(&dir)?;
        m.verify_files(&dir)?;
        self.loaded.push(m);
        Ok(self.loaded.last().unwrap())
    }
}

pub fn run() -> Result<()> {
    let config = BuildConfig::from_cargo_env()?;
    if config.packaged && !config.sets_root.exists() {
        anyhow::bail!(
            "this crypto-sys package carries no pre-generated asm sets (expected {}); \
             packages must be made with `cargo xtask package`",
            config.sets_root.display()
        );
    }
    let mut base = cc::Build::new();
    base.cargo_warnings(false).warnings(false).opt_level(3);
    let compiler = base.try_get_compiler().context("finding the C compiler")?;
    let (asm_driver, asm_args) = detect::asm_driver(config.assembler, &compiler, config.target)?;
    let assembler = detect::detect(&asm_driver, &asm_args, &config.out_dir);
    let mut facts = SetFacts {
        sets_root: &config.sets_root,
        target: config.target,
        jobs: config.jobs,
        assembler: &assembler,
        loaded: vec![],
    };
    let policy = Policy { strict: config.strict, allow_downgrade: config.allow_downgrade };
    let plan = select::plan(config.choice, policy, &mut facts)?;
    if !plan.downgrades.is_empty() {
        println!("cargo:warning={} ({})", select::describe(&plan), assembler.describe());
    }
    let c_manifest = facts.manifest(plan.c_set)?.clone();
    for m in &facts.loaded {
        let dir = generate::set_dir(&config.sets_root, &m.set, &m.target);
        println!("cargo:rerun-if-changed={}", dir.join(crate::manifest::FILE_NAME).display());
    }
    let job = compile::Job {
        plan: &plan,
        c_manifest: &c_manifest,
        sets_root: &config.sets_root,
        out_dir: &config.out_dir,
        asm_driver: &asm_driver,
        base,
    };
    let artifacts = compile::compile(&job)?;
    emit_link(&artifacts, &c_manifest, &plan);
    write_facts(&config, &plan, &assembler, &artifacts)
}

fn emit_link(a: &compile::Artifacts, m: &Manifest, plan: &Plan) {
    println!("cargo:rustc-link-search=native={}", a.lib_dir.display());
    println!("cargo:rustc-link-lib=static=ssl");
    println!("cargo:rustc-link-lib=static=crypto");
    for lib in &m.ex_libs {
        println!("cargo:rustc-link-lib={lib}");
    }
    // Reaches dependents as DEP_CRYPTO_SYS_*.
    println!("cargo:root={}", a.lib_dir.parent().unwrap().display());
    println!("cargo:include={}", a.include_dir.display());
    println!("cargo:version={}", m.openssl);
    println!("cargo:asm_set={}", plan.c_set.name);
    // Lets crypto-sys declare the asm's capability functions only when they are linked.
    println!("cargo:rustc-check-cfg=cfg(crypto_sys_asm)");
    if !plan.files.is_empty() {
        println!("cargo:rustc-cfg=crypto_sys_asm");
    }
}

/// The build's facts, as Rust constants for `build_info()` and as a summary for xtask.
fn write_facts(
    c: &BuildConfig,
    plan: &Plan,
    asm: &Assembler,
    a: &compile::Artifacts,
) -> Result<()> {
    let units = a.units;
    let files: Vec<String> =
        plan.files.iter().map(|f| format!("({:?}, {:?})", f.path, f.set.name)).collect();
    let downgrades: Vec<String> = plan.downgrades.iter().map(downgrade_literal).collect();
    let consts = [
        ("OPENSSL_VERSION", "&str", format!("{:?}", crate::data::OPENSSL_VERSION)),
        ("TARGET", "&str", format!("{:?}", c.triple)),
        ("REQUESTED_SET", "&str", format!("{:?}", plan.requested.name())),
        ("EFFECTIVE_SET", "&str", format!("{:?}", plan.c_set.name)),
        ("ASSEMBLER_KIND", "&str", format!("{:?}", asm.kind.name())),
        ("ASSEMBLER_VERSION", "&str", format!("{:?}", asm.version.as_deref().unwrap_or(""))),
        ("INCLUDE_DIR", "&str", format!("{:?}", a.include_dir.display().to_string())),
        ("ASM_FILES", "&[(&str, &str)]", format!("&[{}]", files.join(", "))),
        ("DOWNGRADES", "&[super::Downgrade]", format!("&[{}]", downgrades.join(", "))),
    ];
    let mut rs = String::new();
    for (name, ty, value) in consts {
        writeln!(rs, "pub const {name}: {ty} = {value};")?;
    }
    fs::write(c.out_dir.join("build_info.rs"), rs)?;
    let summary = format!(
        "set {} (requested {}), {}, {} units ({} asm), {} downgraded\n",
        plan.c_set.name,
        plan.requested.name(),
        asm.describe(),
        units,
        plan.files.len(),
        plan.downgrades.len()
    );
    fs::write(c.out_dir.join(SUMMARY_FILE), summary)?;
    let plan_tsv: String =
        plan.files.iter().map(|f| format!("{}\t{}\n", f.path, f.set.name)).collect();
    fs::write(c.out_dir.join(PLAN_FILE), plan_tsv)?;
    Ok(())
}

fn downgrade_literal(d: &crate::select::Downgrade) -> String {
    let missing: Vec<&str> = d.missing.iter().map(|f| f.name()).collect();
    format!(
        "super::Downgrade {{ path: {:?}, from: {:?}, to: {:?}, missing: {:?} }}",
        d.path,
        d.from.name,
        d.to.name,
        missing.join("+")
    )
}
