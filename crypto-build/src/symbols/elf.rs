//! ELF relocatable objects, 32- and 64-bit, either byte order: the symbol table's names are
//! offsets into its string table, which a rename copies to the file's end with the new names
//! after the old (its section header pointed there), so nothing else moves.

use super::{Bytes, Format, Kind, Patch, Strings, Symbol};
use anyhow::{bail, Context, Result};

pub struct Elf;

const SHT_SYMTAB: u32 = 2;
const SHN_UNDEF: u16 = 0;
const STB_LOCAL: u8 = 0;
const STT_SECTION: u8 = 3;
const STT_FILE: u8 = 4;

/// Where the fields are, by class.
struct Layout {
    wide: bool,
    shoff: usize,
    shentsize: usize,
    shnum: usize,
    sh_offset: usize,
    sh_size: usize,
    sh_link: usize,
    sym_size: usize,
    st_info: usize,
    st_shndx: usize,
}

const ELF32: Layout = Layout {
    wide: false,
    shoff: 0x20,
    shentsize: 0x2e,
    shnum: 0x30,
    sh_offset: 16,
    sh_size: 20,
    sh_link: 24,
    sym_size: 16,
    st_info: 12,
    st_shndx: 14,
};
const ELF64: Layout = Layout {
    wide: true,
    shoff: 0x28,
    shentsize: 0x3a,
    shnum: 0x3c,
    sh_offset: 24,
    sh_size: 32,
    sh_link: 40,
    sym_size: 24,
    st_info: 4,
    st_shndx: 6,
};

/// The symbol table's place and its string table's section header.
struct Table {
    l: &'static Layout,
    big: bool,
    symtab: (usize, usize),
    strtab_header: usize,
    strtab: (usize, usize),
}

impl Table {
    fn read(data: &[u8]) -> Result<Option<Table>> {
        let l = match data.get(4) {
            Some(1) => &ELF32,
            Some(2) => &ELF64,
            _ => bail!("an ELF object of unknown class"),
        };
        let big = match data.get(5) {
            Some(1) => false,
            Some(2) => true,
            _ => bail!("an ELF object of unknown byte order"),
        };
        let b = Bytes { data, big };
        let word = |at: usize| -> Result<usize> {
            Ok(if l.wide { b.u64(at)? as usize } else { b.u32(at)? as usize })
        };
        let shoff = word(l.shoff)?;
        let shentsize = b.u16(l.shentsize)? as usize;
        let mut shnum = b.u16(l.shnum)? as usize;
        if shnum == 0 && shoff != 0 {
            // More sections than the field holds: section 0's size says how many.
            shnum = word(shoff + l.sh_size)?;
        }
        let header = |i: usize| shoff + i * shentsize;
        for i in 0..shnum {
            if b.u32(header(i) + 4)? != SHT_SYMTAB {
                continue;
            }
            let symtab = (word(header(i) + l.sh_offset)?, word(header(i) + l.sh_size)?);
            let link = b.u32(header(i) + l.sh_link)? as usize;
            if link >= shnum {
                bail!("the symbol table's string table is section {link} of {shnum}");
            }
            let strtab = (word(header(link) + l.sh_offset)?, word(header(link) + l.sh_size)?);
            return Ok(Some(Table { l, big, symtab, strtab_header: header(link), strtab }));
        }
        Ok(None)
    }

    fn entries(&self) -> std::ops::Range<usize> {
        0..self.symtab.1 / self.l.sym_size
    }

    fn entry(&self, i: usize) -> usize {
        self.symtab.0 + i * self.l.sym_size
    }

    /// Every entry, with its index.
    fn indexed(&self, data: &[u8]) -> Result<Vec<(usize, Symbol)>> {
        self.entries().map(|i| Ok((i, self.symbol(data, i)?))).collect()
    }

    fn symbol(&self, data: &[u8], i: usize) -> Result<Symbol> {
        let b = Bytes { data, big: self.big };
        let at = self.entry(i);
        let name_off = b.u32(at)?;
        let info = b.u8(at + self.l.st_info)?;
        let shndx = b.u16(at + self.l.st_shndx)?;
        let (bind, typ) = (info >> 4, info & 0xf);
        let names = Bytes { data: b.slice(self.strtab.0, self.strtab.1)?, big: self.big };
        let name = names.c_str(name_off as usize).context("a symbol's name")?;
        // Any section index but UNDEF defines: SHN_COMMON (a common symbol, merged with any
        // other of its name), SHN_ABS, SHN_XINDEX (a real section past 0xff00).
        let kind = if bind == STB_LOCAL || typ == STT_SECTION || typ == STT_FILE {
            Kind::Local
        } else if shndx == SHN_UNDEF {
            Kind::Undefined
        } else {
            Kind::Defined
        };
        Ok(Symbol { name, kind })
    }
}

impl Format for Elf {
    fn symbols(data: &[u8]) -> Result<Vec<Symbol>> {
        let Some(t) = Table::read(data)? else { return Ok(vec![]) };
        Ok(t.indexed(data)?.into_iter().map(|(_, s)| s).collect())
    }

    fn rename(data: &[u8], rename: &dyn Fn(&str) -> Option<String>) -> Result<Vec<u8>> {
        let Some(t) = Table::read(data)? else { return Ok(data.to_vec()) };
        let b = Bytes { data, big: t.big };
        let mut strings = Strings { table: b.slice(t.strtab.0, t.strtab.1)?.to_vec() };
        let mut patch = Patch { data: data.to_vec(), big: t.big };
        let renamed = strings.renamed(t.indexed(data)?, rename)?;
        if renamed.is_empty() {
            return Ok(patch.data);
        }
        for (i, off) in renamed {
            patch.u32(t.entry(i), off);
        }
        let at = patch.append(&strings.table, 8);
        let (off, size) = (t.strtab_header + t.l.sh_offset, t.strtab_header + t.l.sh_size);
        if t.l.wide {
            patch.u64(off, at as u64);
            patch.u64(size, strings.table.len() as u64);
        } else {
            patch.u32(off, u32::try_from(at)?);
            patch.u32(size, u32::try_from(strings.table.len())?);
        }
        Ok(patch.data)
    }
}
