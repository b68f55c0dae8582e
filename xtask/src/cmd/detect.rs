//! `cargo xtask detect`: the toolchain cc would use, its probes, and the per-file plan,
//! without building anything.

use crate::flags::Detect;
use anyhow::{Context, Result};
use crypto_build::build_script::SetFacts;
use crypto_build::config::{BuildConfig, SetChoice, VariantChoice};
use crypto_build::data::{self, CVariant};
use crypto_build::detect::{self, Assembler};
use crypto_build::generate::lock::Lock;
use crypto_build::select::{self, Plan, Policy};
use xshell::Shell;

impl Detect {
    pub fn run(self, sh: &Shell) -> Result<()> {
        let triple = match &self.target {
            Some(t) => t.clone(),
            None => crate::cargo::host_triple(sh)?,
        };
        let target = data::target_for(&triple)?;
        let choice = self.selection.asm_set.unwrap_or(SetChoice::Auto);
        let variant = self.selection.c_variant.unwrap_or(VariantChoice::Auto);
        let mut cc = cc::Build::new();
        let host = crate::cargo::host_triple(sh)?;
        cc.target(&triple).host(&host).opt_level(3).cargo_metadata(false).cargo_warnings(false);
        let compiler = cc.try_get_compiler().context("finding the C compiler cc would use")?;
        let root = crate::cargo::project_root();
        let cache = root.join("target/crypto-build-probes");
        let assembler = self.selection.assembler;
        std::fs::create_dir_all(&cache)?;
        // The user's variables (NASM among them), read as the build script reads them.
        let crate_dir = root.join("crypto-sys");
        let env =
            BuildConfig::for_target(&triple, cache.clone(), &crate_dir, 2, data::DEFAULT_LINE)?;
        let needed = !matches!(choice, SetChoice::Named(s) if s.allowed.is_empty());
        let asm =
            detect::assembler(assembler, &compiler, target, env.nasm.as_deref(), needed, &cache)?;
        let lock = Lock::load(&env.lock_dir)?;
        let source = crypto_build::generate::Source::of_line(env.line)?;
        let mut facts = SetFacts {
            sets_root: &root,
            source: &source,
            target,
            jobs: 2,
            assembler: &asm,
            c_compiler: &compiler,
            scratch: &cache,
            loaded: vec![],
            c_probes: vec![],
            lock: &lock,
            regenerate: env.regenerate_hint(),
        };
        let policy = Policy {
            strict: self.selection.strict,
            allow_downgrade: self.selection.allow_downgrade,
        };
        let plan = select::plan(choice, variant, policy, &mut facts)?;
        let c = CFacts { compiler: compiler.path().display().to_string(), probes: &facts.c_probes };
        if self.json {
            println!("{}", json(&triple, &asm, &c, &plan));
        } else {
            print!("{}", text(&triple, &asm, &c, &plan));
        }
        Ok(())
    }
}

/// The C compiler and its answers to the C variants' probes.
struct CFacts<'a> {
    compiler: String,
    probes: &'a [(&'static CVariant, bool)],
}

fn text(triple: &str, asm: &Assembler, c: &CFacts, plan: &Plan) -> String {
    let mut out =
        format!("target: {triple}\ntoolchain: {} ({})\n", asm.driver.display(), asm.describe());
    for (f, ok) in &asm.probes {
        out += &format!("  probe {f:<16} {}\n", if *ok { "assembles" } else { "REJECTED" });
    }
    for d in asm.disagreements() {
        out += &format!("note: {d}\n");
    }
    out += &format!("C compiler: {}\n", c.compiler);
    for (v, ok) in c.probes {
        let verdict = if *ok { "compiles" } else { "REJECTED" };
        out += &format!("  probe {:<20} {verdict} ({})\n", v.name, v.needs);
    }
    let variant = crypto_build::data::variant_name(plan.c_variant);
    out += &format!(
        "plan: C from {} (C variant {variant}), {} asm files\n",
        plan.c_set.name,
        plan.files.len()
    );
    for f in &plan.files {
        out += &format!("  {:<40} {}\n", f.path, f.set.name);
    }
    if plan.degraded() {
        out += &format!("warning: {} ({})\n", select::describe(plan), asm.describe());
    }
    out
}

fn json(triple: &str, asm: &Assembler, c: &CFacts, plan: &Plan) -> String {
    let q = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    let probes: Vec<String> =
        asm.probes.iter().map(|(f, ok)| format!("{}:{ok}", q(f.name()))).collect();
    let files: Vec<String> =
        plan.files.iter().map(|f| format!("{}:{}", q(&f.path), q(f.set.name))).collect();
    let downgrades: Vec<String> = plan
        .downgrades
        .iter()
        .map(|d| {
            let missing: Vec<String> = d.missing.iter().map(|f| q(f.name())).collect();
            format!(
                "{{\"path\":{},\"from\":{},\"to\":{},\"missing\":[{}]}}",
                q(&d.path),
                q(d.from.name),
                q(d.to.name),
                missing.join(",")
            )
        })
        .collect();
    let notes: Vec<String> = asm.disagreements().iter().map(|d| q(d)).collect();
    let c_probes: Vec<String> =
        c.probes.iter().map(|(v, ok)| format!("{}:{ok}", q(v.name))).collect();
    let opt = |v: Option<&CVariant>| v.map_or("null".into(), |v| q(v.name));
    format!(
        "{{\"target\":{},\"driver\":{},\"kind\":{},\"version\":{},\"probes\":{{{}}},\"notes\":[{}],\
         \"c_compiler\":{},\"c_probes\":{{{}}},\"requested\":{},\"c_set\":{},\
         \"requested_c_variant\":{},\"c_variant\":{},\"c_variant_refused\":{},\
         \"files\":{{{}}},\"downgrades\":[{}]}}",
        q(triple),
        q(&asm.driver.display().to_string()),
        q(asm.kind.name()),
        asm.version.as_deref().map_or("null".into(), q),
        probes.join(","),
        notes.join(","),
        q(&c.compiler),
        c_probes.join(","),
        q(plan.requested.name()),
        q(plan.c_set.name),
        q(plan.requested_variant.name()),
        opt(plan.c_variant),
        opt(plan.variant_refused),
        files.join(","),
        downgrades.join(",")
    )
}
