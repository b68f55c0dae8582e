//! crypto-sys's own copy of the libraries, every symbol under its versioned prefix
//! (`symbols::Prefix`), beside the plain ones: crypto-sys links this copy, so that its
//! OpenSSL lives beside any other in one binary; the plain `lib/` stays what an installed
//! prefix and the `openssl` program take, byte for byte. The headers a dependent's C
//! compiles against map each OpenSSL name they declare to the prefixed one. The libraries
//! are named after the prefix too (`libcrypto_sys_0_1_0_crypto.a`).

use crate::compile::{self, Job};
use crate::symbols::{self, Prefix};
use anyhow::{bail, Context, Result};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Below OUT_DIR: `lib/` and `include/` of the prefixed copy, as the plain ones are laid out.
pub const DIR: &str = "prefixed";
/// The header of `#define NAME PREFIXNAME` lines, in the copy's `include/openssl/`, included by
/// its `configuration.h` (which every public header includes first).
pub const HEADER: &str = "crypto_sys_symbols.h";

/// The prefixed copy: its root, and its libraries' and headers' directories.
pub struct Prefixed {
    pub root: PathBuf,
    pub lib_dir: PathBuf,
    pub include_dir: PathBuf,
}

/// Renames every global symbol that the libraries' objects define, in all of them, archives
/// them under `OUT_DIR/prefixed/lib`, checks each archive (`check`), and writes the headers.
/// `libs`: each archive's name and its objects, in archive order.
pub fn write(
    job: &Job,
    prefix: &Prefix,
    libs: &[(&str, &[PathBuf])],
    include_dir: &Path,
) -> Result<Prefixed> {
    let root = job.out_dir.join(DIR);
    let (lib_dir, obj_dir) = (root.join("lib"), root.join("obj"));
    let read = |o: &PathBuf| fs::read(o).with_context(|| format!("reading {}", o.display()));
    let objects: Vec<Vec<Vec<u8>>> =
        libs.iter().map(|(_, objs)| objs.iter().map(read).collect()).collect::<Result<_>>()?;
    let all = objects.iter().flatten().map(Vec::as_slice);
    let names = symbols::defined(all).context("reading the objects' symbols")?;
    // An earlier build's files (another prefix's libraries) must not stay beside these.
    if root.exists() {
        fs::remove_dir_all(&root)?;
    }
    for ((lib, objs), datas) in libs.iter().zip(&objects) {
        let dir = obj_dir.join(lib);
        fs::create_dir_all(&dir)?;
        let mut renamed = vec![];
        for (obj, data) in objs.iter().zip(datas) {
            let data = symbols::prefixed(data, &names, prefix)
                .with_context(|| format!("prefixing the symbols of {}", obj.display()))?;
            // The cache's name (its key): the archive's members keep the plain one's names.
            let out = dir.join(obj.file_name().context("an object's name")?);
            fs::write(&out, data)?;
            renamed.push(out);
        }
        let archive = lib_dir.join(job.target.archive_file(&prefix.library(lib)));
        compile::archive(&job.base, &archive, &renamed)?;
        // The archive holds them: no second copy of the objects stays in OUT_DIR.
        fs::remove_dir_all(&dir)?;
        check(&archive, prefix)?;
    }
    let prefixed_include = root.join("include");
    write_headers(include_dir, &prefixed_include, &names, prefix)?;
    Ok(Prefixed { root, lib_dir, include_dir: prefixed_include })
}

/// The check that nothing escapes the prefix, in one line naming what does: every global
/// symbol the archive defines carries it, and every one it needs is defined in it or is a
/// system symbol (`data::system_symbol`).
pub fn check(archive: &Path, prefix: &Prefix) -> Result<()> {
    let allowed = |name: &str| crate::data::system_symbol(name, prefix.decoration);
    let escapes = symbols::check_archive(archive, prefix, &allowed)?;
    if !escapes.is_empty() {
        bail!(
            "{} escapes the symbol prefix `{}`: {escapes} (a system symbol the list lacks goes \
             into crypto-build's src/data/system_symbols.rs)",
            archive.display(),
            prefix.prefix
        );
    }
    Ok(())
}

/// A copy of the headers whose `configuration.h` ends by including [`HEADER`]: a `#define`
/// for each renamed name that the headers use and do not define as a macro themselves (the
/// renamed set holds internal names too, which a dependent's C never sees).
fn write_headers(
    from: &Path,
    to: &Path,
    renamed: &BTreeSet<String>,
    prefix: &Prefix,
) -> Result<()> {
    let (from, to) = (from.join("openssl"), to.join("openssl"));
    if to.exists() {
        fs::remove_dir_all(&to)?;
    }
    fs::create_dir_all(&to)?;
    let (mut used, mut macros) = (BTreeSet::new(), BTreeSet::new());
    let mut names: Vec<_> =
        fs::read_dir(&from)?.map(|e| e.map(|e| e.file_name())).collect::<Result<_, _>>()?;
    names.sort();
    for name in &names {
        let text = fs::read_to_string(from.join(name))
            .with_context(|| format!("reading {}", from.join(name).display()))?;
        scan_identifiers(&text, &mut used, &mut macros);
        fs::write(to.join(name), &text)?;
    }
    let mut defines = String::from(
        "/* Written by crypto-sys's build: OpenSSL's names under crypto-sys's symbol prefix. */\n\
         #ifndef CRYPTO_SYS_SYMBOLS_H\n# define CRYPTO_SYS_SYMBOLS_H\n",
    );
    for object_name in renamed {
        let c_name = object_name.strip_prefix(prefix.decoration).unwrap_or(object_name);
        if used.contains(c_name) && !macros.contains(c_name) {
            let new = prefix.apply(object_name);
            let new_c = new.strip_prefix(prefix.decoration).unwrap_or(&new);
            defines.push_str(&format!("# define {c_name} {new_c}\n"));
        }
    }
    defines.push_str("#endif\n");
    fs::write(to.join(HEADER), defines)?;
    let config = to.join("configuration.h");
    let mut text = fs::read_to_string(&config).context("reading configuration.h")?;
    text.push_str(&format!("#include <openssl/{HEADER}>\n"));
    fs::write(&config, text)?;
    Ok(())
}

/// Every identifier in a header's text (`used`), and every name it `#define`s (`macros`).
fn scan_identifiers(text: &str, used: &mut BTreeSet<String>, macros: &mut BTreeSet<String>) {
    for line in text.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix('#') {
            if let Some(def) = rest.trim_start().strip_prefix("define") {
                let name: String = def
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                macros.insert(name);
            }
        }
        let mut word = String::new();
        for c in line.chars().chain([' ']) {
            if c.is_ascii_alphanumeric() || c == '_' {
                word.push(c);
            } else if !word.is_empty() {
                if !word.starts_with(|c: char| c.is_ascii_digit()) {
                    used.insert(std::mem::take(&mut word));
                }
                word.clear();
            }
        }
    }
}
