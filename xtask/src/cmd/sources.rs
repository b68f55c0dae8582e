//! `cargo xtask sources [--openssl LINE]...`: each line's source crate made from the archive
//! its lock names where it is not made, then every file checked against its list.

use crate::flags::Sources;
use crate::sources::{ensure, Made};
use anyhow::{bail, Result};
use crypto_build::source::SourceCrate;
use xshell::Shell;

impl Sources {
    pub fn run(self, sh: &Shell) -> Result<()> {
        let root = crate::cargo::project_root();
        let lines = match self.lines.is_empty() {
            true => crypto_build::data::OPENSSL_LINES.iter().collect(),
            false => self.lines,
        };
        for line in lines {
            let made = match ensure(sh, &root, line)? {
                Made::Missing(why) => bail!("{why}"),
                Made::Now(archive) => format!("made from {archive}"),
                Made::Already => "made already".to_string(),
            };
            let krate = SourceCrate::in_workspace(&root, line);
            let tree = match krate.checked(line) {
                Ok(tree) => tree,
                // A file changed or gone: the crate made again, whole, from its archive.
                Err(e) => {
                    println!("sources: {e:#}; making it again");
                    let _ = std::fs::remove_file(krate.list_path());
                    if let Made::Missing(why) = ensure(sh, &root, line)? {
                        bail!("{why}");
                    }
                    krate.checked(line)?
                }
            };
            println!(
                "sources: {} (OpenSSL {}) {made}: {} files checked against {}",
                krate.name,
                line.version,
                tree.list.files.len(),
                krate.list_path().strip_prefix(&root).unwrap_or(&krate.list_path()).display()
            );
        }
        Ok(())
    }
}
