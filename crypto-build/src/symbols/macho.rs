//! 64-bit Mach-O objects (macOS's x86_64 and arm64): `LC_SYMTAB` names its symbols' and its
//! string table's places; a rename writes a grown copy of the table at the file's end and
//! points the command there.

use super::{Bytes, Format, Kind, Patch, Strings, Symbol};
use anyhow::{bail, Context, Result};

pub struct MachO;

const LC_SYMTAB: u32 = 0x2;
const N_STAB: u8 = 0xe0;
const N_TYPE: u8 = 0x0e;
const N_EXT: u8 = 0x01;
const N_UNDF: u8 = 0x0;
const NLIST: usize = 16;

struct Table {
    /// The LC_SYMTAB command's offset.
    command: usize,
    symoff: usize,
    nsyms: usize,
    stroff: usize,
    strsize: usize,
}

impl Table {
    fn read(data: &[u8]) -> Result<Option<Table>> {
        let b = Bytes { data, big: false };
        let ncmds = b.u32(16)? as usize;
        let mut at = 32;
        for _ in 0..ncmds {
            let (cmd, size) = (b.u32(at)?, b.u32(at + 4)? as usize);
            if cmd == LC_SYMTAB {
                return Ok(Some(Table {
                    command: at,
                    symoff: b.u32(at + 8)? as usize,
                    nsyms: b.u32(at + 12)? as usize,
                    stroff: b.u32(at + 16)? as usize,
                    strsize: b.u32(at + 20)? as usize,
                }));
            }
            if size == 0 {
                bail!("a Mach-O load command of size 0");
            }
            at += size;
        }
        Ok(None)
    }

    /// Every entry, with its index.
    fn indexed(&self, data: &[u8]) -> Result<Vec<(usize, Symbol)>> {
        (0..self.nsyms).map(|i| Ok((i, self.symbol(data, i)?))).collect()
    }

    fn symbol(&self, data: &[u8], i: usize) -> Result<Symbol> {
        let b = Bytes { data, big: false };
        let at = self.symoff + i * NLIST;
        let strx = b.u32(at)? as usize;
        let n_type = b.u8(at + 4)?;
        let value = b.u64(at + 8)?;
        let names = Bytes { data: b.slice(self.stroff, self.strsize)?, big: false };
        let name = names.c_str(strx).context("a symbol's name")?;
        // An undefined external with a value is a common symbol (its size): a definition.
        let kind = if n_type & N_STAB != 0 || n_type & N_EXT == 0 {
            Kind::Local
        } else if n_type & N_TYPE == N_UNDF && value == 0 {
            Kind::Undefined
        } else {
            Kind::Defined
        };
        Ok(Symbol { name, kind })
    }
}

impl Format for MachO {
    fn symbols(data: &[u8]) -> Result<Vec<Symbol>> {
        let Some(t) = Table::read(data)? else { return Ok(vec![]) };
        Ok(t.indexed(data)?.into_iter().map(|(_, s)| s).collect())
    }

    fn rename(data: &[u8], rename: &dyn Fn(&str) -> Option<String>) -> Result<Vec<u8>> {
        let Some(t) = Table::read(data)? else { return Ok(data.to_vec()) };
        let b = Bytes { data, big: false };
        let mut strings = Strings { table: b.slice(t.stroff, t.strsize)?.to_vec() };
        let mut patch = Patch { data: data.to_vec(), big: false };
        let renamed = strings.renamed(t.indexed(data)?, rename)?;
        if renamed.is_empty() {
            return Ok(patch.data);
        }
        for (i, off) in renamed {
            patch.u32(t.symoff + i * NLIST, off);
        }
        let at = patch.append(&strings.table, 8);
        patch.u32(t.command + 16, u32::try_from(at)?);
        patch.u32(t.command + 20, u32::try_from(strings.table.len())?);
        Ok(patch.data)
    }
}
