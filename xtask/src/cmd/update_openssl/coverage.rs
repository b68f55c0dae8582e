//! Findings: the new release's failed configurations and checks, what Configure warned of,
//! and each table of ours that names OpenSSL's files or symbols (eligibility functions, the
//! probes for each class, the downgrade twins, the C variants' and the legacy provider's
//! markers) checked against what the release generated.

use super::compare::{Finding, Side};
use anyhow::Error;
use crypto_build::data::{self, Arch, AsmSyntax, LEGACY};
use crypto_build::detect::probe;
use crypto_build::manifest::{Lib, Manifest};
use crypto_build::sets::Config;
use crypto_gen::generate::{self, scan, ConfigData};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

fn finding(check: &str, config: &str, message: String) -> Finding {
    Finding { check: check.into(), config: config.into(), file: None, line: None, message }
}

/// Each failed configuration or check, named; an instruction the scan refused with its file
/// and line.
pub fn of_failures(failed: &[(String, Error)]) -> Vec<Finding> {
    failed
        .iter()
        .map(|(key, e)| {
            let check = generate::check_of(e).map_or("generation", |c| c.name());
            let mut f = finding(check, key, format!("{e:#}"));
            if let Some(r) = e.downcast_ref::<scan::Refused>() {
                (f.file, f.line) = (Some(r.path.clone()), Some(r.line));
            }
            f
        })
        .collect()
}

/// Configure's failures, and its warnings (an option it now ignores), each once with the
/// configurations that met it.
pub fn of_configure(answers: &[(Vec<Config>, anyhow::Result<ConfigData>)]) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut warnings: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (group, answer) in answers {
        let keys: Vec<String> = group.iter().map(|c| c.key()).collect();
        match answer {
            Ok(data) => {
                for w in &data.warnings {
                    warnings.entry(w.as_str()).or_default().extend(keys.iter().cloned());
                }
            }
            Err(e) => out.push(finding("configure", &keys.join(", "), format!("{e:#}"))),
        }
    }
    let total: usize = answers.iter().map(|(g, _)| g.len()).sum();
    for (warning, keys) in warnings {
        let at = if keys.len() == total { "every configuration".into() } else { keys.join(", ") };
        let message = format!(
            "Configure warns `{warning}`: data::CONFIGURE_COMMON or a set's \
                               or C variant's options name what it no longer does"
        );
        out.push(finding("configure options", &at, message));
    }
    out
}

/// The tables against the new release's manifests (`new`) and tree (`tree`).
pub fn of_tables(configs: &[Config], new: &Side, tree: &Path) -> Vec<Finding> {
    let mut out = Vec::new();
    for config in configs {
        let key = config.key();
        let Some(m) = new.manifests.get(&key) else { continue };
        if let Some(v) = config.variant {
            let base = crypto_build::manifest::key(config.set.name, config.target.name, None);
            // Without its set's configuration, the variant's own units are unknown.
            let Some(b) = new.manifests.get(&base) else { continue };
            let own = |u: &&crypto_build::manifest::Unit| !b.units.iter().any(|x| x.path == u.path);
            let units: Vec<&str> = m.units.iter().filter(own).map(|u| u.path.as_str()).collect();
            if !defined_in(tree, &units, v.marker) {
                let message = format!(
                    "data::C_VARIANTS' marker {} (which `cargo xtask verify` looks for) is in \
                     none of the C units the variant adds",
                    v.marker
                );
                out.push(finding("c-variant marker", &key, message));
            }
            continue;
        }
        if config.set.allowed.is_empty() {
            continue;
        }
        out.extend(probes(&key, config, m));
        let legacy: Vec<&str> =
            m.units.iter().filter(|u| u.lib == Lib::Legacy).map(|u| u.path.as_str()).collect();
        if !defined_in(tree, &legacy, LEGACY.marker) {
            let message = format!(
                "data::LEGACY's marker {} (which `cargo xtask verify` looks for) is in none of \
                 the legacy provider's units",
                LEGACY.marker
            );
            out.push(finding("legacy marker", &key, message));
        }
        if config.target.sets.first() == Some(&config.set.name) {
            out.extend(eligibilities(&key, config, m));
            out.extend(downgrade_twins(config, m, new));
        }
    }
    out
}

/// Whether one of `units` (tree-relative sources) mentions `symbol`.
fn defined_in(tree: &Path, units: &[&str], symbol: &str) -> bool {
    units.iter().any(|u| fs::read_to_string(tree.join(u)).is_ok_and(|t| t.contains(symbol)))
}

/// Every class the set's files need has a probe for the assembler that reads them.
fn probes(key: &str, config: &Config, m: &Manifest) -> Vec<Finding> {
    let mut out = Vec::new();
    for f in &m.asm {
        let table = match AsmSyntax::of_path(&f.path) {
            Some(AsmSyntax::Nasm) => probe::nasm_probes(config.target.arch),
            _ => probe::gas_probes(config.target.arch),
        };
        for class in f.features.iter().filter(|c| !table.iter().any(|(p, _)| p == *c)) {
            let message = format!("needs {class}, for which detect/probe.rs has no probe");
            let mut x = finding("probes", key, message);
            x.file = Some(f.path.clone());
            out.push(x);
        }
    }
    out
}

/// data::ELIGIBILITIES: each x86_64 eligibility function in its file, in every rendering,
/// where the release has the file (a release without it, as 3.5 without aes-cfb-avx512,
/// links no such function, and the build, crypto-sys and the driver leave it out).
fn eligibilities(key: &str, config: &Config, m: &Manifest) -> Vec<Finding> {
    if config.target.arch != Arch::X86_64 {
        return vec![];
    }
    let mut out = Vec::new();
    for e in data::ELIGIBILITIES {
        for syntax in config.target.syntaxes {
            let file = syntax.rename(e.file);
            let symbol = format!("{}{}", config.target.symbol_prefix, e.symbol);
            let Some(f) = m.asm_file(&file) else { continue };
            if !f.globals.contains(&symbol) {
                let message = format!(
                    "data::ELIGIBILITIES names {symbol} in {file}, which this release does not \
                     export there (the driver and crypto-sys's tests call it)"
                );
                let mut x = finding("eligibility", key, message);
                x.file = Some(file);
                out.push(x);
            }
        }
    }
    out
}

/// Per-file downgrade: every file of the fastest set has a twin in each slower asm set.
fn downgrade_twins(config: &Config, fastest: &Manifest, new: &Side) -> Vec<Finding> {
    let mut out = Vec::new();
    for slower in config.target.sets().skip(1).filter(|s| !s.allowed.is_empty()) {
        let key = crypto_build::manifest::key(slower.name, config.target.name, None);
        let Some(m) = new.manifests.get(&key) else { continue };
        for f in fastest.asm.iter().filter(|f| m.asm_file(&f.path).is_none()) {
            let message = format!(
                "{} has no twin in {}: a file the assembler cannot take from {} has nothing to \
                 fall back to",
                f.path, slower.name, config.set.name
            );
            let mut x = finding("downgrade", &key, message);
            x.file = Some(f.path.clone());
            out.push(x);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crypto_build::manifest::AsmFile;

    /// An eligibility function is looked for where the release has its file: a release
    /// without the file (3.5, aes-cfb-avx512) is no finding; the file without the function is.
    #[test]
    fn eligibility_functions_are_looked_for_where_the_release_has_their_file() {
        let target = data::TARGETS.iter().find(|t| t.name == "linux-x86_64").unwrap();
        let config = Config { target, set: &data::SETS[0], variant: None };
        let file = |path: &str, globals: &[&str]| AsmFile {
            path: path.into(),
            features: vec![],
            globals: globals.iter().map(|g| g.to_string()).collect(),
        };
        let all: Vec<AsmFile> =
            data::ELIGIBILITIES.iter().map(|e| file(e.file, &[e.symbol])).collect();
        let with = |asm: Vec<AsmFile>| Manifest { asm, ..Manifest::default() };
        assert!(eligibilities("k", &config, &with(all.clone())).is_empty());
        let cfb = "crypto/aes/aes-cfb-avx512.s";
        let without: Vec<AsmFile> = all.iter().filter(|f| f.path != cfb).cloned().collect();
        assert!(eligibilities("k", &config, &with(without.clone())).is_empty());
        let emptied = without.into_iter().chain([file(cfb, &[])]).collect();
        let found = eligibilities("k", &config, &with(emptied));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].message.contains("ossl_aes_cfb128_vaes_eligible"), "{found:?}");
    }
}
