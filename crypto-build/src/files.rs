//! Files written whole or not at all, and the one writer of a directory: what generation,
//! the source crates, detection's cache and the progress files each need, owned by none of
//! them.

use anyhow::{bail, Context, Result};
use std::fs;
use std::path::Path;

/// Writes a file through a temporary sibling and a rename.
pub fn write_atomic(path: &Path, data: &[u8]) -> Result<()> {
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    fs::write(&tmp, data).with_context(|| format!("writing {}", tmp.display()))?;
    fs::rename(&tmp, path).with_context(|| format!("renaming to {}", path.display()))
}

/// The right to write under a directory (a line's sets and lock, a source crate's tree): an
/// flock on `<dir>/.gen-lock`, which the kernel drops when its holder exits, even by SIGKILL,
/// so a killed run never blocks the next one. The file holds the holder's pid, for the message of a run that is refused.
pub struct WriteLock {
    _file: fs::File,
}

pub const WRITE_LOCK_FILE: &str = ".gen-lock";

impl WriteLock {
    /// Waits for the lock when `wait` (build scripts, which may run side by side), else
    /// refuses at once, naming the run that holds it.
    pub fn acquire(root: &Path, wait: bool) -> Result<WriteLock> {
        fs::create_dir_all(root).with_context(|| format!("creating {}", root.display()))?;
        let path = root.join(WRITE_LOCK_FILE);
        let mut file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))?;
        if !flock(&file, wait).with_context(|| format!("locking {}", path.display()))? {
            let holder = fs::read_to_string(&path).unwrap_or_default();
            bail!(
                "another run (pid {}) is writing to {} (`cargo xtask generate`, or a move); wait \
                 for it to finish, then run this again",
                holder.trim(),
                root.display()
            );
        }
        use std::io::Write as _;
        file.set_len(0)?;
        write!(file, "{}", std::process::id())?;
        Ok(WriteLock { _file: file })
    }
}

/// Ok(false) when another process holds the lock and `wait` is false.
#[cfg(unix)]
fn flock(file: &fs::File, wait: bool) -> Result<bool> {
    use std::os::unix::io::AsRawFd;
    let op = if wait { libc::LOCK_EX } else { libc::LOCK_EX | libc::LOCK_NB };
    // SAFETY: the descriptor is open for as long as `file` lives; flock touches nothing else.
    if unsafe { libc::flock(file.as_raw_fd(), op) } == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EWOULDBLOCK) => Ok(false),
        _ => Err(e.into()),
    }
}

/// Generation needs perl and make: on a host without flock it runs only through cargo's own
/// serialisation of build scripts.
#[cfg(not(unix))]
fn flock(_file: &fs::File, _wait: bool) -> Result<bool> {
    Ok(true)
}

/// Recursive copy; OpenSSL's tree has only files and directories.
pub fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let dest = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &dest)?;
        } else {
            fs::copy(entry.path(), &dest)?;
        }
    }
    Ok(())
}
