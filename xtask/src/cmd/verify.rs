//! `cargo xtask verify`: after a build, proves from the linked objects that every fast path the
//! plan took from `asm` is real code and every downgraded one is a stub (the hand-listed ones,
//! and every entry point of every asm file holding code the AVX2 set cannot carry, found from
//! the manifests), or, for a build without asm, that none of that code is linked; then that
//! the eligibility functions answer true at run time where the CPU has the features.

use crate::flags::Verify;
use anyhow::{bail, Context, Result};
use crypto_build::data::{self, AsmSet, SetRole};
use crypto_build::facts::BuildFacts;
use crypto_build::generate::{scan, set_dir};
use crypto_build::manifest::{gen_path, Manifest};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use xshell::{cmd, Shell};

use crypto_build::data::STUB_MAX_BYTES;

impl Verify {
    pub fn run(self, sh: &Shell) -> Result<()> {
        let triple = crate::cargo::host_triple(sh)?;
        let target = data::target_for(&triple)?;
        let line = self.openssl.line;
        let no_legacy = self.no_legacy.then(|| "--no-default-features".to_string());
        let features: Vec<String> = no_legacy.into_iter().chain(line.cargo_feature_arg()).collect();
        let out_dir = super::build::build_crypto_sys(sh, Some(&features), None, &triple)?;
        let facts = BuildFacts::read(&out_dir)?;
        let plan: BTreeMap<String, String> =
            facts.asm_files.iter().map(|f| (f.path.clone(), f.set.clone())).collect();
        let sizes = symbol_sizes(sh, &out_dir.join("lib/libcrypto.a"))?;
        let wide = wide_files(&line.root(&crate::cargo::project_root()), target.name)?;
        let has_asm = !plan.is_empty();
        let mut problems = if has_asm {
            let mut p = check(target.fast_paths, &plan, &sizes);
            p.extend(check_wide(&wide, &plan, &sizes));
            p
        } else {
            check_no_asm(&wide, &sizes)
        };
        problems.extend(check_variant(facts.c_variant_name(), &sizes));
        problems.extend(check_legacy(!self.no_legacy, &sizes));
        if !problems.is_empty() {
            bail!("verify: {}", problems.join("; "));
        }
        let cargo = crate::cargo::cargo();
        cmd!(sh, "{cargo} test -q -p crypto-sys {features...} --test fast_paths")
            .run()
            .context("verify: the eligibility functions disagree with the CPU and the plan")?;
        println!("verify: every fast path is what the plan says, and live where the CPU allows");
        Ok(())
    }
}

/// The legacy provider is linked exactly when it was asked for.
fn check_legacy(wanted: bool, sizes: &BTreeMap<String, u64>) -> Option<String> {
    let marker = data::LEGACY.marker;
    let linked = sizes.contains_key(marker);
    println!("legacy provider: {}", if linked { "built in" } else { "left out" });
    (linked != wanted).then(|| {
        let (want, is) = if wanted { ("built in", "missing") } else { ("left out", "linked") };
        format!("the legacy provider should be {want}, but {marker} is {is}")
    })
}

/// Every fast path whose linked code is not what the plan says, in words.
fn check(
    fast_paths: &[data::FastPath],
    plan: &BTreeMap<String, String>,
    sizes: &BTreeMap<String, u64>,
) -> Vec<String> {
    let mut problems = Vec::new();
    for fp in fast_paths {
        let Some(set) = plan.get(fp.file) else {
            problems.push(format!("{} is not in the plan", fp.file));
            continue;
        };
        let size = sizes.get(fp.symbol).copied();
        let want_real = data::is_set(set, SetRole::Avx512);
        let shown = size.map_or("missing".into(), |s| format!("{s} bytes"));
        println!("{:<40} {:<32} from {set:<8} {shown}", fp.file, fp.symbol);
        if size.is_none_or(|s| (s > STUB_MAX_BYTES) != want_real) {
            let want = if want_real { "real code" } else { "a stub" };
            problems.push(format!(
                "{} ({}, from {set}) should be {want}, is {shown}",
                fp.symbol, fp.file
            ));
        }
    }
    problems
}

/// An entry point of an asm file whose `asm` version holds code of a class the `asm_avx2`
/// set may not carry (AVX-512, VAES or VPCLMULQDQ on zmm, AVX512-IFMA, AVX-IFMA).
struct WideEntry {
    file: String,
    symbol: String,
    /// The `asm_avx2` twin's copy is a stub: the entry point exists for the wide code alone.
    twin_is_stub: bool,
}

/// Every global of every such file, from the manifests' per-file features and globals and
/// the `asm_avx2` twin's text (hash-checked by the build that read it).
fn wide_files(root: &Path, target: &str) -> Result<Vec<WideEntry>> {
    let (asm_set, avx2_set) = (AsmSet::avx512(), AsmSet::avx2());
    let (asm_dir, avx2_dir) =
        (set_dir(root, asm_set.name, target), set_dir(root, avx2_set.name, target));
    let asm = Manifest::load(&asm_dir)?;
    let mut entries = Vec::new();
    for f in asm.asm.iter().filter(|f| f.features.iter().any(|x| !avx2_set.allowed.contains(x))) {
        let twin = gen_path(&avx2_dir, &f.path);
        let text =
            fs::read_to_string(&twin).with_context(|| format!("reading {}", twin.display()))?;
        for g in &f.globals {
            let twin_is_stub = scan::is_stub(&text, g, scan::syntax_of(&f.path)?)
                .with_context(|| format!("{g} of {} is missing from its asm_avx2 twin", f.path))?;
            entries.push(WideEntry { file: f.path.clone(), symbol: g.clone(), twin_is_stub });
        }
    }
    Ok(entries)
}

/// Each wide file has an entry point that is real code where the plan took the file from
/// `asm`; an entry point that exists only for the wide code is a stub where it came from
/// `asm_avx2`; one the twin shares (ChaCha20_ctr32, Poly1305) is real code either way.
fn check_wide(
    entries: &[WideEntry],
    plan: &BTreeMap<String, String>,
    sizes: &BTreeMap<String, u64>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let mut largest: BTreeMap<&str, (&str, u64)> = BTreeMap::new();
    for e in entries {
        let Some(set) = plan.get(&e.file) else {
            problems.push(format!("{} is not in the plan", e.file));
            continue;
        };
        let size = sizes.get(&e.symbol).copied();
        let top = largest.entry(&e.file).or_insert((&e.symbol, 0));
        if size.unwrap_or(0) > top.1 {
            *top = (&e.symbol, size.unwrap_or(0));
        }
        // From `asm`, some real entry points (eligibility checks) are tiny: only the file's
        // largest is judged, below.
        let want_real = !e.twin_is_stub;
        let from_asm = data::is_set(set, SetRole::Avx512);
        if size.is_none() || (!from_asm && (size > Some(STUB_MAX_BYTES)) != want_real) {
            let shown = size.map_or("missing".into(), |s| format!("{s} bytes"));
            let want = if want_real { "real code" } else { "a stub" };
            problems.push(format!(
                "{} ({}, from {set}) should be {want}, is {shown}",
                e.symbol, e.file
            ));
        }
    }
    for (file, (symbol, size)) in largest {
        let set = &plan[file];
        println!("{file:<40} {symbol:<32} from {set:<8} {size} bytes (largest entry point)");
        if data::is_set(set, SetRole::Avx512) && size <= STUB_MAX_BYTES {
            problems.push(format!("{file} (from {set}) has no entry point of real code"));
        }
    }
    problems
}

/// Without asm, no entry point that exists only for the wide code may be linked (the shared
/// ones, like ChaCha20_ctr32, have C twins of the same name).
fn check_no_asm(entries: &[WideEntry], sizes: &BTreeMap<String, u64>) -> Vec<String> {
    let linked: Vec<String> = entries
        .iter()
        .filter(|e| e.twin_is_stub && sizes.contains_key(&e.symbol))
        .map(|e| format!("{} ({})", e.symbol, e.file))
        .collect();
    let only_wide = entries.iter().filter(|e| e.twin_is_stub).count();
    println!("no asm in the plan: none of {only_wide} asm-only entry points may be linked");
    linked.into_iter().map(|l| format!("{l} is linked in a build without asm")).collect()
}

/// Each C variant's marker symbol is linked exactly when the plan took the variant.
fn check_variant(taken: &str, sizes: &BTreeMap<String, u64>) -> Vec<String> {
    let mut problems = Vec::new();
    for v in data::C_VARIANTS {
        let want = v.name == taken;
        let linked = sizes.get(v.marker).is_some_and(|s| *s > 0);
        println!(
            "C variant {:<30} {:<32} {}",
            v.name,
            v.marker,
            if linked { "linked" } else { "absent" }
        );
        if linked != want {
            let (should, is) = if want { ("be", "absent") } else { ("not be", "linked") };
            problems.push(format!(
                "{} should {should} in libcrypto.a (C variant {taken}), but is {is}",
                v.marker
            ));
        }
    }
    problems
}

/// Size of every defined global text symbol in the archive. Where nm gives no size (labels
/// that share a stub's body), the distance to the next symbol stands in.
fn symbol_sizes(sh: &Shell, archive: &Path) -> Result<BTreeMap<String, u64>> {
    let out = cmd!(sh, "nm -S -n --defined-only {archive}")
        .read()
        .context("running nm (binutils) on libcrypto.a")?;
    Ok(parse_nm(&out))
}

fn parse_nm(out: &str) -> BTreeMap<String, u64> {
    let mut sizes = BTreeMap::new();
    // nm -n sorts each member by address; entries are (address, size, name).
    for member in out.split("\n\n") {
        let entries: Vec<(u64, Option<u64>, &str)> = member
            .lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                let addr = u64::from_str_radix(f.first()?, 16).ok()?;
                match f.as_slice() {
                    [_, size, "T" | "t", name] => {
                        Some((addr, u64::from_str_radix(size, 16).ok(), *name))
                    }
                    [_, "T" | "t", name] => Some((addr, None, *name)),
                    _ => None,
                }
            })
            .collect();
        for (i, (addr, size, name)) in entries.iter().enumerate() {
            let next = entries[i + 1..].iter().map(|e| e.0).find(|a| a > addr);
            let size = size.or(next.map(|n| n - addr)).unwrap_or(0);
            sizes.insert(name.to_string(), size);
        }
    }
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stub_where_the_plan_wants_real_code_is_reported_and_vice_versa() {
        let fps = [
            data::FastPath { file: "gcm.s", symbol: "capable" },
            data::FastPath { file: "ifma.s", symbol: "eligible" },
        ];
        let plan: BTreeMap<String, String> = [("gcm.s", "asm"), ("ifma.s", "asm_avx2")]
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        let sizes = |a: u64, b: u64| -> BTreeMap<String, u64> {
            [("capable".to_string(), a), ("eligible".to_string(), b)].into_iter().collect()
        };
        assert!(check(&fps, &plan, &sizes(31, 8)).is_empty());
        let p = check(&fps, &plan, &sizes(8, 25));
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(
            p[0].contains("capable (gcm.s, from asm) should be real code, is 8 bytes"),
            "{p:?}"
        );
        assert!(p[1].contains("should be a stub, is 25 bytes"), "{p:?}");
        assert_eq!(check(&fps, &plan, &BTreeMap::new()).len(), 2);
    }

    fn entry(file: &str, symbol: &str, twin_is_stub: bool) -> WideEntry {
        WideEntry { file: file.into(), symbol: symbol.into(), twin_is_stub }
    }

    #[test]
    fn wide_files_need_real_code_from_asm_and_stubs_from_asm_avx2() {
        let entries = [
            entry("gcm.s", "capable", true),
            entry("gcm.s", "encrypt", true),
            entry("chacha.s", "ctr32", false),
        ];
        let plan = |gcm: &str, chacha: &str| -> BTreeMap<String, String> {
            [("gcm.s", gcm), ("chacha.s", chacha)]
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        let sizes = |capable: u64, encrypt: u64, ctr32: u64| -> BTreeMap<String, u64> {
            [("capable", capable), ("encrypt", encrypt), ("ctr32", ctr32)]
                .iter()
                .map(|(a, b)| (a.to_string(), *b))
                .collect()
        };
        assert!(check_wide(&entries, &plan("asm", "asm"), &sizes(31, 9000, 900)).is_empty());
        assert!(check_wide(&entries, &plan("asm_avx2", "asm_avx2"), &sizes(4, 4, 700)).is_empty());
        let p = check_wide(&entries, &plan("asm", "asm"), &sizes(8, 4, 900));
        assert!(p.len() == 1 && p[0].contains("gcm.s (from asm) has no entry point"), "{p:?}");
        let p = check_wide(&entries, &plan("asm_avx2", "asm_avx2"), &sizes(4, 9000, 4));
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(p[0].contains("encrypt (gcm.s, from asm_avx2) should be a stub"), "{p:?}");
        assert!(p[1].contains("ctr32 (chacha.s, from asm_avx2) should be real code"), "{p:?}");
        let p = check_wide(&entries, &plan("asm", "asm"), &BTreeMap::new());
        assert_eq!(p.len(), 5, "three missing entry points, two files without real code: {p:?}");
    }

    #[test]
    fn a_build_without_asm_links_no_asm_only_entry_point() {
        let entries = [entry("gcm.s", "encrypt", true), entry("chacha.s", "ctr32", false)];
        // ChaCha20_ctr32 has a C twin of the same name; the AVX-512 GCM entry point has none.
        let c_only: BTreeMap<String, u64> = [("ctr32".to_string(), 300)].into_iter().collect();
        assert!(check_no_asm(&entries, &c_only).is_empty());
        let mut with_asm = c_only;
        with_asm.insert("encrypt".into(), 9000);
        let p = check_no_asm(&entries, &with_asm);
        assert!(p.len() == 1 && p[0].contains("encrypt (gcm.s) is linked"), "{p:?}");
    }

    #[test]
    fn the_variant_marker_must_match_the_plan() {
        let marker = data::variant_by_name(data::NISTP).unwrap().marker;
        let linked: BTreeMap<String, u64> = [(marker.to_string(), 120)].into_iter().collect();
        assert!(check_variant("ec_nistp_64_gcc_128", &linked).is_empty());
        assert!(check_variant("none", &BTreeMap::new()).is_empty());
        let p = check_variant("ec_nistp_64_gcc_128", &BTreeMap::new());
        assert!(p.len() == 1 && p[0].contains("should be in libcrypto.a"), "{p:?}");
        let p = check_variant("none", &linked);
        assert!(p.len() == 1 && p[0].contains("should not be"), "{p:?}");
    }

    #[test]
    fn sizes_come_from_nm_or_the_next_symbol() {
        let nm = "aes-gcm-avx512.o:\n0000000000000000 0000000000000008 T ossl_vaes_vpclmulqdq_capable\n\
                  0000000000000010 T ossl_aes_gcm_init_avx512\n0000000000000010 T ossl_aes_gcm_encrypt_avx512\n\
                  0000000000000014 0000000000000002 T ossl_gcm_gmult_avx512\n\n\
                  rsaz.o:\n0000000000000000 0000000000000019 T ossl_rsaz_avx512ifma_eligible\n";
        let s = parse_nm(nm);
        assert_eq!(s["ossl_vaes_vpclmulqdq_capable"], 8);
        assert_eq!(s["ossl_aes_gcm_encrypt_avx512"], 4);
        assert_eq!(s["ossl_rsaz_avx512ifma_eligible"], 25);
    }
}
