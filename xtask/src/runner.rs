//! How a built program runs on this machine: natively (32-bit x86 through its cross C
//! library's loader), under wine or under qemu-user, each run bounded by a timeout, its
//! output kept in files.

use crate::triple::Triple;
use anyhow::{bail, ensure, Context, Result};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How a built program runs on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runner {
    Native,
    /// Linux programs of 32-bit x86, on this CPU, started by the cross C library's own loader.
    Loader(&'static CrossLoader),
    /// Windows programs, each architecture in a wine prefix of its own; wine passes the Unix
    /// environment through to them.
    Wine(&'static WineArch),
    /// Linux programs of another architecture, under qemu-user with Debian's cross libc.
    Qemu(&'static QemuUser),
}

/// A Linux architecture whose programs this machine's CPU runs itself (32-bit x86 on x86_64),
/// through its cross C library's dynamic loader, so the host needs no C library of its own
/// for it (Debian's i386 libc).
#[derive(Debug, PartialEq, Eq)]
pub struct CrossLoader {
    /// The triple's first field.
    pub arch: &'static str,
    /// The cross C library's root.
    pub sysroot: &'static str,
    /// Its dynamic loader, under the root.
    pub loader: &'static str,
    /// The Debian package that installs it (with the headers and libraries a build needs).
    pub libc_package: &'static str,
}

pub const CROSS_LOADERS: &[CrossLoader] = &[CrossLoader {
    arch: "i686",
    sysroot: "/usr/i686-linux-gnu",
    loader: "lib/ld-linux.so.2",
    libc_package: "libc6-dev-i386-cross",
}];

impl CrossLoader {
    /// The loader and the C library, a missing one named in one line with its package.
    pub fn require(&self) -> Result<()> {
        let root = Path::new(self.sysroot);
        ensure!(
            root.join(self.loader).exists() && root.join("lib/libc.so.6").exists(),
            "the {} C library is not installed in {}; .ci/run installs it (apt install {})",
            self.arch,
            self.sysroot,
            self.libc_package
        );
        Ok(())
    }
}

/// A Windows architecture wine runs here, in a prefix of its own.
#[derive(Debug, PartialEq, Eq)]
pub struct WineArch {
    /// The triple's first field.
    pub arch: &'static str,
    /// The prefix's WINEARCH, under the project root, made on its first run.
    pub winearch: &'static str,
    pub prefix: &'static str,
    /// wine's loader for the architecture (Debian installs it without the `wine` wrapper
    /// unless the `wine` package is in too), and how to get it.
    pub loader: &'static str,
    pub install: &'static str,
}

#[rustfmt::skip]
pub const WINE_ARCHES: &[WineArch] = &[
    WineArch { arch: "x86_64", winearch: "win64", prefix: "target/wine-prefix",
               loader: "/usr/lib/wine/wine64", install: "install wine64" },
    WineArch { arch: "i686", winearch: "win32", prefix: "target/wine-prefix-win32",
               loader: "/usr/lib/wine/wine",
               install: "dpkg --add-architecture i386, then apt install wine32:i386" },
];

/// A Linux architecture that qemu-user runs here.
#[derive(Debug, PartialEq, Eq)]
pub struct QemuUser {
    /// The triple's first field.
    pub arch: &'static str,
    /// qemu-user's program for it (Debian's qemu-user package).
    pub program: &'static str,
    /// The cross C library's root, qemu's `-L`.
    pub sysroot: &'static str,
    /// The Debian package that installs it.
    pub libc_package: &'static str,
}

#[rustfmt::skip]
pub const QEMU_USERS: &[QemuUser] = &[
    QemuUser { arch: "aarch64", program: "qemu-aarch64", sysroot: "/usr/aarch64-linux-gnu",
               libc_package: "libc6-dev-arm64-cross" },
    QemuUser { arch: "powerpc64le", program: "qemu-ppc64le",
               sysroot: "/usr/powerpc64le-linux-gnu", libc_package: "libc6-dev-ppc64el-cross" },
    QemuUser { arch: "s390x", program: "qemu-s390x", sysroot: "/usr/s390x-linux-gnu",
               libc_package: "libc6-dev-s390x-cross" },
    QemuUser { arch: "riscv64gc", program: "qemu-riscv64", sysroot: "/usr/riscv64-linux-gnu",
               libc_package: "libc6-dev-riscv64-cross" },
    // issue 36's rows.
    QemuUser { arch: "armv7", program: "qemu-arm", sysroot: "/usr/arm-linux-gnueabihf",
               libc_package: "libc6-dev-armhf-cross" },
    QemuUser { arch: "mips64el", program: "qemu-mips64el",
               sysroot: "/usr/mips64el-linux-gnuabi64", libc_package: "libc6-dev-mips64el-cross" },
];

impl QemuUser {
    /// qemu and the cross C library, each missing one named in one line.
    pub fn require(&self) -> Result<()> {
        ensure!(
            which::which(self.program).is_ok(),
            "{} is not installed; .ci/run installs it (apt install qemu-user)",
            self.program
        );
        let libc = Path::new(self.sysroot).join("lib/libc.so.6");
        ensure!(
            libc.exists(),
            "the {} C library is not installed; .ci/run installs it (apt install {})",
            self.arch,
            self.libc_package
        );
        Ok(())
    }
}

/// One bounded run of a program.
pub struct Invocation<'a> {
    pub exe: &'a Path,
    pub args: &'a [&'a str],
    pub cwd: &'a Path,
    /// Added to the environment (wine and qemu pass it on to the program).
    pub env: &'a [(&'a str, &'a str)],
    /// Standard output and error go to `<log>.stdout.txt` and `<log>.stderr.txt`.
    pub log: &'a Path,
    /// The program is killed after this long, and the run is an error.
    pub timeout: Duration,
}

/// What a bounded run produced.
#[derive(Debug)]
pub struct RunOutput {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl WineArch {
    /// The program that runs this architecture's programs: for x86_64 the `wine` wrapper
    /// where it is installed (it picks the loader), else the architecture's own loader.
    fn program(&self) -> Result<PathBuf> {
        if self.arch == "x86_64" {
            if let Ok(wine) = which::which("wine") {
                return Ok(wine);
            }
        }
        let loader = Path::new(self.loader);
        let name = if self.arch == "x86_64" { "wine" } else { "wine for 32-bit programs" };
        ensure!(loader.exists(), "{name} not found ({}): {}", self.loader, self.install);
        Ok(loader.to_path_buf())
    }
}

impl Runner {
    /// What runs a target's programs on an x86_64 Linux machine, if anything can.
    pub fn of(triple: &Triple) -> Option<Runner> {
        let host = cfg!(all(target_arch = "x86_64", target_os = "linux"));
        let on_cpu = |arch| CROSS_LOADERS.iter().find(|l| l.arch == arch).filter(|_| host);
        match (triple.arch, triple.os) {
            ("x86_64", "linux") if host => Some(Runner::Native),
            (arch, "linux") if on_cpu(arch).is_some() => on_cpu(arch).map(Runner::Loader),
            (arch, "windows") => WINE_ARCHES.iter().find(|w| w.arch == arch).map(Runner::Wine),
            (arch, "linux") => QEMU_USERS.iter().find(|q| q.arch == arch).map(Runner::Qemu),
            _ => None,
        }
    }

    /// What runs a target's programs on this machine, or why nothing can.
    pub fn for_triple(triple: &str) -> std::result::Result<Runner, String> {
        let parsed = Triple::parse(triple).map_err(|e| e.to_string())?;
        let runner = Runner::of(&parsed)
            .ok_or_else(|| format!("no way to run {triple} programs on this machine"))?;
        runner.command(Path::new("probe")).map_err(|e| e.to_string())?;
        Ok(runner)
    }

    /// How long a whole driver run may take: natively seconds; wine's first start builds its
    /// prefix; qemu emulates every instruction.
    pub fn driver_timeout(self) -> Duration {
        Duration::from_secs(match self {
            Runner::Native | Runner::Loader(_) => 300,
            Runner::Wine(_) => 600,
            Runner::Qemu(_) => 3600,
        })
    }

    /// Whether its programs run on this machine's CPU, so CPU expectations hold for them.
    pub fn on_this_cpu(self) -> bool {
        matches!(self, Runner::Native | Runner::Loader(_) | Runner::Wine(_))
    }

    /// Runs an emulated CPU, which the run's QEMU_CPU may choose.
    pub fn is_qemu(self) -> bool {
        matches!(self, Runner::Qemu(_))
    }

    /// The program that runs `exe` under this runner, with the runner's own environment.
    fn command(self, exe: &Path) -> Result<Command> {
        let mut cmd = match self {
            Runner::Native => return Ok(Command::new(exe)),
            Runner::Loader(l) => {
                l.require()?;
                let root = Path::new(l.sysroot);
                let mut cmd = Command::new(root.join(l.loader));
                cmd.arg("--library-path").arg(root.join("lib"));
                cmd
            }
            Runner::Wine(w) => {
                let mut cmd = Command::new(w.program()?);
                let prefix = crate::cargo::project_root().join(w.prefix);
                // Quiet, and no offer to install Mono or Gecko into a fresh prefix.
                cmd.env("WINEPREFIX", prefix).env("WINEARCH", w.winearch);
                cmd.env("WINEDEBUG", "-all").env("WINEDLLOVERRIDES", "mscoree,mshtml=");
                cmd
            }
            Runner::Qemu(q) => {
                let qemu = which::which(q.program)
                    .map_err(|_| anyhow::anyhow!("{} not found: install qemu-user", q.program))?;
                let mut cmd = Command::new(qemu);
                cmd.args(["-L", q.sysroot]);
                // The CPU is the invocation's to choose; unset, qemu emulates its `max`.
                cmd.env_remove("QEMU_CPU");
                cmd
            }
        };
        cmd.arg(exe);
        Ok(cmd)
    }

    /// Runs `inv`, killing it after its timeout. Output goes to files rather than pipes: a
    /// process wine leaves running (wineserver) could hold a pipe open after the run ends.
    pub fn run(self, inv: &Invocation) -> Result<RunOutput> {
        let mut cmd = self.command(inv.exe)?;
        cmd.args(inv.args).current_dir(inv.cwd).envs(inv.env.iter().copied());
        let log = |ext: &str| {
            let mut name = inv.log.as_os_str().to_owned();
            name.push(ext);
            PathBuf::from(name)
        };
        let (out_path, err_path) = (log(".stdout.txt"), log(".stderr.txt"));
        let create =
            |p: &Path| fs::File::create(p).with_context(|| format!("creating {}", p.display()));
        cmd.stdin(Stdio::null()).stdout(create(&out_path)?).stderr(create(&err_path)?);
        let what = format!("{} ({self:?})", inv.exe.display());
        let mut child = cmd.spawn().with_context(|| format!("starting {what}"))?;
        let deadline = Instant::now() + inv.timeout;
        let status = loop {
            if let Some(status) = child.try_wait()? {
                break status;
            }
            if Instant::now() >= deadline {
                let _ = child.kill();
                let _ = child.wait();
                bail!("{what} ran longer than {}s and was killed", inv.timeout.as_secs());
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let read = |p: &Path| {
            let bytes = fs::read(p).with_context(|| format!("reading {}", p.display()))?;
            Ok::<_, anyhow::Error>(String::from_utf8_lossy(&bytes).into_owned())
        };
        Ok(RunOutput { status, stdout: read(&out_path)?, stderr: read(&err_path)? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::{require_cc, Toolchain};
    use crate::matrix::Row;

    fn mingw() -> Toolchain {
        Row::find(crypto_build::data::triples::X86_64_WINDOWS_GNU, crate::matrix::MINGW_GCC, None)
            .unwrap()
            .driver()
            .unwrap()
    }

    fn aarch64_gcc() -> Toolchain {
        Row::find("aarch64-unknown-linux-gnu", "aarch64-linux-gnu-gcc", None)
            .unwrap()
            .driver()
            .unwrap()
    }
    use xshell::{cmd, Shell};

    /// A scratch directory for one test's programs.
    fn scratch(name: &str) -> PathBuf {
        let dir = crate::cargo::project_root()
            .join(crate::driver::DRIVER_DIR)
            .join("unit-tests")
            .join(name);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A program that prints an environment variable and the first line of `<argv[1]>/probe`
    /// (read relative to its working directory, as the driver reads its vectors), then exits
    /// with 3; given `spin`, it never ends.
    const ECHO_C: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    char path[256], line[64] = "(unreadable)";
    const char *v = getenv("DRIVER_ECHO");
    FILE *f;
    if (argc != 2 || strlen(argv[1]) > 200)
        return 2;
    while (strcmp(argv[1], "spin") == 0)
        ;
    sprintf(path, "%s/probe", argv[1]);
    if ((f = fopen(path, "r")) != NULL && fgets(line, sizeof line, f) != NULL)
        line[strcspn(line, "\n")] = '\0';
    printf("env=%s file=%s\n", v ? v : "(unset)", line);
    return 3;
}
"#;

    /// Compiles ECHO_C with `cc` into `dir/exe`, beside `dir/vectors/probe`.
    fn build_echo(cc: &str, dir: &Path, exe: &str) -> PathBuf {
        let sh = Shell::new().unwrap();
        let (src, out) = (dir.join("echo.c"), dir.join(exe));
        fs::write(&src, ECHO_C).unwrap();
        fs::create_dir_all(dir.join("vectors")).unwrap();
        fs::write(dir.join("vectors/probe"), "read through a relative path\n").unwrap();
        cmd!(sh, "{cc} -std=c99 -Wall -Werror {src} -o {out}").run().unwrap();
        out
    }

    fn check_echo(runner: Runner, exe: &Path, timeout: Duration) {
        let env = [("DRIVER_ECHO", "~0x10000:~0x0")];
        let (cwd, log) = (exe.parent().unwrap(), exe.with_extension("run"));
        let inv = Invocation { exe, args: &["vectors"], cwd, env: &env, log: &log, timeout };
        let out = runner.run(&inv).unwrap();
        assert_eq!(out.status.code(), Some(3), "{out:?}");
        let want = "env=~0x10000:~0x0 file=read through a relative path";
        assert_eq!(out.stdout.trim_end(), want, "{out:?}");
    }

    /// A program that never ends is killed at its timeout, under any runner.
    fn check_killed(runner: Runner, exe: &Path) {
        let (cwd, log) = (exe.parent().unwrap(), exe.with_extension("spin"));
        let timeout = Duration::from_secs(2);
        let inv = Invocation { exe, args: &["spin"], cwd, env: &[], log: &log, timeout };
        let e = runner.run(&inv).unwrap_err().to_string();
        assert!(e.contains("ran longer than 2s and was killed"), "{e}");
    }

    /// A tool `.ci/install` installs: the test fails, naming what to install, rather than
    /// passing without it.
    fn required<T>(tool: Result<T>) -> T {
        tool.unwrap_or_else(|e| panic!("{e} (.ci/install installs it)"))
    }

    #[test]
    fn native_runner_passes_environment_and_exit_code() {
        let exe = build_echo("cc", &scratch("native"), "echo");
        check_echo(Runner::Native, &exe, Duration::from_secs(30));
    }

    #[test]
    fn a_run_past_its_timeout_is_killed() {
        let dir = scratch("timeout");
        let (sleep, log) = (which::which("sleep").unwrap(), dir.join("sleep"));
        let timeout = Duration::from_secs(1);
        let inv =
            Invocation { exe: &sleep, args: &["30"], cwd: &dir, env: &[], log: &log, timeout };
        let e = Runner::Native.run(&inv).unwrap_err().to_string();
        assert!(e.contains("ran longer than 1s and was killed"), "{e}");
    }

    /// A Windows program built by mingw runs under wine, which passes it the environment
    /// (OPENSSL_ia32cap reaches OpenSSL this way) and returns its exit code.
    #[test]
    fn wine_runner_runs_a_mingw_program() {
        let wine = required(
            Runner::for_triple(crypto_build::data::triples::X86_64_WINDOWS_GNU)
                .map_err(anyhow::Error::msg),
        );
        required(require_cc(&mingw()));
        let exe = build_echo(mingw().cc, &scratch("wine"), "echo.exe");
        // The first start creates the wine prefix, which takes a while.
        check_echo(wine, &exe, Duration::from_secs(300));
        check_killed(wine, &exe);
    }

    /// A 32-bit Windows program runs under wine32, in a win32 prefix of its own.
    #[test]
    fn wine_runner_runs_a_32_bit_mingw_program() {
        let tc = Row::find("i686-pc-windows-gnu", "i686-w64-mingw32-gcc", None).unwrap();
        let tc = tc.driver().unwrap();
        let Runner::Wine(w) = tc.runner else { panic!("{:?}", tc.runner) };
        required(w.program());
        required(require_cc(&tc));
        assert_eq!(w.winearch, "win32");
        let exe = build_echo(tc.cc, &scratch("wine32"), "echo.exe");
        check_echo(tc.runner, &exe, Duration::from_secs(300));
        check_killed(tc.runner, &exe);
    }

    /// An i686 Linux program runs on this CPU through the cross C library's loader; without
    /// that library the run names the package.
    #[test]
    fn loader_runner_runs_an_i686_program() {
        let tc = Row::find("i686-unknown-linux-gnu", "i686-linux-gnu-gcc", None).unwrap();
        let tc = tc.driver().unwrap();
        let Runner::Loader(l) = tc.runner else { panic!("{:?}", tc.runner) };
        required(l.require());
        required(require_cc(&tc));
        let exe = build_echo(tc.cc, &scratch("i686"), "echo");
        check_echo(tc.runner, &exe, Duration::from_secs(30));
        check_killed(tc.runner, &exe);
        let missing = CrossLoader { sysroot: "/nonexistent/i686-linux-gnu", ..*l };
        let e = missing.require().unwrap_err().to_string();
        assert!(e.contains("apt install libc6-dev-i386-cross"), "{e}");
    }

    #[test]
    fn each_triple_gets_its_runner_or_the_reason_there_is_none() {
        assert_eq!(Runner::for_triple("x86_64-unknown-linux-gnu"), Ok(Runner::Native));
        let e = Runner::for_triple("loongarch64-unknown-linux-gnu").unwrap_err();
        assert_eq!(e, "no way to run loongarch64-unknown-linux-gnu programs on this machine");
        let wine64 = &WINE_ARCHES[0];
        match (
            wine64.program(),
            Runner::for_triple(crypto_build::data::triples::X86_64_WINDOWS_GNU),
        ) {
            (Ok(_), runner) => assert_eq!(runner, Ok(Runner::Wine(wine64))),
            (Err(_), runner) => assert!(runner.unwrap_err().contains("install wine64")),
        }
        let i686 = Runner::for_triple("i686-unknown-linux-gnu");
        assert!(matches!(i686, Ok(Runner::Loader(_)) | Err(_)), "{i686:?}");
    }

    #[test]
    fn qemu_runner_runs_an_aarch64_program() {
        required(which::which("qemu-aarch64").context("qemu-aarch64: install qemu-user"));
        required(require_cc(&aarch64_gcc()));
        let exe = build_echo(aarch64_gcc().cc, &scratch("qemu"), "echo");
        let qemu = Runner::for_triple("aarch64-unknown-linux-gnu").unwrap();
        check_echo(qemu, &exe, Duration::from_secs(120));
    }
}
