//! A configuration of the generated sets (set × target × C variant) and its directory under
//! a sets root: what generation writes and the build reads.

use crate::data::{self, AsmSet, CVariant, Target};
use crate::manifest;
use anyhow::Context;
use std::path::{Path, PathBuf};

/// One generated directory: a set for a target, in OpenSSL's default C configuration or in a
/// C variant (whose directory holds only C outputs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    pub target: &'static Target,
    pub set: &'static AsmSet,
    pub variant: Option<&'static CVariant>,
}

impl Config {
    pub fn key(&self) -> String {
        manifest::key(self.set.name, self.target.name, self.variant.map(|v| v.name))
    }

    pub fn dir(&self, root: &Path) -> PathBuf {
        root.join(self.key())
    }

    /// The configuration a [`Config::key`] names, each part a row of the data.
    pub fn parse(key: &str) -> anyhow::Result<Config> {
        let (set, rest) =
            key.split_once('/').with_context(|| format!("`{key}` is no set/target"))?;
        let (target, variant) = match rest.split_once('+') {
            Some((t, v)) => (t, Some(data::variant_by_name(v)?)),
            None => (rest, None),
        };
        Ok(Config { target: data::target_by_name(target)?, set: data::set_by_name(set)?, variant })
    }

    /// Each of `sets` that a target has, plain and with each of the target's C variants.
    pub fn expand(targets: &[&'static Target], sets: &[&'static AsmSet]) -> Vec<Config> {
        let mut out = Vec::new();
        for &target in targets {
            let variants = std::iter::once(None).chain(target.c_variants.iter().map(Some));
            let variants: Vec<Option<&'static CVariant>> = variants.collect();
            for &set in sets.iter().filter(|s| target.has_set(s.name)) {
                out.extend(variants.iter().map(|&variant| Config { target, set, variant }));
            }
        }
        out
    }
}

/// The directory of one set/target (plain C configuration) under `root`.
pub fn set_dir(root: &Path, set: &str, target: &str) -> PathBuf {
    root.join(manifest::key(set, target, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_configuration_parses_from_its_key() {
        let targets: Vec<&'static Target> = data::TARGETS.iter().collect();
        let sets: Vec<&'static AsmSet> = data::SETS.iter().collect();
        for config in Config::expand(&targets, &sets) {
            assert_eq!(Config::parse(&config.key()).unwrap(), config);
        }
        assert!(Config::parse("asm").is_err());
        assert!(Config::parse("asm/linux-x86_64+nonesuch").is_err());
    }
}
