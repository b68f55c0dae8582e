//! Fake `cc` and `nasm` that answer every probe of Configure and the perlasm scripts with the
//! set's fixed assembler identity, so the output never depends on the host's tools.

use anyhow::{Context, Result};
use crypto_build::data::{AsmIdentity, CcKind, Target, CLANG_MAJOR_OF_SET};
use std::fs;
use std::path::{Path, PathBuf};

pub struct FakeTools {
    pub dir: PathBuf,
}

/// Where the fake tools note each answer that depends on the identity (the assembler banners,
/// a clang target's `__clang_major__`).
const PROBE_LOG: &str = "identity-probes.log";

/// Where the fake cc notes each invocation it does not know: a perl script's backticks ignore
/// its exit status, so only this log makes such a probe fail generation.
const UNEXPECTED_LOG: &str = "unexpected.log";

impl FakeTools {
    /// Writes `cc` and `nasm` into `dir`, as perl scripts run by `perl`; rewriting them with
    /// another identity changes only their identity-dependent answers.
    pub fn write(dir: &Path, perl: &Path, target: &Target, id: &AsmIdentity) -> Result<FakeTools> {
        fs::create_dir_all(dir)?;
        let shebang = format!("#!{}\n", perl.display());
        // The third field marks the macros whose value is the identity's.
        let predefined: String = target
            .predefined
            .iter()
            .map(|&(k, v)| match v {
                CLANG_MAJOR_OF_SET => format!("  ['{k}', '{}', 1],\n", id.clang_major),
                _ => format!("  ['{k}', '{v}', 0],\n"),
            })
            .collect();
        let help = if target.noexecstack {
            "  --noexecstack           require executable stack for this object\\n"
        } else {
            ""
        };
        // cl.exe rejects `-Wa,-v`, so perlasm goes on to ask nasm.
        let as_banner = match target.cc_kind {
            CcKind::Gnu => format!(
                "print STDERR \"GNU assembler version {v} (x86_64-linux-gnu) using BFD version \
                 (GNU Binutils) {v}\\n\"; exit 0;",
                v = id.gas_version
            ),
            CcKind::Msvc => {
                "print STDERR \"cl : Command line error D8021 : invalid numeric argument '/Wa,-v'\\n\"; \
                 exit 2;"
                    .to_string()
            }
        };
        let log = dir.join(PROBE_LOG).display().to_string();
        let log_sub = format!(
            "sub probed {{ open(my $l, '>>', '{}') or die \"$!\"; print $l \"@ARGV\\n\"; close $l; }}\n",
            log.replace('\\', "\\\\").replace('\'', "\\'")
        );
        let unexpected = dir.join(UNEXPECTED_LOG).display().to_string();
        let cc = FAKE_CC
            .replace("@UNEXPECTED@", &unexpected.replace('\\', "\\\\").replace('\'', "\\'"))
            .replace("@PROBED@", &log_sub)
            .replace("@AS_BANNER@", &as_banner)
            .replace("@PREDEFINED@", &predefined)
            .replace("@AS_HELP@", help);
        let nasm = FAKE_NASM.replace("@PROBED@", &log_sub).replace("@NASM@", id.nasm_version);
        write_exe(&dir.join("cc"), &(shebang.clone() + &cc))?;
        write_exe(&dir.join("nasm"), &(shebang + &nasm))?;
        Ok(FakeTools { dir: dir.to_path_buf() })
    }

    /// Whether anything asked for the identity since the last [`FakeTools::forget_probes`]:
    /// if nothing did, what ran cannot depend on which identity was written.
    pub fn probed(&self) -> bool {
        fs::metadata(self.dir.join(PROBE_LOG)).is_ok_and(|m| m.len() > 0)
    }

    pub fn forget_probes(&self) -> Result<()> {
        match fs::remove_file(self.dir.join(PROBE_LOG)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
            _ => Ok(()),
        }
    }

    /// An error naming the first invocation the fake cc did not know, if there was one: an
    /// answer it lacks must be taught it, never left to a script's default.
    pub fn check_no_unexpected(&self) -> Result<()> {
        let log = fs::read_to_string(self.dir.join(UNEXPECTED_LOG)).unwrap_or_default();
        match log.lines().next() {
            Some(first) => anyhow::bail!(
                "the fake C compiler was asked `cc {first}`, which it does not answer: a probe \
                 of OpenSSL's scripts that crypto-build's identity (generate/identity.rs) must learn"
            ),
            None => Ok(()),
        }
    }
}

fn write_exe(path: &Path, text: &str) -> Result<()> {
    fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}

/// Any invocation it does not know is an error, so a new probe in OpenSSL cannot slip through
/// to a default answer unnoticed.
const FAKE_CC: &str = r##"# crypto-build's fake C compiler: a fixed identity for OpenSSL's probes.
use strict; use warnings;
@PROBED@my @predefined = (
@PREDEFINED@);
my $args = join(' ', @ARGV);
if ($args =~ /-dM -E/) {
  for my $p (@predefined) { print "#define $p->[0] $p->[1]\n"; probed() if $p->[2]; }
  exit 0;
}
if ($args =~ /-Wa,--help/) { print "@AS_HELP@"; exit 0; }
if ($args =~ /-Wa,-v/) { probed(); @AS_BANNER@ }
if ($args eq '-v') { print STDERR "gcc version 12.2.0 (crypto-build identity)\n"; exit 0; }
if ($args eq '--version') { print "cc (crypto-build identity) 12.2.0\n"; exit 0; }
if ($args eq '-V') { exit 1; }
# Configure's mingw check for gcc 3's -mno-cygwin, which no gcc it meets still has.
if ($args eq '--target-help') { exit 0; }
if ($args =~ /-E (-P )?-$/) {
  local $/; my $in = <STDIN>;
  for my $p (@predefined) { probed() if $in =~ s/\b\Q$p->[0]\E\b/$p->[1]/g && $p->[2]; }
  $in =~ s/\b__USER_LABEL_PREFIX__\b//g; print $in; exit 0;
}
print STDERR "crypto-build fake cc: unexpected invocation: cc $args\n";
open(my $u, '>>', '@UNEXPECTED@') or die "$!"; print $u "$args\n"; close $u;
exit 1;
"##;

const FAKE_NASM: &str = r##"# crypto-build's fake nasm: a fixed identity for OpenSSL's probes.
@PROBED@if ("@ARGV" eq '-v') { probed(); print "NASM version @NASM@ compiled on Jan  1 2000\n"; exit 0; }
print STDERR "crypto-build fake nasm: unexpected invocation: nasm @ARGV\n";
exit 1;
"##;

#[cfg(test)]
mod tests {
    use super::*;
    use crypto_build::data::{SETS, TARGETS};
    use std::process::Command;

    fn predefined(target: &str, set: &str) -> (String, bool) {
        let target = TARGETS.iter().find(|t| t.name == target).unwrap();
        let set = SETS.iter().find(|s| s.name == set).unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let fake =
            FakeTools::write(dir, Path::new("/usr/bin/perl"), target, &set.identity).unwrap();
        // perlasm's 4.0 probe, word for word.
        let out = Command::new("perl")
            .arg(dir.join("cc"))
            .args(["-x", "c", "/dev/null", "-dM", "-E"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let probed = fake.probed();
        (String::from_utf8(out.stdout).unwrap(), probed)
    }

    /// The MIPS scripts' endianness probe (`echo MIPSEB | $CC -E -`) is answered by the
    /// target's macros: mips64el's leaves MIPSEB alone, so they write little-endian code. An
    /// invocation the fake cc does not know is an error of generation, not a default.
    #[test]
    fn answers_the_mips_endianness_probe_and_refuses_what_it_does_not_know() {
        let target = TARGETS.iter().find(|t| t.name == "linux64-mips64").unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let fake =
            FakeTools::write(dir, Path::new("/usr/bin/perl"), target, &SETS[0].identity).unwrap();
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("echo MIPSEB __mips | perl {} -E -", dir.join("cc").display()))
            .output()
            .unwrap();
        assert_eq!(String::from_utf8(out.stdout).unwrap(), "MIPSEB 3\n");
        fake.check_no_unexpected().unwrap();
        let out = Command::new("perl").arg(dir.join("cc")).args(["-dumpmachine"]).output();
        assert!(!out.unwrap().status.success());
        let e = fake.check_no_unexpected().unwrap_err().to_string();
        assert!(e.contains("was asked `cc -dumpmachine`"), "{e}");
    }

    /// A clang target's `__clang_major__` is its set's, and asking it is a probe of the
    /// identity; gcc targets have none, so their answer is the same for every set.
    #[test]
    fn clang_major_is_the_sets() {
        let (asm, probed) = predefined("darwin64-x86_64-cc", "asm");
        assert!(asm.contains("#define __clang_major__ 19\n") && probed, "{asm}");
        let (avx2, probed) = predefined("darwin64-x86_64-cc", "asm_avx2");
        assert!(avx2.contains("#define __clang_major__ 10\n") && probed, "{avx2}");
        let (linux, probed) = predefined("linux-x86_64", "asm_avx2");
        assert!(!linux.contains("__clang_major__") && linux.contains("__GNUC__") && !probed);
    }
}
