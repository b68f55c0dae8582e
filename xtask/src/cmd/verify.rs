//! `cargo xtask verify`: after a build, proves from the linked objects that every fast path the
//! plan took from `asm` is real code and every downgraded one is a stub (the hand-listed ones,
//! and every entry point of every asm file holding code the AVX2 set cannot carry, found from
//! the manifests), or, for a build without asm, that none of that code is linked; then that
//! the eligibility functions answer true at run time where the CPU has the features.

use crate::flags::Verify;
use anyhow::{bail, Context, Result};
use crypto_build::data::{self, AsmSet, SetRole};
use crypto_build::facts::{stem, BuildFacts};
use crypto_build::manifest::{gen_path, Manifest};
use crypto_build::sets::{set_dir, Config};
use crypto_gen::generate::{self, scan};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use xshell::{cmd, Shell};

use crypto_build::data::STUB_MAX_BYTES;

impl Verify {
    pub fn run(self, sh: &Shell) -> Result<()> {
        let line = self.openssl.line;
        if let Some(prefix) = &self.prefix {
            let facts = crate::prefix::facts(prefix)?;
            let target = data::target_for(&facts.target)?;
            let archive = prefix.join("lib").join(target.archive_file("crypto"));
            check_archive(sh, line, &facts, facts.legacy_provider, &archive)?;
            if facts.fips_module {
                check_module(sh, line, &facts, prefix)?;
            }
            println!(
                "verify: every fast path of {} is what the plan says; the C driver checks the \
                 eligibility functions when it runs (cargo xtask test)",
                prefix.display()
            );
            return Ok(());
        }
        let triple = crate::cargo::host_triple(sh)?;
        let no_legacy = self.no_legacy.then(|| "--no-default-features".to_string());
        let features: Vec<String> = no_legacy.into_iter().chain(line.cargo_feature_arg()).collect();
        let out_dir = super::build::build_crypto_sys(sh, Some(&features), None, &triple)?;
        let facts = BuildFacts::read(&out_dir)?;
        check_archive(sh, line, &facts, !self.no_legacy, &out_dir.join("lib/libcrypto.a"))?;
        // What crypto-sys links: nothing of it outside its prefix.
        let target = data::target_for(&triple)?;
        let prefix = crate::cargo::crypto_sys_prefix(sh, target)?;
        for lib in ["crypto", "ssl"] {
            let dir = out_dir.join(crypto_build::prefixed::DIR).join("lib");
            crypto_build::prefixed::check(
                &dir.join(target.archive_file(&prefix.library(lib))),
                &prefix,
            )
            .context("verify")?;
        }
        let cargo = crate::cargo::cargo();
        cmd!(sh, "{cargo} test -q -p crypto-sys {features...} --test fast_paths")
            .run()
            .context("verify: the eligibility functions disagree with the CPU and the plan")?;
        println!(
            "verify: every fast path is what the plan says, and live where the CPU allows; \
             every symbol crypto-sys links carries `{}`",
            prefix.prefix
        );
        Ok(())
    }
}

/// The archive's symbols against the build's facts (the sets of `line`): its fast paths, its
/// wide files' entry points, its C variant's marker; and the legacy provider's, linked exactly
/// when `legacy` (what the build was asked for, where verify built it).
fn check_archive(
    sh: &Shell,
    line: &data::OpensslLine,
    facts: &BuildFacts,
    legacy: bool,
    archive: &Path,
) -> Result<()> {
    let root = line.root(&crate::cargo::project_root());
    let target = data::target_for(&facts.target)?;
    // By stem: a fast path is listed by its `.s` name, and a nasm build plans `.asm` files.
    let plan: BTreeMap<String, String> =
        facts.asm_files.iter().map(|f| (stem(&f.path).to_string(), f.set.clone())).collect();
    let sizes = symbol_sizes(sh, facts, archive)?;
    let wide = wide_files(line, &root, target)?;
    let mut problems = if plan.is_empty() {
        check_no_asm(&wide, &sizes)
    } else {
        let mut p = check(target.fast_paths, &plan, &sizes);
        p.extend(check_wide(&wide, &plan, &sizes));
        p
    };
    problems.extend(check_variant(facts.c_variant_name(), &sizes));
    problems.extend(check_legacy(legacy, &sizes));
    if !problems.is_empty() {
        bail!("verify: {}", problems.join("; "));
    }
    Ok(())
}

/// A prefix's FIPS module: it exports OpenSSL's provider entry point alone (ELF: every other
/// symbol local), and each fast path of the asm files it assembles is what the plan says, as
/// in libcrypto: the module takes libcrypto's asm, file by file.
fn check_module(
    sh: &Shell,
    line: &data::OpensslLine,
    facts: &BuildFacts,
    prefix: &Path,
) -> Result<()> {
    let target = data::target_for(&facts.target)?;
    let module = crate::prefix::fips_module(prefix).with_context(|| {
        format!("the build says it linked a FIPS module, but {} has none", prefix.display())
    })?;
    // ELF's dynamic symbols; a DLL's export table (`[   0] NAME` lines).
    let (exports, entry) = if crate::triple::Triple::parse(&facts.target)?.is_windows() {
        let out = cmd!(sh, "objdump -p {module}").read()?;
        let table = out.lines().skip_while(|l| !l.contains("[Ordinal/Name Pointer] Table")).skip(1);
        let names = table.map_while(|l| l.trim().strip_prefix('[')?.split_once(']'));
        (names.map(|(_, n)| n.trim().to_string()).collect(), data::FIPS.entry.to_string())
    } else {
        let out = cmd!(sh, "nm -D --defined-only {module}").read()?;
        let names = out.lines().filter_map(|l| l.split_whitespace().nth(2)).map(String::from);
        (names.collect::<Vec<_>>(), format!("{}{}", target.symbol_prefix, data::FIPS.entry))
    };
    if exports != [entry.clone()] {
        bail!("verify: {} should export {entry} alone, exports {exports:?}", module.display());
    }
    let root = line.root(&crate::cargo::project_root());
    let key =
        crypto_build::manifest::key(&facts.effective_set, target.name, facts.c_variant.as_deref());
    let m = Manifest::load(&root.join(key))?;
    let asm: Vec<&str> = m
        .units
        .iter()
        .filter(|u| u.lib.is_fips() && data::AsmSyntax::of_path(&u.path).is_some())
        .map(|u| stem(&u.path))
        .collect();
    let plan: BTreeMap<String, String> =
        facts.asm_files.iter().map(|f| (stem(&f.path).to_string(), f.set.clone())).collect();
    let sizes = symbol_sizes(sh, facts, &module)?;
    let fast: Vec<data::FastPath> =
        target.fast_paths.iter().filter(|fp| asm.contains(&stem(fp.file))).copied().collect();
    println!("FIPS module {}: {} of the target's fast paths", module.display(), fast.len());
    let problems = if plan.is_empty() {
        check_no_asm(&wide_files(line, &root, target)?, &sizes)
    } else {
        check(&fast, &plan, &sizes)
    };
    if !problems.is_empty() {
        bail!("verify: the FIPS module: {}", problems.join("; "));
    }
    Ok(())
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
        let Some(set) = plan.get(stem(fp.file)) else {
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
/// the `asm_avx2` twin's text (generated where missing, every file equal to the lock).
fn wide_files(
    line: &data::OpensslLine,
    root: &Path,
    target: &'static data::Target,
) -> Result<Vec<WideEntry>> {
    let (asm_set, avx2_set) = (AsmSet::avx512(), AsmSet::avx2());
    // A target without the AVX2 set (32-bit x86) has nothing it leaves out.
    if !target.has_set(avx2_set.name) {
        return Ok(Vec::new());
    }
    let configs: Vec<Config> =
        [asm_set, avx2_set].map(|set| Config { target, set, variant: None }).into();
    let progress = crate::progress::generation;
    let jobs = crypto_build::jobs::count();
    generate::ensure_all(
        root,
        &crypto_build::source::Source::of_line(line)?,
        &configs,
        jobs,
        Some(&progress),
        None,
    )?;
    let target = target.name;
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
        let Some(set) = plan.get(stem(&e.file)) else {
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
        let set = &plan[stem(file)];
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
        // Defined is linked: a COFF object gives its C functions no size.
        let linked = sizes.contains_key(v.marker);
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

/// Size of every defined global text symbol in `facts`' archive, by its C name (the object
/// format's symbol prefix taken off). Where nm gives no size (labels that share a stub's body),
/// the distance to the next symbol stands in. COFF (Windows) gives no symbol a size, and
/// nasm's local labels are symbols there: each global's size is read from objdump's symbol
/// table instead, to the next global of its section or that section's end.
fn symbol_sizes(sh: &Shell, facts: &BuildFacts, archive: &Path) -> Result<BTreeMap<String, u64>> {
    let target = data::target_for(&facts.target)?;
    // A linked image (the FIPS module's DLL) has its symbols at their addresses: nm sorts them,
    // as it does an ELF file's, and the next one bounds each.
    let image = !archive.extension().is_some_and(|e| e == "a" || e == "lib");
    let coff = crate::triple::Triple::parse(&facts.target)?.is_windows() && !image;
    let sizes = if coff {
        let out = cmd!(sh, "objdump -t {archive}").quiet().read();
        parse_coff_symbols(
            &out.with_context(|| format!("running objdump (binutils) on {}", archive.display()))?,
        )
    } else {
        let out = cmd!(sh, "nm -S -n --defined-only {archive}").read();
        parse_nm(&out.with_context(|| format!("running nm (binutils) on {}", archive.display()))?)
    };
    let prefix = target.symbol_prefix;
    let unprefixed = |name: String| name.strip_prefix(prefix).map_or(name.clone(), String::from);
    Ok(sizes.into_iter().map(|(name, size)| (unprefixed(name), size)).collect())
}

/// One entry of objdump's COFF symbol table: `[ 12](sec  1)(fl 0x00)(ty    0)(scl   2) (nx 0)
/// 0x0000000000000020 name`.
struct CoffSymbol<'a> {
    section: i64,
    /// Storage class: 2 external, 3 static (sections, local labels).
    class: u32,
    value: u64,
    name: &'a str,
}

impl<'a> CoffSymbol<'a> {
    fn parse(line: &'a str) -> Option<CoffSymbol<'a>> {
        let field = |key: &str| {
            let rest = &line[line.find(key)? + key.len()..];
            rest[..rest.find(')')?].trim().parse::<i64>().ok()
        };
        let (value, name) = line.rsplit_once(") 0x")?.1.split_once(' ')?;
        Some(CoffSymbol {
            section: field("(sec")?,
            class: u32::try_from(field("(scl")?).ok()?,
            value: u64::from_str_radix(value, 16).ok()?,
            name,
        })
    }
}

/// Each external symbol defined in a section, sized to the next one of its section in the
/// same member, or to the section's end (its `AUX scnlen`).
fn parse_coff_symbols(out: &str) -> BTreeMap<String, u64> {
    let mut sizes = BTreeMap::new();
    for member in out.split("file format ").skip(1) {
        let (mut lengths, mut globals) = (BTreeMap::new(), Vec::new());
        let mut section_symbol = None;
        for line in member.lines() {
            if let Some(aux) = line.strip_prefix("AUX scnlen 0x") {
                let len =
                    aux.split_whitespace().next().and_then(|l| u64::from_str_radix(l, 16).ok());
                if let (Some(sec), Some(len)) = (section_symbol.take(), len) {
                    lengths.entry(sec).or_insert(len);
                }
                continue;
            }
            let Some(sym) = CoffSymbol::parse(line) else { continue };
            section_symbol = (sym.class == 3 && sym.name.starts_with('.')).then_some(sym.section);
            if sym.class == 2 && sym.section > 0 {
                globals.push(sym);
            }
        }
        for g in &globals {
            let same = globals.iter().filter(|o| o.section == g.section && o.value > g.value);
            let end = same.map(|o| o.value).min().or(lengths.get(&g.section).copied());
            sizes.insert(g.name.to_string(), end.unwrap_or(g.value) - g.value);
        }
    }
    sizes
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
        // Keyed by stem, as check_archive keys them.
        let plan: BTreeMap<String, String> = [("gcm", "asm"), ("ifma", "asm_avx2")]
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
            [("gcm", gcm), ("chacha", chacha)]
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

    /// COFF: to the next global of the section (nasm's local labels are no boundary), or to
    /// the section's end; a COMDAT function's own section is its size.
    #[test]
    fn coff_sizes_come_from_the_next_global_or_the_section_end() {
        let table = "\nIn archive libcrypto.lib:\n\nghash-x86.obj:     file format pe-i386\n\n\
            SYMBOL TABLE:\n\
            [  2](sec  1)(fl 0x00)(ty    0)(scl   3) (nx 1) 0x00000000 .text\n\
            AUX scnlen 0x1311 nreloc 83 nlnno 0\n\
            [  4](sec  2)(fl 0x00)(ty    0)(scl   3) (nx 1) 0x00000000 .rdata\n\
            AUX scnlen 0x386 nreloc 1 nlnno 0\n\
            [ 11](sec  0)(fl 0x00)(ty    0)(scl   2) (nx 0) 0x00000000 _OPENSSL_ia32cap_P\n\
            [ 12](sec  1)(fl 0x00)(ty    0)(scl   2) (nx 0) 0x00000000 _gcm_init_clmul\n\
            [ 13](sec  1)(fl 0x00)(ty    0)(scl   3) (nx 0) 0x0000000d L$000pic\n\
            [ 14](sec  2)(fl 0x00)(ty    0)(scl   3) (nx 0) 0x00000000 L$bswap\n\
            [ 15](sec  1)(fl 0x00)(ty    0)(scl   2) (nx 0) 0x00000880 _gcm_gmult_clmul\n\n\
            ec.obj:     file format pe-i386\n\nSYMBOL TABLE:\n\
            [  6](sec  3)(fl 0x00)(ty    0)(scl   3) (nx 1) 0x00000000 .text$mn\n\
            AUX scnlen 0x1c nreloc 2 nlnno 0 checksum 0x0 assoc 0 comdat 1\n\
            [  8](sec  3)(fl 0x00)(ty   20)(scl   2) (nx 0) 0x00000000 _ossl_ec_GFp_nistp384_method\n";
        let s = parse_coff_symbols(table);
        assert_eq!(s["_gcm_init_clmul"], 0x880, "the local label is no end");
        assert_eq!(s["_gcm_gmult_clmul"], 0x1311 - 0x880, "the last runs to its section's end");
        assert_eq!(s["_ossl_ec_GFp_nistp384_method"], 0x1c);
        assert!(!s.contains_key("_OPENSSL_ia32cap_P") && !s.contains_key("L$000pic"), "{s:?}");
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
