//! `generate.lock`: the committed SHA-256 of every generated file and manifest, which proves on
//! any machine that generation is reproducible.

use crate::manifest::{self, Manifest};
use crate::sha256;
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

pub const FILE_NAME: &str = "generate.lock";
const HEADER: &str =
    "# SHA-256 of every file `cargo xtask generate` writes; `--check` verifies them.\n\
                      # <set>/<target>[+<C variant>]\t<sha256>\t<path inside the set's target directory>\n";

/// Keyed by (`set/target`, path); the value is the hex SHA-256.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lock {
    pub entries: BTreeMap<(String, String), String>,
}

impl Lock {
    pub fn load(root: &Path) -> Result<Lock> {
        let path = root.join(FILE_NAME);
        if !path.exists() {
            return Ok(Lock::default());
        }
        let text =
            fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        Lock::parse(&text, &path)
    }

    /// The lock's text, read from `origin` (named in errors).
    pub fn parse(text: &str, origin: &Path) -> Result<Lock> {
        let mut lock = Lock::default();
        for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.starts_with('#')) {
            let f: Vec<&str> = line.split('\t').collect();
            if f.len() != 3 {
                bail!("{}:{}: malformed lock line {line:?}", origin.display(), n + 1);
            }
            lock.entries.insert((f[0].into(), f[2].into()), f[1].into());
        }
        Ok(lock)
    }

    pub fn save(&self, root: &Path) -> Result<()> {
        let mut text = HEADER.to_string();
        for ((key, path), sha) in &self.entries {
            text.push_str(&format!("{key}\t{sha}\t{path}\n"));
        }
        crate::files::write_atomic(&root.join(FILE_NAME), text.as_bytes())
    }

    /// The lock lines one generated set directory should have.
    pub fn of_manifest(m: &Manifest) -> Lock {
        let key = m.key();
        let mut entries = BTreeMap::new();
        entries
            .insert((key.clone(), manifest::FILE_NAME.into()), sha256::hex(m.to_text().as_bytes()));
        for f in &m.files {
            entries.insert(
                (key.clone(), format!("{}/{}", manifest::GEN_DIR, f.path)),
                f.sha256.clone(),
            );
        }
        Lock { entries }
    }

    /// Replaces every entry of the set/target that `part` covers.
    pub fn update(&mut self, part: &Lock) {
        let keys: Vec<&String> = part.entries.keys().map(|(k, _)| k).collect();
        self.entries.retain(|(k, _), _| !keys.contains(&k));
        self.entries.extend(part.entries.clone());
    }

    /// Entries for one `set/target`.
    pub fn of_key(&self, key: &str) -> Lock {
        let entries = self.entries.iter().filter(|((k, _), _)| k == key);
        Lock { entries: entries.map(|(k, v)| (k.clone(), v.clone())).collect() }
    }

    /// Human-readable differences, `expected` being the committed lock.
    pub fn diff(expected: &Lock, actual: &Lock) -> Vec<String> {
        let mut out = Vec::new();
        for (k, sha) in &expected.entries {
            match actual.entries.get(k) {
                None => out.push(format!("{}/{}: missing", k.0, k.1)),
                Some(a) if a != sha => {
                    out.push(format!("{}/{}: sha256 {a}, lock has {sha}", k.0, k.1))
                }
                _ => {}
            }
        }
        for k in actual.entries.keys().filter(|k| !expected.entries.contains_key(k)) {
            out.push(format!("{}/{}: not in the lock", k.0, k.1));
        }
        out
    }
}

/// Hashes what is on disk for one set/target directory, for comparison with the lock.
pub fn of_disk(set_dir: &Path) -> Result<Lock> {
    let m = Manifest::load(set_dir)?;
    let mut lock = Lock::of_manifest(&m);
    let manifest_sha = sha256::hex(&fs::read(set_dir.join(manifest::FILE_NAME))?);
    let key = m.key();
    lock.entries.insert((key.clone(), manifest::FILE_NAME.into()), manifest_sha);
    for f in &m.files {
        let data = fs::read(manifest::gen_path(set_dir, &f.path))
            .with_context(|| format!("reading generated file {}", f.path))?;
        lock.entries
            .insert((key.clone(), format!("{}/{}", manifest::GEN_DIR, f.path)), sha256::hex(&data));
    }
    Ok(lock)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lock(entries: &[(&str, &str, &str)]) -> Lock {
        Lock {
            entries: entries
                .iter()
                .map(|(k, p, s)| ((k.to_string(), p.to_string()), s.to_string()))
                .collect(),
        }
    }

    #[test]
    fn diff_names_each_difference() {
        let a = lock(&[("asm/t", "gen/a.s", "11"), ("asm/t", "gen/b.s", "22")]);
        let b = lock(&[
            ("asm/t", "gen/a.s", "11"),
            ("asm/t", "gen/b.s", "23"),
            ("asm/t", "gen/c.s", "3"),
        ]);
        assert!(Lock::diff(&a, &a).is_empty());
        let d = Lock::diff(&a, &b);
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(d[0].contains("gen/b.s: sha256 23, lock has 22"));
        assert!(d[1].contains("gen/c.s: not in the lock"));
    }

    #[test]
    fn update_replaces_only_the_covered_set() {
        let mut all = lock(&[("asm/t", "gen/a.s", "1"), ("no_asm/t", "gen/x.c", "2")]);
        all.update(&lock(&[("asm/t", "gen/b.s", "3")]));
        assert_eq!(all, lock(&[("asm/t", "gen/b.s", "3"), ("no_asm/t", "gen/x.c", "2")]));
    }

    #[test]
    fn save_and_load_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let l = lock(&[("asm/t", "gen/a.s", "1"), ("no_asm/t", "manifest.tsv", "2")]);
        l.save(dir.path()).unwrap();
        assert_eq!(Lock::load(dir.path()).unwrap(), l);
    }
}
