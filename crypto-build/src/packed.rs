//! The sets as a published crate carries them. crates.io caps a `.crate` at 10 MiB and most
//! generated files repeat across sets, C variants and targets (headers, C sources, asm that
//! no assembler version changes), so `cargo xtask package` stores each distinct file once and
//! lists every omitted copy in `sets/links.tsv` beside the one it equals. The build restores
//! its target's configurations into OUT_DIR before reading them; the lock and the manifests
//! then check every byte exactly as for the workspace's sets.

use crate::generate::copy_tree;
use crate::sha256;
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Where a package holds `line`'s sets: crypto-build's own `sets/` for the default line,
/// another line's sets crate's (crypto-build's feature of the line's name brings it).
pub fn package_sets(line: &crate::data::OpensslLine) -> Result<PathBuf> {
    let dir = match line.name() {
        _ if line.default => crate::crate_dir(),
        #[cfg(feature = "openssl-3-5")]
        "3.5" => crypto_sys_sets_3_5::crate_dir(),
        _ => bail!(
            "OpenSSL {} needs crypto-build's `{}` feature, which brings its sets crate {}",
            line.version,
            line.feature().unwrap_or_default(),
            line.sets_crate()
        ),
    };
    Ok(dir.join("sets"))
}

/// `<omitted copy>\t<stored file>` per line, both relative to the sets directory.
pub const LINKS_FILE: &str = "links.tsv";
/// Written last into a restored directory: what it was restored from.
const STAMP_FILE: &str = ".restored-from";

/// Every file under `dir`, as `/`-separated paths relative to `root`.
fn files(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<()> {
    for entry in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            files(root, &path, out)?;
        } else {
            let rel = path.strip_prefix(root)?.to_string_lossy().replace('\\', "/");
            out.push(rel);
        }
    }
    Ok(())
}

/// Removes every file under `root` whose bytes equal an earlier one's (in path order) and
/// records it in `links.tsv`; files directly in `root` (the lock) are kept. Returns the
/// number of files and bytes removed.
pub fn pack(root: &Path) -> Result<(usize, u64)> {
    let mut all = vec![];
    files(root, root, &mut all)?;
    all.sort();
    let mut first: BTreeMap<String, String> = BTreeMap::new();
    let (mut links, mut bytes) = (String::new(), 0);
    let mut removed = 0;
    for rel in all.iter().filter(|r| r.contains('/')) {
        let path = root.join(rel);
        let data = fs::read(&path)?;
        let hash = sha256::hex(&data);
        match first.get(&hash) {
            Some(kept) => {
                fs::remove_file(&path)?;
                links.push_str(&format!("{rel}\t{kept}\n"));
                removed += 1;
                bytes += data.len() as u64;
            }
            None => {
                first.insert(hash, rel.clone());
            }
        }
    }
    fs::write(root.join(LINKS_FILE), links)?;
    Ok((removed, bytes))
}

/// Whether `rel` (`<set>/<config>/…`) belongs to one of `target`'s configurations.
fn of_target(rel: &str, target: &str) -> bool {
    let config = rel.split('/').nth(1).unwrap_or("");
    config == target || config.strip_prefix(target).is_some_and(|rest| rest.starts_with('+'))
}

/// The sets directory the build reads: `sets_root` itself, or, when it is packed, a copy of
/// `target`'s configurations restored under `out_dir` (once; later builds reuse it).
pub fn restore(sets_root: &Path, target: &str, out_dir: &Path) -> Result<PathBuf> {
    let links_path = sets_root.join(LINKS_FILE);
    if !links_path.exists() {
        return Ok(sets_root.to_path_buf());
    }
    let links = fs::read_to_string(&links_path)?;
    let dest = out_dir.join("crypto-sys-sets");
    let stamp = format!("{}\n{target}\n", sha256::hex(links.as_bytes()));
    if fs::read_to_string(dest.join(STAMP_FILE)).is_ok_and(|s| s == stamp) {
        return Ok(dest);
    }
    let _ = fs::remove_dir_all(&dest);
    for set in fs::read_dir(sets_root)? {
        let set = set?.path();
        if !set.is_dir() {
            continue;
        }
        for config in fs::read_dir(&set)? {
            let config = config?.path();
            let rel = config.strip_prefix(sets_root)?.to_string_lossy().replace('\\', "/");
            if of_target(&rel, target) {
                copy_tree(&config, &dest.join(&rel))?;
            }
        }
    }
    for (copy, stored) in parse_links(&links, &links_path)? {
        if of_target(copy, target) {
            let to = dest.join(copy);
            fs::create_dir_all(to.parent().context("a linked file's directory")?)?;
            fs::copy(sets_root.join(stored), &to)
                .with_context(|| format!("restoring {copy} from {stored}"))?;
        }
    }
    fs::write(dest.join(STAMP_FILE), stamp)?;
    Ok(dest)
}

/// `links.tsv`'s (omitted copy, stored file) pairs, read from `origin` (named in errors). Both
/// must be `/`-separated paths inside the sets directory, so that restoring one writes and
/// reads only there.
pub fn parse_links<'a>(text: &'a str, origin: &Path) -> Result<Vec<(&'a str, &'a str)>> {
    let inside = |p: &str| {
        !p.contains('\\')
            && !p.contains(char::is_control)
            && p.split('/').all(|c| !c.is_empty() && c != "." && c != "..")
            && !crate::openssldir::is_absolute(p)
    };
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = || format!("{}:{}", origin.display(), n + 1);
        let Some((copy, stored)) = line.split_once('\t') else {
            bail!("{}: malformed line {line:?}", at());
        };
        if let Some(p) = [copy, stored].into_iter().find(|p| !inside(p)) {
            bail!("{}: {p:?} is not a path inside the sets directory", at());
        }
        out.push((copy, stored));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        for (rel, text) in files {
            let p = root.path().join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
        root
    }

    #[test]
    fn pack_stores_each_distinct_file_once_and_restore_rebuilds_one_target() {
        let original = [
            ("generate.lock", "lock"),
            ("asm/lin/gen/a.s", "fast a"),
            ("asm/lin/gen/h.h", "header"),
            ("asm/lin+v/gen/h.h", "header"),
            ("asm_avx2/lin/gen/a.s", "slow a"),
            ("asm_avx2/lin/gen/h.h", "header"),
            ("asm/win/gen/a.asm", "fast a"),
            ("asm/win/gen/h.h", "header"),
            ("asm/linux/gen/h.h", "a target whose name starts like another's"),
        ];
        let root = tree(&original);
        let root = root.path();
        let (removed, bytes) = pack(root).unwrap();
        assert_eq!((removed, bytes), (4, 3 * 6 + 6));
        assert!(!root.join("asm/win/gen/a.asm").exists() && root.join("asm/lin/gen/a.s").exists());
        let links = fs::read_to_string(root.join(LINKS_FILE)).unwrap();
        assert!(links.contains("asm/win/gen/a.asm\tasm/lin/gen/a.s\n"), "{links}");

        let out = tree(&[]);
        let out = out.path();
        let restored = restore(root, "win", out).unwrap();
        assert_eq!(fs::read_to_string(restored.join("asm/win/gen/a.asm")).unwrap(), "fast a");
        assert_eq!(fs::read_to_string(restored.join("asm/win/gen/h.h")).unwrap(), "header");
        assert!(!restored.join("asm/lin").exists(), "only the target's configurations");

        let restored = restore(root, "lin", out).unwrap();
        for (rel, text) in original.iter().filter(|(r, _)| of_target(r, "lin")) {
            assert_eq!(&fs::read_to_string(restored.join(rel)).unwrap(), text, "{rel}");
        }
        assert!(!restored.join("asm/win").exists() && !restored.join("asm/linux").exists());
        // A second build reuses the restored copy.
        fs::write(restored.join("asm/lin/gen/marker"), "").unwrap();
        assert_eq!(restore(root, "lin", out).unwrap(), restored);
        assert!(restored.join("asm/lin/gen/marker").exists());
        // The workspace's sets (no links.tsv) are read in place.
        let plain = tree(&[("asm/lin/gen/a.s", "x")]);
        assert_eq!(restore(plain.path(), "lin", out).unwrap(), plain.path());
    }
}
