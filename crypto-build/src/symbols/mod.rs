//! crypto-sys's symbols under its versioned prefix, so that its OpenSSL lives beside any other
//! in one binary: every global symbol the objects define (C, asm, common, weak) is renamed in
//! the objects themselves, definitions and references alike, after the compile and before the
//! archive. No compiler or assembler has a flag for it, and no tool a user has renames in every
//! object format we build, so the three formats' symbol tables are read and written here
//! (`elf.rs`, `coff.rs`, `macho.rs`); `ar.rs` reads an archive back for the check.

mod ar;
mod coff;
mod elf;
mod macho;

use anyhow::{bail, Context, Result};
use std::collections::BTreeSet;
use std::path::Path;

/// One entry of an object's symbol table, as far as prefixing cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A global (or weak, or common) symbol this object defines: another object may bind to it.
    Defined,
    /// A global symbol this object needs from elsewhere.
    Undefined,
    /// Local to the object: invisible to the linker's resolution.
    Local,
}

/// What each object format gives the renamer: its symbols, and the same bytes with some
/// symbols renamed (`rename` answers the new name of a symbol, or `None` to keep it).
trait Format {
    fn symbols(data: &[u8]) -> Result<Vec<Symbol>>;
    fn rename(data: &[u8], rename: &dyn Fn(&str) -> Option<String>) -> Result<Vec<u8>>;
}

enum Object {
    Elf,
    Coff,
    MachO,
}

fn format_of(data: &[u8]) -> Result<Object> {
    match data {
        [0x7f, b'E', b'L', b'F', ..] => Ok(Object::Elf),
        [0xcf, 0xfa, 0xed, 0xfe, ..] => Ok(Object::MachO),
        _ if coff::is_coff(data) => Ok(Object::Coff),
        _ => bail!("not an ELF, COFF or 64-bit Mach-O object"),
    }
}

/// The symbols of one object file's bytes.
pub fn symbols(data: &[u8]) -> Result<Vec<Symbol>> {
    match format_of(data)? {
        Object::Elf => elf::Elf::symbols(data),
        Object::Coff => coff::Coff::symbols(data),
        Object::MachO => macho::MachO::symbols(data),
    }
}

fn rename(data: &[u8], f: &dyn Fn(&str) -> Option<String>) -> Result<Vec<u8>> {
    match format_of(data)? {
        Object::Elf => elf::Elf::rename(data, f),
        Object::Coff => coff::Coff::rename(data, f),
        Object::MachO => macho::MachO::rename(data, f),
    }
}

/// A prefix and where it goes in a name: after the target's decoration (`_` of C names on
/// Mach-O and 32-bit Windows, `data::Target::symbol_prefix`), which the linker and rustc add
/// to every C name and so is no part of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prefix {
    pub prefix: String,
    pub decoration: &'static str,
}

impl Prefix {
    /// The name an object gives `c_name` (a C name, as Rust's `link_name` spells it) under
    /// this prefix.
    pub fn apply(&self, name: &str) -> String {
        match name.strip_prefix(self.decoration).filter(|_| !self.decoration.is_empty()) {
            Some(rest) => format!("{}{}{rest}", self.decoration, self.prefix),
            None => format!("{}{name}", self.prefix),
        }
    }

    /// The library name of crypto-sys's copy of `lib` (`crypto_sys_0_1_0_crypto`): a plain
    /// `libcrypto.a` in the directory crypto-sys gives the linker would answer another crate's
    /// `-lcrypto` (openssl-sys on the system's libssl) with the prefixed copy.
    pub fn library(&self, lib: &str) -> String {
        format!("{}{lib}", self.prefix)
    }

    /// Whether an object's name carries the prefix (after the decoration, if any).
    pub fn carried_by(&self, name: &str) -> bool {
        let bare = name.strip_prefix(self.decoration).unwrap_or(name);
        bare.starts_with(&self.prefix) || name.starts_with(&self.prefix)
    }
}

/// crypto-sys's `links` key for a version: its name and version, `_` for every other
/// character (`crypto_sys_0_1_0`), as ring and aws-lc-sys name theirs.
pub fn links_key(package: &str, version: &str) -> String {
    format!("{package}_{version}")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Every global symbol `objects` define, by name: what the prefix renames, wherever it is
/// defined or referenced.
pub fn defined<'a>(objects: impl IntoIterator<Item = &'a [u8]>) -> Result<BTreeSet<String>> {
    let mut names = BTreeSet::new();
    for data in objects {
        let syms = symbols(data)?;
        names.extend(syms.into_iter().filter(|s| s.kind == Kind::Defined).map(|s| s.name));
    }
    Ok(names)
}

/// `data` with each symbol of `names` (defined or referenced) under the prefix.
pub fn prefixed(data: &[u8], names: &BTreeSet<String>, prefix: &Prefix) -> Result<Vec<u8>> {
    rename(data, &|name| names.contains(name).then(|| prefix.apply(name)))
}

/// What an archive holds that the prefix must not let through: defined global symbols
/// without it, and undefined ones that no object defines and no OS library is allowed to
/// give (`allowed`), each with its member.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Escapes {
    pub unprefixed: Vec<(String, String)>,
    pub unknown_undefined: Vec<(String, String)>,
}

impl Escapes {
    pub fn is_empty(&self) -> bool {
        self.unprefixed.is_empty() && self.unknown_undefined.is_empty()
    }
}

impl std::fmt::Display for Escapes {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let list = |v: &[(String, String)]| {
            let shown: Vec<String> = v.iter().take(8).map(|(m, s)| format!("{s} ({m})")).collect();
            let more = v.len().saturating_sub(8);
            format!(
                "{}{}",
                shown.join(", "),
                if more > 0 { format!(" and {more} more") } else { String::new() }
            )
        };
        let mut parts = vec![];
        if !self.unprefixed.is_empty() {
            parts.push(format!(
                "{} defined without the prefix: {}",
                self.unprefixed.len(),
                list(&self.unprefixed)
            ));
        }
        if !self.unknown_undefined.is_empty() {
            parts.push(format!(
                "{} undefined and on no allowed list of system symbols: {}",
                self.unknown_undefined.len(),
                list(&self.unknown_undefined)
            ));
        }
        write!(f, "{}", parts.join("; "))
    }
}

/// Checks an archive's members (`ar` or MSVC `.lib`): every defined global symbol carries
/// `prefix`, and every undefined one is defined by a member too or allowed (`allowed`, given
/// the name as the object spells it: decoration, import thunk and all).
pub fn check_archive(
    path: &Path,
    prefix: &Prefix,
    allowed: &dyn Fn(&str) -> bool,
) -> Result<Escapes> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let members = ar::members(&bytes).with_context(|| format!("reading {}", path.display()))?;
    let mut escapes = Escapes::default();
    let mut defined = BTreeSet::new();
    let mut undefined = vec![];
    for (member, data) in members {
        let syms = symbols(data).with_context(|| format!("{} member {member}", path.display()))?;
        for s in syms {
            match s.kind {
                Kind::Defined if !prefix.carried_by(&s.name) => {
                    escapes.unprefixed.push((member.clone(), s.name.clone()));
                    defined.insert(s.name);
                }
                Kind::Defined => drop(defined.insert(s.name)),
                Kind::Undefined => undefined.push((member.clone(), s.name)),
                Kind::Local => {}
            }
        }
    }
    for (member, name) in undefined {
        if !defined.contains(&name) && !prefix.carried_by(&name) && !allowed(&name) {
            escapes.unknown_undefined.push((member, name));
        }
    }
    // Each name once, with the first member that needs it.
    escapes.unknown_undefined.sort_by(|a, b| (&a.1, &a.0).cmp(&(&b.1, &b.0)));
    escapes.unknown_undefined.dedup_by(|a, b| a.1 == b.1);
    Ok(escapes)
}

/// Little- or big-endian integers at an offset, bounds-checked: a short or truncated object
/// is an error naming what was read, never a panic.
#[derive(Clone, Copy)]
struct Bytes<'a> {
    data: &'a [u8],
    big: bool,
}

impl Bytes<'_> {
    fn slice(&self, at: usize, len: usize) -> Result<&[u8]> {
        at.checked_add(len)
            .and_then(|end| self.data.get(at..end))
            .with_context(|| format!("{len} bytes at {at:#x} lie beyond the object's end"))
    }
    fn u8(&self, at: usize) -> Result<u8> {
        Ok(self.slice(at, 1)?[0])
    }
    fn u16(&self, at: usize) -> Result<u16> {
        let b: [u8; 2] = self.slice(at, 2)?.try_into()?;
        Ok(if self.big { u16::from_be_bytes(b) } else { u16::from_le_bytes(b) })
    }
    fn u32(&self, at: usize) -> Result<u32> {
        let b: [u8; 4] = self.slice(at, 4)?.try_into()?;
        Ok(if self.big { u32::from_be_bytes(b) } else { u32::from_le_bytes(b) })
    }
    fn u64(&self, at: usize) -> Result<u64> {
        let b: [u8; 8] = self.slice(at, 8)?.try_into()?;
        Ok(if self.big { u64::from_be_bytes(b) } else { u64::from_le_bytes(b) })
    }
    /// A NUL-terminated name in a string table.
    fn c_str(&self, at: usize) -> Result<String> {
        let rest = self.data.get(at..).context("a name beyond its string table")?;
        let end = rest.iter().position(|&b| b == 0).context("a name without its NUL")?;
        Ok(String::from_utf8_lossy(&rest[..end]).into_owned())
    }
}

/// Writes integers into a copy of an object, in its byte order.
struct Patch {
    data: Vec<u8>,
    big: bool,
}

impl Patch {
    fn put(&mut self, at: usize, bytes: &[u8]) {
        self.data[at..at + bytes.len()].copy_from_slice(bytes);
    }
    fn u32(&mut self, at: usize, v: u32) {
        self.put(at, &if self.big { v.to_be_bytes() } else { v.to_le_bytes() });
    }
    fn u64(&mut self, at: usize, v: u64) {
        self.put(at, &if self.big { v.to_be_bytes() } else { v.to_le_bytes() });
    }
    /// Appends `bytes` at an `align`ed end, and returns where they start.
    fn append(&mut self, bytes: &[u8], align: usize) -> usize {
        while self.data.len() % align != 0 {
            self.data.push(0);
        }
        let at = self.data.len();
        self.data.extend_from_slice(bytes);
        at
    }
}

/// A string table grown by the new names: the old one kept whole, so that every offset into
/// it (section names too, where the format shares the table) stays valid.
struct Strings {
    table: Vec<u8>,
}

impl Strings {
    fn add(&mut self, name: &str) -> Result<u32> {
        let at = u32::try_from(self.table.len()).context("a string table over 4 GiB")?;
        self.table.extend_from_slice(name.as_bytes());
        self.table.push(0);
        Ok(at)
    }

    /// Each global symbol (by its index in the table) that `rename` gives a new name, and
    /// where that name now stands in this table: what every format writes back its own way.
    fn renamed(
        &mut self,
        symbols: Vec<(usize, Symbol)>,
        rename: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Vec<(usize, u32)>> {
        let mut out = vec![];
        for (i, s) in symbols.into_iter().filter(|(_, s)| s.kind != Kind::Local) {
            if let Some(new) = rename(&s.name) {
                out.push((i, self.add(&new)?));
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
