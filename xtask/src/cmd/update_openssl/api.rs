//! The public API: the functions libcrypto and libssl export (OpenSSL's `util/lib*.num`,
//! whose lines with status `EXIST` are the exports), added and removed between the releases,
//! and which of the removed ones openssl-sys declares. A removed function is no finding (the
//! command still succeeds), but it is what a program calling it through a vendored build
//! would lose.

use super::names::{one_of, Name};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// One library's exports, old and new.
#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibDiff {
    /// `libcrypto` or `libssl`.
    #[serde(deserialize_with = "lib_name")]
    pub lib: Name,
    pub old: usize,
    pub new: usize,
    pub added: Vec<String>,
    pub removed: Vec<Removed>,
}

#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Removed {
    pub name: String,
    /// What comes before its first `_` (`ENGINE`, `EVP`, `TLSv1`), for grouping.
    pub prefix: String,
    /// Its `.num` line's features (`DEPRECATEDIN_3_0`, `ENGINE`): the build has it only
    /// when none of them is disabled.
    pub features: Vec<String>,
    /// Its `.num` line's platforms (`__FreeBSD__`, `!VMS`; empty: every platform).
    pub platforms: String,
    /// Whether the old release's configuration (`Api::built_in`) builds it: none of its
    /// features disabled, and no platform named but by exclusion (`!VMS`).
    pub built: bool,
    /// openssl-sys's declaration of it, with its own `#[cfg]` (empty: none).
    #[serde(rename = "openssl_sys")]
    pub bound: Option<String>,
}

/// The API section of a report.
#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Api {
    /// The openssl-sys whose declarations were read (the version the consumers lock).
    pub openssl_sys: String,
    /// The old release's configuration whose `%disabled` says which removed functions it
    /// built (`asm/linux-x86_64` where it was compared).
    pub built_in: String,
    pub libs: Vec<LibDiff>,
}

pub const LIBS: [&str; 2] = ["libcrypto", "libssl"];

fn lib_name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    one_of(d, &LIBS)
}

/// The functions a `.num` file says the library exports, each with its platforms and
/// features.
pub fn exports(num: &str) -> BTreeMap<String, (String, Vec<String>)> {
    let mut out = BTreeMap::new();
    for line in num.lines() {
        // name, ordinal, version, status:platforms:kind:features
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [name, _, _, info] = fields[..] else { continue };
        let parts: Vec<&str> = info.splitn(4, ':').collect();
        if parts.len() == 4 && parts[0] == "EXIST" && parts[2] == "FUNCTION" {
            let features = parts[3].split(',').filter(|f| !f.is_empty()).map(String::from);
            out.insert(name.to_string(), (parts[1].to_string(), features.collect()));
        }
    }
    out
}

fn read_exports(tree: &Path, lib: &str) -> Result<BTreeMap<String, (String, Vec<String>)>> {
    let path = tree.join("util").join(format!("{lib}.num"));
    let text = fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    Ok(exports(&text))
}

/// Whether a `.num` feature is one of Configure's `disabled` (`ENGINE` is `engine`,
/// `SSL3_METHOD` `ssl3-method`, `DEPRECATEDIN_3_0` `deprecated-3.0`).
fn disabled(feature: &str, disabled: &BTreeMap<String, String>) -> bool {
    let feature = match feature.strip_prefix("DEPRECATEDIN_") {
        Some(api) => format!("DEPRECATED_{api}"),
        None => feature.to_string(),
    };
    disabled.keys().any(|d| d.to_uppercase().replace(['-', '.'], "_") == feature)
}

/// The exports of both trees compared; `disabled_old` is the pinned configuration's
/// `%disabled`, `bindings` openssl-sys's declarations (see [`bindings`]).
pub fn compare(
    old_tree: &Path,
    new_tree: &Path,
    disabled_old: &BTreeMap<String, String>,
    bindings: &BTreeMap<String, String>,
) -> Result<Vec<LibDiff>> {
    let mut out = Vec::new();
    for lib in LIBS {
        let (old, new) = (read_exports(old_tree, lib)?, read_exports(new_tree, lib)?);
        let added = new.keys().filter(|n| !old.contains_key(*n)).cloned().collect();
        let removed = old
            .iter()
            .filter(|(n, _)| !new.contains_key(*n))
            .map(|(name, (platforms, features))| Removed {
                name: name.clone(),
                prefix: name.split('_').next().unwrap_or(name).to_string(),
                platforms: platforms.clone(),
                features: features.clone(),
                built: !features.iter().any(|f| disabled(f, disabled_old))
                    && platforms.split(',').all(|p| p.is_empty() || p.starts_with('!')),
                bound: bindings.get(name).cloned(),
            })
            .collect();
        out.push(LibDiff { lib, old: old.len(), new: new.len(), added, removed });
    }
    Ok(out)
}

/// The functions openssl-sys declares in its `extern "C"` blocks (every `.rs` under `src/`),
/// each with the `#[cfg]` attributes written on it, joined (empty: none).
pub fn bindings(crate_dir: &Path) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let mut files = Vec::new();
    let mut dirs = vec![crate_dir.join("src")];
    while let Some(dir) = dirs.pop() {
        for e in fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
            let path = e?.path();
            match path.extension() {
                _ if path.is_dir() => dirs.push(path),
                Some(ext) if ext == "rs" => files.push(path),
                _ => {}
            }
        }
    }
    for path in files {
        let text =
            fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        declared(&text, &mut out);
    }
    Ok(out)
}

/// The `pub fn`s inside each `extern "C" { … }` of `text`.
fn declared(text: &str, out: &mut BTreeMap<String, String>) {
    let mut rest = text;
    while let Some(at) = rest.find("extern \"C\"") {
        rest = &rest[at + "extern \"C\"".len()..];
        // `extern "C" fn(…)` is a type, not a block.
        if !rest.trim_start().starts_with('{') {
            continue;
        }
        let open = rest.find('{').unwrap();
        let mut depth = 0;
        let mut end = rest.len();
        for (i, c) in rest[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                end = open + i;
                break;
            }
        }
        let mut cfgs: Vec<&str> = Vec::new();
        for line in rest[open + 1..end].lines().map(str::trim) {
            if line.starts_with("#[cfg") {
                cfgs.push(line);
            } else if let Some(decl) = line.strip_prefix("pub fn ") {
                let name: String =
                    decl.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                out.insert(name, cfgs.join(" "));
                cfgs.clear();
            } else if !line.starts_with("#[") && !line.is_empty() {
                cfgs.clear();
            }
        }
        rest = &rest[end..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_existing_functions_are_exports() {
        let num = "ENGINE_by_id                            2934\t3_0_0\tEXIST::FUNCTION:DEPRECATEDIN_3_0,ENGINE\n\
                   ERR_load_FOO                            12\t3_0_0\tNOEXIST::FUNCTION:\n\
                   BIO_new                                 7\t3_0_0\tEXIST::FUNCTION:\n";
        let e = exports(num);
        assert_eq!(e.keys().collect::<Vec<_>>(), ["BIO_new", "ENGINE_by_id"]);
        let features = ["DEPRECATEDIN_3_0".to_string(), "ENGINE".to_string()];
        assert_eq!(e["ENGINE_by_id"], (String::new(), features.to_vec()));
        let mut off = BTreeMap::new();
        off.insert("ssl3-method".to_string(), "default".to_string());
        off.insert("deprecated-1.0.0".to_string(), "option".to_string());
        assert!(disabled("SSL3_METHOD", &off) && disabled("DEPRECATEDIN_1_0_0", &off));
        assert!(!disabled("ENGINE", &off) && !disabled("DEPRECATEDIN_3_0", &off));
    }

    #[test]
    fn reads_declarations_in_extern_blocks_with_their_cfg() {
        let text = "pub struct S { f: unsafe extern \"C\" fn(c_int) }\n\
                    extern \"C\" {\n    pub fn A(x: c_int) -> c_int;\n    \
                    #[cfg(all(libressl, not(libressl430)))]\n    pub fn B();\n    \
                    pub fn C();\n}\npub fn outside() {}\n";
        let mut out = BTreeMap::new();
        declared(text, &mut out);
        assert_eq!(out.len(), 3, "{out:?}");
        assert_eq!(out["A"], "");
        assert_eq!(out["B"], "#[cfg(all(libressl, not(libressl430)))]");
        assert_eq!(out["C"], "");
    }
}
