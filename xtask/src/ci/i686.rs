//! The `i686` steps of `cargo xtask test`: i686 Linux built without cargo with each of its
//! matrix rows and sets, every prefix checked by the C driver on this CPU on every
//! OPENSSL_ia32cap path of the 32-bit asm (`qemu::run`, whose runner for it is the cross C
//! library's loader): gcc's `auto` by default (Rust's tier 1), its `no_asm` and clang-19's
//! with `--full` (`i686-full`); then, by default, the bad input a 32-bit target meets: its C
//! library missing, and the nistp C variant, which needs `__uint128_t`.

use crate::matrix::I686_GCC;
use anyhow::{bail, Result};
use crypto_build::data::triples::I686_LINUX;
use crypto_build::data::NISTP;
use xshell::Shell;

/// `full`: the sets only `--full` adds (gcc's no_asm, clang-19's builds); else gcc's `auto`
/// and the bad input.
pub fn run(sh: &Shell, full: bool) -> Result<()> {
    super::qemu::run(sh, I686_LINUX, full)?;
    if full {
        return Ok(());
    }
    bad_input(sh)
}

/// A build that must be refused: why, the i686 CFLAGS it gets, its arguments, and what the
/// one line must say.
struct Case {
    case: &'static str,
    cflags: &'static str,
    args: &'static [&'static str],
    want: &'static str,
}

/// A compiler that searches no system header directory stands for one without
/// libc6-dev-i386-cross (Debian's cross gcc finds its headers beside its own install, whatever
/// `--sysroot` says).
const CASES: &[Case] = &[
    Case {
        case: "an i686 gcc without its C library",
        cflags: "-nostdinc",
        args: &[],
        want: "for i686-unknown-linux-gnu cannot compile against its C library (<stdio.h>): \
               install gcc for i686 (Debian: apt install gcc-i686-linux-gnu libc6-dev-i386-cross)",
    },
    Case {
        case: "--c-variant ec_nistp_64_gcc_128",
        cflags: "",
        args: &["--c-variant", NISTP],
        want: "linux-elf: a 32-bit target's C compiler has no __uint128_t",
    },
];

/// Each case is refused in one line naming what to do, and installs no prefix.
fn bad_input(sh: &Shell) -> Result<()> {
    let prefix = super::line_target_dir("qemu-prefix", super::line()).join("i686-bad-input");
    for Case { case, cflags, args, want } in CASES {
        let _env = sh.push_env("CFLAGS_i686_unknown_linux_gnu", cflags);
        crate::prefix::remove_earlier(&prefix)?;
        let args = [args, &super::line_args()[..]].concat();
        match crate::cargo::for_target(sh, I686_LINUX, I686_GCC, &args, &prefix) {
            Err(e) if format!("{e:#}").contains(want) && !prefix.exists() => {
                let text = format!("{e:#}");
                let said = text.lines().find(|l| l.contains(want)).unwrap_or(want).trim();
                println!("{case}: refused: {said}");
            }
            other => bail!("{case} must fail saying `{want}`, got {other:?}"),
        }
    }
    Ok(())
}
