//! `cargo xtask detect`: the toolchain cc would use, its probes, and the per-file plan,
//! without building anything.

use crate::flags::Detect;
use anyhow::{Context, Result};
use crypto_build::build_script::SetFacts;
use crypto_build::config::{BuildConfig, SetChoice, VariantChoice};
use crypto_build::data::{self, CVariant, Feature};
use crypto_build::detect::{self, Assembler};
use crypto_build::lock::Lock;
use crypto_build::select::{self, Plan, Policy};
use serde::{Deserialize, Serialize};
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
        let root = crate::cargo::project_root();
        let cache = root.join("target/crypto-build-probes");
        let assembler = self.selection.assembler;
        std::fs::create_dir_all(&cache)?;
        // The user's variables (NASM, CC among them), read as the build script reads them.
        let crate_dir = root.join("crypto-sys");
        let env =
            BuildConfig::for_target(&triple, cache.clone(), &crate_dir, 2, data::DEFAULT_LINE)?;
        // The compiler the build would use (an MSVC row's in MSVC mode); its C library is
        // not asked for, as an assembled-only row (macOS) has none here.
        crypto_build::msvc::choose_compiler(&mut cc, &env)?;
        let compiler = cc.try_get_compiler().context("finding the C compiler cc would use")?;
        let needed = !matches!(choice, SetChoice::Named(s) if s.allowed.is_empty());
        let asm =
            detect::assembler(assembler, &compiler, target, env.nasm.as_deref(), needed, &cache)?;
        let lock = Lock::load(&env.lock_dir)?;
        let source = crypto_build::source::Source::of_line(env.line)?;
        let mut facts = SetFacts {
            sets_root: &env.sets_root,
            source: &source,
            target,
            assembler: &asm,
            c_compiler: &compiler,
            scratch: &cache,
            loaded: vec![],
            c_probes: vec![],
            lock: &lock,
            lock_dir: &env.lock_dir,
            regenerate: env.regenerate_hint(),
            // A set this workspace lacks is generated, as the build would.
            generates: true,
        };
        let policy = Policy {
            strict: self.selection.strict,
            allow_downgrade: self.selection.allow_downgrade,
        };
        let plan = select::plan(choice, variant, policy, &mut facts)?;
        let c = CFacts { compiler: compiler.path().display().to_string(), probes: &facts.c_probes };
        if self.json {
            println!("{}", Report::new(&triple, &asm, &c, &plan).to_json()?);
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

/// `detect --json`: the toolchain, its probes and the plan, as `cargo xtask toolchains` reads
/// them back. Objects keep their order: the probes the table's, the files the plan's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub target: String,
    /// The C compiler driver the assembler is reached through (or nasm).
    pub driver: String,
    /// `AsmKind::name`.
    pub kind: String,
    pub version: Option<String>,
    /// Each feature class's probe: whether the assembler took it.
    #[serde(with = "super::json::in_order")]
    pub probes: Vec<(String, bool)>,
    /// Where the banner's version and the probes disagree.
    pub notes: Vec<String>,
    pub c_compiler: String,
    /// Each C variant's probe: whether the C compiler took it.
    #[serde(with = "super::json::in_order")]
    pub c_probes: Vec<(String, bool)>,
    pub requested: String,
    pub c_set: String,
    pub requested_c_variant: String,
    pub c_variant: Option<String>,
    pub c_variant_refused: Option<String>,
    /// Each asm file and its set.
    #[serde(with = "super::json::in_order")]
    pub files: Vec<(String, String)>,
    pub downgrades: Vec<Downgrade>,
}

/// A file that could not take the set it wanted, and the classes the assembler lacked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Downgrade {
    pub path: String,
    pub from: String,
    pub to: String,
    pub missing: Vec<String>,
}

impl Report {
    fn new(triple: &str, asm: &Assembler, c: &CFacts, plan: &Plan) -> Report {
        let names = |v: &[Feature]| v.iter().map(|f| f.name().to_string()).collect();
        let variant = |v: Option<&CVariant>| v.map(|v| v.name.to_string());
        Report {
            target: triple.into(),
            driver: asm.driver.display().to_string(),
            kind: asm.kind.name().into(),
            version: asm.version.clone(),
            probes: asm.probes.iter().map(|(f, ok)| (f.name().into(), *ok)).collect(),
            notes: asm.disagreements(),
            c_compiler: c.compiler.clone(),
            c_probes: c.probes.iter().map(|(v, ok)| (v.name.into(), *ok)).collect(),
            requested: plan.requested.name().into(),
            c_set: plan.c_set.name.into(),
            requested_c_variant: plan.requested_variant.name().into(),
            c_variant: variant(plan.c_variant),
            c_variant_refused: variant(plan.variant_refused),
            files: plan.files.iter().map(|f| (f.path.clone(), f.set.name.into())).collect(),
            downgrades: (plan.downgrades.iter())
                .map(|d| Downgrade {
                    path: d.path.clone(),
                    from: d.from.name.into(),
                    to: d.to.name.into(),
                    missing: names(&d.missing),
                })
                .collect(),
        }
    }

    /// One line of JSON.
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string(self).context("writing detect's JSON")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Report {
        Report {
            target: "x86_64-unknown-linux-gnu".into(),
            // A path may hold anything a file name can: a quote, a backslash, a line break.
            driver: "/opt/a \"b\"\\\nc/cc".into(),
            kind: "GNU as".into(),
            version: Some("2.40".into()),
            probes: vec![("avx2".into(), true), ("adx-bmi2".into(), false)],
            notes: vec!["the banner says \"2.40\"\nbut avx-ifma failed".into()],
            c_compiler: "cc \"quoted\"\n".into(),
            c_probes: vec![("ec_nistp_64_gcc_128".into(), true)],
            requested: "auto".into(),
            c_set: "asm".into(),
            requested_c_variant: "auto".into(),
            c_variant: Some("ec_nistp_64_gcc_128".into()),
            c_variant_refused: None,
            files: vec![
                ("crypto/z.s".into(), "asm".into()),
                ("crypto/a.s".into(), "asm_avx2".into()),
            ],
            downgrades: vec![Downgrade {
                path: "crypto/a.s".into(),
                from: "asm".into(),
                to: "asm_avx2".into(),
                missing: vec!["avx512".into()],
            }],
        }
    }

    #[test]
    fn the_json_reads_back_the_same_escapes_included() {
        let json = sample().to_json().unwrap();
        assert!(!json.contains('\n'), "one line: {json}");
        assert_eq!(serde_json::from_str::<Report>(&json).unwrap(), sample());
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["driver"], "/opt/a \"b\"\\\nc/cc");
        assert_eq!(value["c_variant_refused"], serde_json::Value::Null);
    }

    /// The probes in the table's order and the files in the plan's, not sorted.
    #[test]
    fn objects_keep_their_order() {
        let json = sample().to_json().unwrap();
        assert!(json.contains(r#""probes":{"avx2":true,"adx-bmi2":false}"#), "{json}");
        assert!(json.contains(r#""files":{"crypto/z.s":"asm","crypto/a.s":"asm_avx2"}"#), "{json}");
    }
}
