//! COFF objects (mingw's and MSVC mode's, x86 and x64; the big-object variant too): a name of
//! up to 8 bytes sits in its symbol record, a longer one in the string table that follows the
//! symbol table. A rename writes every new name into that table, grown at the file's end.

use super::{Bytes, Format, Kind, Patch, Strings, Symbol};
use anyhow::{bail, Context, Result};

pub struct Coff;

const MACHINES: &[u16] = &[0x8664, 0x014c, 0xaa64, 0x01c4];
const CLASS_EXTERNAL: u8 = 2;
const CLASS_WEAK_EXTERNAL: u8 = 105;
const SECTION_DEBUG: i32 = -2;

/// Where the symbol table is and how wide its records are.
struct Table {
    symtab: usize,
    count: usize,
    /// 18 bytes, or 20 in a big object (a 32-bit section number).
    record: usize,
    big: bool,
}

/// A big object's header: two signature words, a version of 2 or more, and a class GUID;
/// an import library's short import header shares the first two words with version 0.
fn is_bigobj(data: &[u8]) -> bool {
    let b = Bytes { data, big: false };
    matches!((b.u16(0), b.u16(2), b.u16(4)), (Ok(0), Ok(0xffff), Ok(v)) if v >= 2)
}

pub fn is_coff(data: &[u8]) -> bool {
    let b = Bytes { data, big: false };
    is_bigobj(data) || b.u16(0).is_ok_and(|m| MACHINES.contains(&m)) && data.len() >= 20
}

impl Table {
    fn read(data: &[u8]) -> Result<Table> {
        let b = Bytes { data, big: false };
        let t = if is_bigobj(data) {
            Table { symtab: b.u32(48)? as usize, count: b.u32(52)? as usize, record: 20, big: true }
        } else {
            Table { symtab: b.u32(8)? as usize, count: b.u32(12)? as usize, record: 18, big: false }
        };
        Ok(t)
    }

    fn strings_at(&self) -> usize {
        self.symtab + self.count * self.record
    }

    /// Each symbol record's index (aux records skipped), name and kind.
    fn symbols(&self, data: &[u8]) -> Result<Vec<(usize, Symbol)>> {
        let b = Bytes { data, big: false };
        let strings = self.strings_at();
        let mut out = vec![];
        let mut i = 0;
        while i < self.count {
            let at = self.symtab + i * self.record;
            let name = match b.u32(at)? {
                0 => b.c_str(strings + b.u32(at + 4)? as usize).context("a symbol's long name")?,
                _ => {
                    let short = b.slice(at, 8)?;
                    let end = short.iter().position(|&c| c == 0).unwrap_or(8);
                    String::from_utf8_lossy(&short[..end]).into_owned()
                }
            };
            let value = b.u32(at + 8)?;
            let section =
                if self.big { b.u32(at + 12)? as i32 } else { i32::from(b.u16(at + 12)? as i16) };
            let class_at = if self.big { 18 } else { 16 };
            let class = b.u8(at + class_at)?;
            let aux = b.u8(at + class_at + 1)? as usize;
            // An external of section 0 with a value is a common symbol (its size): a
            // definition. A weak external is a definition with a default behind it.
            let kind = match class {
                CLASS_EXTERNAL if section == 0 && value == 0 => Kind::Undefined,
                CLASS_EXTERNAL if section != SECTION_DEBUG => Kind::Defined,
                CLASS_WEAK_EXTERNAL => Kind::Defined,
                _ => Kind::Local,
            };
            out.push((i, Symbol { name, kind }));
            i += 1 + aux;
        }
        Ok(out)
    }
}

impl Format for Coff {
    fn symbols(data: &[u8]) -> Result<Vec<Symbol>> {
        Ok(Table::read(data)?.symbols(data)?.into_iter().map(|(_, s)| s).collect())
    }

    fn rename(data: &[u8], rename: &dyn Fn(&str) -> Option<String>) -> Result<Vec<u8>> {
        let t = Table::read(data)?;
        let b = Bytes { data, big: false };
        let at = t.strings_at();
        let size = b.u32(at)? as usize;
        if at + size != data.len() {
            bail!(
                "a COFF object whose string table is not its last part ({} of {} bytes)",
                at + size,
                data.len()
            );
        }
        let mut strings = Strings { table: b.slice(at, size)?.to_vec() };
        let mut patch = Patch { data: data.to_vec(), big: false };
        for (i, off) in strings.renamed(t.symbols(data)?, rename)? {
            // A long name: four zero bytes, then its offset in the string table.
            let record = t.symtab + i * t.record;
            patch.u32(record, 0);
            patch.u32(record + 4, off);
        }
        let len = u32::try_from(strings.table.len()).context("a string table over 4 GiB")?;
        strings.table[..4].copy_from_slice(&len.to_le_bytes());
        patch.data.truncate(at);
        patch.data.extend_from_slice(&strings.table);
        Ok(patch.data)
    }
}
