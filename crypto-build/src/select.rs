//! Per-file set selection: for each asm file, the fastest set whose version of it the
//! assembler can assemble; and the C variant, if the C compiler passes its probe. Every
//! downgrade is recorded, so it can be reported once.

use crate::config::{SetChoice, VariantChoice};
use crate::data::{AsmSet, AsmSyntax, CVariant, Feature, Target};
use crate::manifest::Manifest;
use anyhow::{bail, Result};

/// Where one asm file comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChoice {
    pub path: String,
    pub set: &'static AsmSet,
}

/// A file (or the whole build) that could not use the set it wanted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Downgrade {
    /// The asm file, or `*` when the whole build fell back to no_asm.
    pub path: String,
    pub from: &'static AsmSet,
    pub to: &'static AsmSet,
    pub missing: Vec<Feature>,
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub requested: SetChoice,
    /// The set whose C configuration is compiled: an asm set, or no_asm.
    pub c_set: &'static AsmSet,
    pub files: Vec<FileChoice>,
    pub downgrades: Vec<Downgrade>,
    pub requested_variant: VariantChoice,
    /// The C variant compiled, if any.
    pub c_variant: Option<&'static CVariant>,
    /// The variant that was wanted but whose probe the C compiler failed.
    pub variant_refused: Option<&'static CVariant>,
}

impl Plan {
    /// Whether anything fell back, and so must be reported.
    pub fn degraded(&self) -> bool {
        !self.downgrades.is_empty() || self.variant_refused.is_some()
    }
}

/// What the planner may ask about the toolchain and the sets.
pub trait Facts {
    fn supports(&self, f: Feature) -> bool;
    /// The syntax the assembler reads: which rendering of each file is planned.
    fn syntax(&self) -> AsmSyntax;
    fn manifest(&mut self, set: &'static AsmSet) -> Result<&Manifest>;
    /// Whether the C compiler compiles the variant's probe.
    fn c_compiles(&mut self, v: &'static CVariant) -> bool;
    /// Why the C compiler never takes the variant (cl.exe: `data::CL_EXE_REFUSES`), where
    /// no probe is asked; `None`: its probe decides.
    fn c_compiler_refuses(&self, v: &'static CVariant) -> Option<&'static str>;
    /// The target built, whose row lists the C variants generated for it.
    fn target(&self) -> &'static Target;
}

/// Selection policy switches.
#[derive(Debug, Clone, Copy, Default)]
pub struct Policy {
    pub strict: bool,
    pub allow_downgrade: bool,
}

/// The target's asm sets, fastest first.
fn asm_sets(target: &'static Target) -> impl Iterator<Item = &'static AsmSet> {
    target.sets().filter(|s| !s.allowed.is_empty())
}

fn no_asm(target: &'static Target) -> &'static AsmSet {
    target.sets().find(|s| s.allowed.is_empty()).expect("each target has a no-asm set")
}

pub fn plan(
    choice: SetChoice,
    variant: VariantChoice,
    policy: Policy,
    facts: &mut dyn Facts,
) -> Result<Plan> {
    let mut plan = asm_plan(choice, facts)?;
    // nasm is there because it was asked for, or because the target has no other rendering:
    // one that cannot take even asm_avx2 is as unusable as a missing one, not a downgrade.
    if facts.syntax() == AsmSyntax::Nasm
        && plan.c_set.allowed.is_empty()
        && !plan.downgrades.is_empty()
    {
        let slowest = asm_sets(facts.target()).last().expect("each target has an asm set");
        let needs: Vec<Feature> =
            facts.manifest(slowest)?.asm.iter().flat_map(|a| a.features.clone()).collect();
        let mut lacks: Vec<&str> = vec![];
        for f in needs.iter().filter(|f| !facts.supports(**f)) {
            if !lacks.contains(&f.name()) {
                lacks.push(f.name());
            }
        }
        bail!(
            "this nasm is too old to assemble even the `{}` set (it lacks {}): install nasm \
             2.10 or later (Debian: apt install nasm), or build without asm explicitly with \
             CRYPTO_SYS_ASM_SET=no_asm",
            slowest.name,
            lacks.join("+")
        );
    }
    plan.requested_variant = variant;
    (plan.c_variant, plan.variant_refused) = pick_variant(variant, facts)?;
    enforce(&plan, policy)?;
    Ok(plan)
}

fn asm_plan(choice: SetChoice, facts: &mut dyn Facts) -> Result<Plan> {
    let target = facts.target();
    let wanted = match choice {
        SetChoice::Auto => asm_sets(target).next().expect("each target has an asm set"),
        SetChoice::Named(s) if target.has_set(s.name) => s,
        SetChoice::Named(s) => bail!(
            "asm set `{}` is not generated for {}; accepted there: auto, {}",
            s.name,
            target.name,
            target.sets.join(", ")
        ),
    };
    let mut plan = Plan {
        requested: choice,
        c_set: wanted,
        files: vec![],
        downgrades: vec![],
        requested_variant: VariantChoice::None,
        c_variant: None,
        variant_refused: None,
    };
    if wanted.allowed.is_empty() {
        return Ok(plan);
    }
    let syntax = facts.syntax();
    let paths: Vec<String> = facts
        .manifest(wanted)?
        .asm
        .iter()
        .filter(|a| AsmSyntax::of_path(&a.path) == Some(syntax))
        .map(|a| a.path.clone())
        .collect();
    for path in paths {
        match pick(&path, wanted, facts)? {
            (set, None) => plan.files.push(FileChoice { path, set }),
            (set, Some(d)) if set.allowed.is_empty() => {
                plan.downgrades = vec![Downgrade { path: "*".into(), ..d }];
                plan.files.clear();
                plan.c_set = set;
                break;
            }
            (set, Some(d)) => {
                plan.files.push(FileChoice { path, set });
                plan.downgrades.push(d);
            }
        }
    }
    Ok(plan)
}

/// (variant taken, variant refused by its probe).
type VariantPick = (Option<&'static CVariant>, Option<&'static CVariant>);

/// Only the target's own variants are candidates: one the target refuses (32-bit x86's, no
/// `__uint128_t`), or its C compiler does (cl.exe's), leaves OpenSSL's default C under
/// `auto`, with nothing to report, and is refused by name with the reason.
fn pick_variant(choice: VariantChoice, facts: &mut dyn Facts) -> Result<VariantPick> {
    let target = facts.target();
    let candidates: Vec<&'static CVariant> = match choice {
        VariantChoice::None => return Ok((None, None)),
        VariantChoice::Auto => {
            target.c_variants.iter().filter(|v| facts.c_compiler_refuses(v).is_none()).collect()
        }
        VariantChoice::Named(v) if target.c_variants.iter().any(|t| t.name == v.name) => {
            if let Some(why) = facts.c_compiler_refuses(v) {
                bail!(
                    "C variant `{}` is not built by this C compiler: {why}; choose auto or none",
                    v.name
                )
            }
            vec![v]
        }
        VariantChoice::Named(v) => {
            let why = target.refused_variants.iter().find(|(n, _)| *n == v.name);
            let why = why.map_or(v.needs, |(_, why)| why);
            bail!(
                "C variant `{}` is not built for {}: {why}; choose auto or none",
                v.name,
                target.name
            )
        }
    };
    Ok(match candidates.iter().find(|v| facts.c_compiles(v)) {
        Some(v) => (Some(*v), None),
        None => (None, candidates.first().copied()),
    })
}

/// The first set, from `wanted` down, whose version of `path` needs only supported features.
fn pick(
    path: &str,
    wanted: &'static AsmSet,
    facts: &mut dyn Facts,
) -> Result<(&'static AsmSet, Option<Downgrade>)> {
    let mut first_missing = None;
    let target = facts.target();
    for set in asm_sets(target).filter(|s| s.rank >= wanted.rank) {
        let Some(file) = facts.manifest(set)?.asm_file(path).cloned() else {
            continue;
        };
        let missing: Vec<Feature> =
            file.features.iter().copied().filter(|f| !facts.supports(*f)).collect();
        if missing.is_empty() {
            let d = first_missing.map(|missing| Downgrade {
                path: path.into(),
                from: wanted,
                to: set,
                missing,
            });
            return Ok((set, d));
        }
        first_missing.get_or_insert(missing);
    }
    let missing = first_missing.unwrap_or_default();
    let to = no_asm(target);
    Ok((to, Some(Downgrade { path: path.into(), from: wanted, to, missing })))
}

fn enforce(plan: &Plan, policy: Policy) -> Result<()> {
    let asm_down = !plan.downgrades.is_empty();
    let refused = plan.variant_refused;
    if let (SetChoice::Named(s), true, false) = (plan.requested, asm_down, policy.allow_downgrade) {
        bail!(
            "the assembler cannot assemble all of `{}`: {}; choose another set, or allow \
             per-file downgrades with --allow-downgrade (CRYPTO_SYS_ALLOW_DOWNGRADE=1)",
            s.name,
            describe_files(plan)
        );
    }
    if let (VariantChoice::Named(_), Some(v), false) =
        (plan.requested_variant, refused, policy.allow_downgrade)
    {
        bail!(
            "{}; choose --c-variant none (CRYPTO_SYS_C_VARIANT=none), or allow the downgrade \
             with --allow-downgrade (CRYPTO_SYS_ALLOW_DOWNGRADE=1)",
            describe_variant(v)
        );
    }
    let auto_down = (plan.requested == SetChoice::Auto && asm_down)
        || (plan.requested_variant == VariantChoice::Auto && refused.is_some());
    if auto_down && policy.strict {
        bail!(
            "strict mode: {} (unset CRYPTO_SYS_STRICT / drop --strict to accept)",
            describe(plan)
        );
    }
    Ok(())
}

/// One line: what was downgraded, where to, and why.
pub fn describe(plan: &Plan) -> String {
    let mut parts = Vec::new();
    if !plan.downgrades.is_empty() {
        parts.push(format!(
            "asm set `{}` downgraded: {}",
            plan.requested.name(),
            describe_files(plan)
        ));
    }
    if let Some(v) = plan.variant_refused {
        parts.push(describe_variant(v));
    }
    parts.join("; ")
}

fn describe_variant(v: &CVariant) -> String {
    format!(
        "C variant `{}` off: the C compiler failed its probe ({}), so OpenSSL's default C \
         configuration is built",
        v.name, v.needs
    )
}

fn describe_files(plan: &Plan) -> String {
    let parts: Vec<String> = plan
        .downgrades
        .iter()
        .map(|d| {
            let missing: Vec<&str> = d.missing.iter().map(|f| f.name()).collect();
            let what = if d.path == "*" { "all files".to_string() } else { d.path.clone() };
            format!("{what} -> {} (missing {})", d.to.name, missing.join("+"))
        })
        .collect();
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::set_by_name;
    use crate::manifest::AsmFile;

    struct Fake {
        unsupported: Vec<Feature>,
        manifests: Vec<Manifest>,
        int128: bool,
        /// The C compiler is cl.exe.
        cl_exe: bool,
        target: &'static str,
        syntax: AsmSyntax,
    }

    impl Facts for Fake {
        fn supports(&self, f: Feature) -> bool {
            !self.unsupported.contains(&f)
        }
        fn manifest(&mut self, set: &'static AsmSet) -> Result<&Manifest> {
            Ok(self.manifests.iter().find(|m| m.set == set.name).unwrap())
        }
        fn c_compiles(&mut self, _: &'static CVariant) -> bool {
            self.int128
        }
        fn c_compiler_refuses(&self, v: &'static CVariant) -> Option<&'static str> {
            crate::data::cl_exe_refuses(v.name).filter(|_| self.cl_exe)
        }
        fn syntax(&self) -> AsmSyntax {
            self.syntax
        }
        fn target(&self) -> &'static Target {
            crate::data::target_by_name(self.target).unwrap()
        }
    }

    fn manifest(set: &str, files: &[(&str, &[Feature])]) -> Manifest {
        let asm = files
            .iter()
            .map(|(p, f)| AsmFile { path: p.to_string(), features: f.to_vec(), globals: vec![] })
            .collect();
        Manifest { set: set.into(), asm, ..Manifest::default() }
    }

    fn fake(unsupported: &[Feature]) -> Fake {
        use Feature::*;
        Fake {
            unsupported: unsupported.to_vec(),
            manifests: vec![
                manifest("asm", &[("gcm.s", &[Avx512, Vaes512]), ("ifma.s", &[Avx2, AvxIfma])]),
                manifest("asm_avx2", &[("gcm.s", &[Avx2]), ("ifma.s", &[Avx2])]),
                manifest("no_asm", &[]),
            ],
            int128: true,
            cl_exe: false,
            target: "linux-x86_64",
            syntax: AsmSyntax::Gas,
        }
    }

    fn sets(p: &Plan) -> Vec<&str> {
        p.files.iter().map(|f| f.set.name).collect()
    }

    #[test]
    fn auto_takes_asm_when_everything_assembles() {
        let p =
            plan(SetChoice::Auto, VariantChoice::Auto, Policy::default(), &mut fake(&[])).unwrap();
        assert_eq!(sets(&p), ["asm", "asm"]);
        assert!(p.downgrades.is_empty());
    }

    #[test]
    fn auto_downgrades_only_the_files_that_need_it() {
        let p = plan(
            SetChoice::Auto,
            VariantChoice::Auto,
            Policy::default(),
            &mut fake(&[Feature::AvxIfma]),
        )
        .unwrap();
        assert_eq!(sets(&p), ["asm", "asm_avx2"]);
        assert_eq!(
            describe(&p),
            "asm set `auto` downgraded: ifma.s -> asm_avx2 (missing avx-ifma)"
        );
        let strict = Policy { strict: true, ..Policy::default() };
        let e = plan(SetChoice::Auto, VariantChoice::Auto, strict, &mut fake(&[Feature::AvxIfma]))
            .unwrap_err();
        assert!(e.to_string().contains("strict mode"), "{e}");
    }

    #[test]
    fn no_avx2_falls_back_to_no_asm_as_a_whole() {
        let p = plan(
            SetChoice::Auto,
            VariantChoice::Auto,
            Policy::default(),
            &mut fake(&[Feature::Avx2]),
        )
        .unwrap();
        assert_eq!(p.c_set.name, "no_asm");
        assert!(p.files.is_empty());
        assert_eq!(p.downgrades.len(), 1);
        assert_eq!(p.downgrades[0].path, "*");
    }

    fn arm(unsupported: &[Feature]) -> Fake {
        use Feature::*;
        Fake {
            manifests: vec![
                manifest("asm", &[("aesv8-armx.S", &[Neon, ArmCrypto]), ("sha1.S", &[Neon])]),
                manifest("no_asm", &[]),
            ],
            target: "linux-aarch64",
            ..fake(unsupported)
        }
    }

    #[test]
    fn an_arm_assembler_failing_a_class_takes_no_asm_as_a_whole_in_one_line() {
        let p =
            plan(SetChoice::Auto, VariantChoice::Auto, Policy::default(), &mut arm(&[])).unwrap();
        assert_eq!(sets(&p), ["asm", "asm"]);
        let p = plan(
            SetChoice::Auto,
            VariantChoice::Auto,
            Policy::default(),
            &mut arm(&[Feature::ArmCrypto]),
        )
        .unwrap();
        assert_eq!((p.c_set.name, p.files.len()), ("no_asm", 0));
        assert_eq!(
            describe(&p),
            "asm set `auto` downgraded: all files -> no_asm (missing armv8-crypto)"
        );
        let strict = Policy { strict: true, ..Policy::default() };
        let e = plan(SetChoice::Auto, VariantChoice::Auto, strict, &mut arm(&[Feature::ArmCrypto]))
            .unwrap_err();
        assert!(e.to_string().starts_with("strict mode: asm set `auto` downgraded"), "{e}");
    }

    #[test]
    fn a_set_the_target_lacks_is_refused_with_its_sets() {
        let avx2 = SetChoice::Named(set_by_name("asm_avx2").unwrap());
        let e = plan(avx2, VariantChoice::Auto, Policy::default(), &mut arm(&[])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "asm set `asm_avx2` is not generated for linux-aarch64; accepted there: auto, asm, \
             no_asm"
        );
    }

    #[test]
    fn a_nasm_without_avx2_is_an_error_naming_the_fix() {
        use Feature::*;
        let manifests = vec![
            manifest("asm", &[("gcm.asm", &[Avx512, Vaes512]), ("sha.asm", &[Avx2])]),
            manifest("asm_avx2", &[("gcm.asm", &[Avx2]), ("sha.asm", &[Avx2])]),
            manifest("no_asm", &[]),
        ];
        let mut old_nasm = Fake { syntax: AsmSyntax::Nasm, manifests, ..fake(&[Avx2, Avx512]) };
        let e = plan(SetChoice::Auto, VariantChoice::Auto, Policy::default(), &mut old_nasm)
            .unwrap_err()
            .to_string();
        assert!(e.contains("too old") && e.contains("lacks avx2"), "{e}");
        assert!(e.contains("apt install nasm") && e.contains("CRYPTO_SYS_ASM_SET=no_asm"), "{e}");
        let no_asm = SetChoice::Named(set_by_name("no_asm").unwrap());
        assert!(plan(no_asm, VariantChoice::Auto, Policy::default(), &mut old_nasm).is_ok());
    }

    #[test]
    fn an_explicit_set_that_does_not_assemble_is_an_error_unless_allowed() {
        let asm = SetChoice::Named(set_by_name("asm").unwrap());
        let e = plan(asm, VariantChoice::Auto, Policy::default(), &mut fake(&[Feature::Vaes512]))
            .unwrap_err();
        assert!(e.to_string().contains("gcm.s -> asm_avx2 (missing vaes-zmm)"), "{e}");
        let allow = Policy { allow_downgrade: true, ..Policy::default() };
        let p = plan(asm, VariantChoice::Auto, allow, &mut fake(&[Feature::Vaes512])).unwrap();
        assert_eq!(sets(&p), ["asm_avx2", "asm"]);
    }

    #[test]
    fn explicit_no_asm_has_no_asm_files() {
        let p = plan(
            SetChoice::Named(set_by_name("no_asm").unwrap()),
            VariantChoice::Auto,
            Policy::default(),
            &mut fake(&[]),
        )
        .unwrap();
        assert_eq!(p.c_set.name, "no_asm");
        assert!(p.files.is_empty() && p.downgrades.is_empty());
    }

    #[test]
    fn auto_takes_the_variant_the_c_compiler_passes() {
        let p =
            plan(SetChoice::Auto, VariantChoice::Auto, Policy::default(), &mut fake(&[])).unwrap();
        assert_eq!(p.c_variant.map(|v| v.name), Some("ec_nistp_64_gcc_128"));
        assert!(!p.degraded());
        let p =
            plan(SetChoice::Auto, VariantChoice::None, Policy::default(), &mut fake(&[])).unwrap();
        assert!(p.c_variant.is_none() && !p.degraded(), "none is asked for, not a fallback");
    }

    #[test]
    fn a_failed_c_probe_is_reported_like_an_asm_downgrade() {
        let mut no_int128 = Fake { int128: false, ..fake(&[Feature::AvxIfma]) };
        let p =
            plan(SetChoice::Auto, VariantChoice::Auto, Policy::default(), &mut no_int128).unwrap();
        assert!(p.c_variant.is_none() && p.degraded());
        assert_eq!(
            describe(&p),
            "asm set `auto` downgraded: ifma.s -> asm_avx2 (missing avx-ifma); C variant \
             `ec_nistp_64_gcc_128` off: the C compiler failed its probe (__uint128_t on a \
             64-bit little-endian target), so OpenSSL's default C configuration is built"
        );
        let strict = Policy { strict: true, ..Policy::default() };
        let mut no_int128 = Fake { int128: false, ..fake(&[]) };
        let e = plan(SetChoice::Auto, VariantChoice::Auto, strict, &mut no_int128).unwrap_err();
        assert!(e.to_string().starts_with("strict mode: C variant"), "{e}");
    }

    #[test]
    fn an_explicit_variant_the_c_compiler_fails_is_an_error_unless_allowed() {
        let nistp = VariantChoice::parse("ec_nistp_64_gcc_128").unwrap();
        let mut no_int128 = Fake { int128: false, ..fake(&[]) };
        let e = plan(SetChoice::Auto, nistp, Policy::default(), &mut no_int128).unwrap_err();
        assert!(e.to_string().contains("CRYPTO_SYS_C_VARIANT=none"), "{e}");
        let allow = Policy { allow_downgrade: true, ..Policy::default() };
        let p = plan(SetChoice::Auto, nistp, allow, &mut no_int128).unwrap();
        assert!(p.c_variant.is_none() && p.variant_refused.is_some());
    }

    /// VC-WIN64A: clang-cl's probe decides, as on every row; cl.exe has no __uint128_t, and
    /// leaves the variant out as it always did, quietly under `auto`, refused by name.
    #[test]
    fn msvc_takes_the_variant_by_probe_and_cl_exe_leaves_it_out_quietly() {
        let nistp = VariantChoice::Named(crate::data::variant_by_name(crate::data::NISTP).unwrap());
        let mut clang_cl = Fake { target: "VC-WIN64A", ..fake(&[]) };
        let p = plan(SetChoice::Auto, VariantChoice::Auto, Policy::default(), &mut clang_cl);
        assert_eq!(p.unwrap().c_variant.map(|v| v.name), Some(crate::data::NISTP));
        let mut cl = Fake { target: "VC-WIN64A", cl_exe: true, ..fake(&[]) };
        let p = plan(SetChoice::Auto, VariantChoice::Auto, Policy::default(), &mut cl).unwrap();
        assert_eq!((p.c_variant, p.variant_refused), (None, None));
        assert!(!p.degraded(), "{}", describe(&p));
        let strict = Policy { strict: true, ..Policy::default() };
        plan(SetChoice::Auto, VariantChoice::Auto, strict, &mut cl).unwrap();
        let e = plan(SetChoice::Auto, nistp, Policy::default(), &mut cl).unwrap_err().to_string();
        assert_eq!(
            e,
            "C variant `ec_nistp_64_gcc_128` is not built by this C compiler: cl.exe has no \
             __uint128_t; choose auto or none"
        );
    }

    #[test]
    fn a_target_without_c_variants_takes_the_default_c_quietly_and_refuses_a_named_one() {
        let nistp = VariantChoice::Named(crate::data::variant_by_name(crate::data::NISTP).unwrap());
        // ppc64le: the variant would bring asm of its own.
        let mut ppc = Fake { target: "linux-ppc64le", ..fake(&[]) };
        let p = plan(SetChoice::Auto, VariantChoice::Auto, Policy::default(), &mut ppc).unwrap();
        assert_eq!((p.c_variant, p.variant_refused), (None, None));
        let e = plan(SetChoice::Auto, nistp, Policy::default(), &mut ppc).unwrap_err().to_string();
        assert!(
            e.contains("not built for linux-ppc64le: on ppc64") && e.lines().count() == 1,
            "{e}"
        );
        // s390x: big-endian, which the nistp code does not support.
        let mut s390x = Fake { target: "linux64-s390x", ..fake(&[]) };
        let p = plan(SetChoice::Auto, VariantChoice::Auto, Policy::default(), &mut s390x).unwrap();
        assert_eq!((p.c_variant, p.variant_refused), (None, None));
        assert!(!p.degraded(), "{}", describe(&p));
        let e = plan(SetChoice::Auto, nistp, Policy::default(), &mut s390x).unwrap_err();
        let e = e.to_string();
        assert!(e.contains("linux64-s390x: the variant needs a little-endian target"), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        // 32-bit x86: no __uint128_t, whichever compiler.
        for target in ["linux-elf", "mingw", "VC-WIN32"] {
            let mut x86 = Fake { target, ..fake(&[]) };
            let p = plan(SetChoice::Auto, VariantChoice::Auto, Policy::default(), &mut x86);
            let p = p.unwrap();
            assert_eq!((p.c_variant, p.variant_refused), (None, None), "{target}");
            let e = plan(SetChoice::Auto, nistp, Policy::default(), &mut x86).unwrap_err();
            let e = e.to_string();
            assert!(
                e.contains(&format!("{target}: a 32-bit target's C compiler has no __uint128_t")),
                "{e}"
            );
            assert_eq!(e.lines().count(), 1, "{e}");
        }
        // 32-bit ARM: no __uint128_t.
        let mut armv4 = Fake { target: "linux-armv4", ..fake(&[]) };
        let p = plan(SetChoice::Auto, VariantChoice::Auto, Policy::default(), &mut armv4).unwrap();
        assert_eq!((p.c_variant, p.variant_refused), (None, None));
        assert!(!p.degraded(), "{}", describe(&p));
        let e = plan(SetChoice::Auto, nistp, Policy::default(), &mut armv4).unwrap_err();
        let e = e.to_string();
        assert!(
            e.contains(
                "not built for linux-armv4: a 32-bit target's C compiler has no __uint128_t"
            ),
            "{e}"
        );
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}
