//! An archive's members, for the check: `ar`'s GNU and BSD forms and MSVC's `.lib` (GNU's
//! with two linker members). The index members and the long-name table are no objects.

use anyhow::{bail, Context, Result};

const MAGIC: &[u8] = b"!<arch>\n";
const HEADER: usize = 60;

/// Each object member's name and bytes, in order.
pub fn members(data: &[u8]) -> Result<Vec<(String, &[u8])>> {
    let Some(mut rest) = data.strip_prefix(MAGIC) else {
        bail!("not an archive (no `!<arch>` header)");
    };
    let mut long_names: &[u8] = &[];
    let mut out = vec![];
    while !rest.is_empty() {
        if rest.len() < HEADER {
            bail!("an archive member header cut short");
        }
        let field =
            |r: std::ops::Range<usize>| String::from_utf8_lossy(&rest[r]).trim().to_string();
        let raw = field(0..16);
        let size: usize = field(48..58).parse().context("an archive member's size")?;
        let body = rest.get(HEADER..HEADER + size).context("an archive member cut short")?;
        let (name, data) = if let Some(n) = raw.strip_prefix("#1/") {
            // BSD: the name's length here, the name at the start of the body.
            let n: usize = n.parse().context("a BSD member name's length")?;
            let name = body.get(..n).context("a BSD member name cut short")?;
            let name = String::from_utf8_lossy(name).trim_end_matches('\0').to_string();
            (name, &body[n..])
        } else if let Some(off) = raw.strip_prefix('/').and_then(|o| o.parse::<usize>().ok()) {
            let names = long_names.get(off..).context("a long name beyond the name table")?;
            let end = names.iter().position(|&c| c == b'\n' || c == 0).unwrap_or(names.len());
            (String::from_utf8_lossy(&names[..end]).trim_end_matches('/').to_string(), body)
        } else {
            (raw.trim_end_matches('/').to_string(), body)
        };
        match raw.as_str() {
            "//" => long_names = body,
            "/" | "/SYM64/" => {}
            _ if name.starts_with("__.SYMDEF") => {}
            _ => out.push((name, data)),
        }
        rest = &rest[(HEADER + size + size % 2).min(rest.len())..];
    }
    Ok(out)
}
