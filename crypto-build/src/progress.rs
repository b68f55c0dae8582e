//! Where a build is, for `cargo xtask build` to show: cargo prints nothing of a build script
//! while it runs, so the script writes its phase and counts to a file that xtask follows
//! (`PROGRESS_VAR`). Without the variable nothing is written; a failed write never fails a
//! build.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Names the file the build script keeps its progress in.
pub const PROGRESS_VAR: &str = "CRYPTO_SYS_PROGRESS_FILE";

/// One moment of a build, as written to the file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// probe, compile, archive or done.
    pub phase: String,
    /// OpenSSL's units (C and asm) in the build.
    pub units: usize,
    /// Of those, how many the object cache did not have, as far as the build has looked.
    pub to_compile: usize,
    /// Compiled and stored in the cache.
    pub compiled: usize,
    /// Where cc puts objects before they are stored: what is there is compiled too.
    pub obj_dir: PathBuf,
}

impl Snapshot {
    pub fn parse(text: &str) -> Option<Snapshot> {
        let mut s = Snapshot::default();
        for line in text.lines() {
            let (k, v) = line.split_once('\t')?;
            match k {
                "phase" => s.phase = v.to_string(),
                "units" => s.units = v.parse().ok()?,
                "to_compile" => s.to_compile = v.parse().ok()?,
                "compiled" => s.compiled = v.parse().ok()?,
                "obj_dir" => s.obj_dir = PathBuf::from(v),
                _ => {}
            }
        }
        (!s.phase.is_empty()).then_some(s)
    }

    fn text(&self) -> String {
        format!(
            "phase\t{}\nunits\t{}\nto_compile\t{}\ncompiled\t{}\nobj_dir\t{}\n",
            self.phase,
            self.units,
            self.to_compile,
            self.compiled,
            self.obj_dir.display()
        )
    }
}

/// The build script's side.
#[derive(Debug, Default)]
pub struct Progress {
    file: Option<PathBuf>,
    state: Mutex<Snapshot>,
}

impl Progress {
    /// From `PROGRESS_VAR`. Read without `rerun-if-env-changed`: it changes no output.
    pub fn from_env(obj_dir: &Path) -> Progress {
        let file = std::env::var_os(PROGRESS_VAR).map(PathBuf::from);
        let state = Mutex::new(Snapshot { obj_dir: obj_dir.to_path_buf(), ..Snapshot::default() });
        Progress { file, state }
    }

    pub fn phase(&self, phase: &str) {
        self.update(|s| s.phase = phase.to_string());
    }

    pub fn units(&self, n: usize) {
        self.update(|s| s.units = n);
    }

    pub fn will_compile(&self, n: usize) {
        self.update(|s| s.to_compile += n);
    }

    pub fn compiled(&self, n: usize) {
        self.update(|s| s.compiled += n);
    }

    fn update(&self, change: impl FnOnce(&mut Snapshot)) {
        let Some(file) = &self.file else { return };
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        change(&mut s);
        let _ = crate::files::write_atomic(file, s.text().as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_reads_back() {
        let s = Snapshot {
            phase: "compile".into(),
            units: 1127,
            to_compile: 300,
            compiled: 120,
            obj_dir: PathBuf::from("/t/out/obj"),
        };
        assert_eq!(Snapshot::parse(&s.text()), Some(s));
        assert_eq!(Snapshot::parse("garbage"), None);
    }
}
