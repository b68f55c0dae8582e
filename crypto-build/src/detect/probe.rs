//! Probe snippets: what the assembler can do is decided by having it assemble each one, and
//! what the C compiler can do by having it compile each C variant's probe.

use crate::data::{Arch, Feature};
use std::ffi::OsString;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// One AT&T-syntax snippet per feature class, using the forms OpenSSL's asm uses.
#[rustfmt::skip]
pub const GAS_PROBES: &[(Feature, &str)] = &[
    (Feature::Avx2, "vpbroadcastd %xmm0,%ymm1\nvpermq $0x1b,%ymm1,%ymm2\nvpsllvd %ymm1,%ymm2,%ymm3\n"),
    (Feature::AdxBmi2, "adcxq %rax,%rbx\nadoxq %rax,%rbx\nmulxq %rax,%rbx,%rcx\nrorxq $1,%rax,%rbx\n"),
    (Feature::ShaNi, "sha256rnds2 %xmm0,%xmm1,%xmm2\nsha1rnds4 $0,%xmm1,%xmm2\nsha256msg1 %xmm1,%xmm2\n"),
    (Feature::Avx512, "vpxord %zmm16,%zmm31,%zmm17\nvmovdqu8 (%rdi),%zmm1{%k1}{z}\nkmovq %rax,%k1\nvpternlogq $0x96,%zmm1,%zmm2,%zmm3\nvpxorq %ymm17,%ymm18,%ymm19\n"),
    (Feature::Vaes512, "vaesenc %zmm1,%zmm2,%zmm3\nvaesenclast %zmm1,%zmm2,%zmm3\nvaesdec %ymm1,%ymm2,%ymm3\n"),
    (Feature::Vpclmul512, "vpclmulqdq $0x11,%zmm1,%zmm2,%zmm3\nvpclmulqdq $0x00,%ymm1,%ymm2,%ymm3\n"),
    (Feature::Avx512Ifma, "vpmadd52luq %zmm1,%zmm2,%zmm3\nvpmadd52huq %ymm17,%ymm18,%ymm19\n"),
    (Feature::AvxIfma, "{vex} vpmadd52luq %ymm1,%ymm2,%ymm3\n{vex} vpmadd52huq %ymm1,%ymm2,%ymm3\n"),
    (Feature::Gfni, "gf2p8affineqb $0,%xmm1,%xmm2\ngf2p8mulb %xmm1,%xmm2\n"),
];

/// The same classes in nasm's Intel syntax, for nasm-flavour targets.
#[rustfmt::skip]
pub const NASM_PROBES: &[(Feature, &str)] = &[
    (Feature::Avx2, "vpbroadcastd ymm1, xmm0\nvpermq ymm2, ymm1, 0x1b\nvpsllvd ymm3, ymm2, ymm1\n"),
    (Feature::AdxBmi2, "adcx rbx, rax\nadox rbx, rax\nmulx rcx, rbx, rax\nrorx rbx, rax, 1\n"),
    (Feature::ShaNi, "sha256rnds2 xmm2, xmm1, xmm0\nsha1rnds4 xmm2, xmm1, 0\nsha256msg1 xmm2, xmm1\n"),
    (Feature::Avx512, "vpxord zmm17, zmm31, zmm16\nvmovdqu8 zmm1{k1}{z}, [rdi]\nkmovq k1, rax\nvpternlogq zmm3, zmm2, zmm1, 0x96\n"),
    (Feature::Vaes512, "vaesenc zmm3, zmm2, zmm1\nvaesenclast zmm3, zmm2, zmm1\n"),
    (Feature::Vpclmul512, "vpclmulqdq zmm3, zmm2, zmm1, 0x11\n"),
    (Feature::Avx512Ifma, "vpmadd52luq zmm3, zmm2, zmm1\nvpmadd52huq ymm19, ymm18, ymm17\n"),
    (Feature::AvxIfma, "{vex} vpmadd52luq ymm3, ymm2, ymm1\n"),
    (Feature::Gfni, "gf2p8affineqb xmm2, xmm1, 0\ngf2p8mulb xmm2, xmm1\n"),
];

/// 32-bit x86 AT&T snippets: the classes x86asm.pl's output writes as mnemonics, with 32-bit
/// registers (x86_64's ADX/BMI2 snippet names 64-bit ones, which 32-bit code cannot).
#[rustfmt::skip]
pub const X86_GAS_PROBES: &[(Feature, &str)] = &[
    (Feature::Avx2, "vpbroadcastd %xmm0,%ymm1\nvpermq $0x1b,%ymm1,%ymm2\nvpsllvd %ymm1,%ymm2,%ymm3\n"),
    (Feature::AdxBmi2, "andnl %eax,%ebx,%ecx\nrorxl $1,%eax,%ebx\nshrxl %eax,%ebx,%ecx\nmulxl %eax,%ebx,%ecx\nadcxl %eax,%ebx\n"),
    (Feature::ShaNi, "sha256rnds2 %xmm0,%xmm1,%xmm2\nsha1rnds4 $0,%xmm1,%xmm2\nsha256msg1 %xmm1,%xmm2\n"),
];

/// The same in nasm's Intel syntax, assembled under `BITS 32`.
#[rustfmt::skip]
pub const X86_NASM_PROBES: &[(Feature, &str)] = &[
    (Feature::Avx2, "vpbroadcastd ymm1, xmm0\nvpermq ymm2, ymm1, 0x1b\nvpsllvd ymm3, ymm2, ymm1\n"),
    (Feature::AdxBmi2, "andn ecx, ebx, eax\nrorx ebx, eax, 1\nshrx ecx, ebx, eax\nmulx ecx, ebx, eax\nadcx ebx, eax\n"),
    (Feature::ShaNi, "sha256rnds2 xmm2, xmm1, xmm0\nsha1rnds4 xmm2, xmm1, 0\nsha256msg1 xmm2, xmm1\n"),
];

/// AArch64 snippets, in the forms OpenSSL's linux64 flavour writes them: crypto-extension
/// files say `.arch armv8-a+crypto` themselves, so the probe does too.
#[rustfmt::skip]
pub const ARM_PROBES: &[(Feature, &str)] = &[
    (Feature::Neon, "ld1 {v0.16b,v1.16b},[x0],#32\neor v0.16b,v1.16b,v2.16b\next v3.16b,v0.16b,v0.16b,#8\nrev32 v1.16b,v1.16b\numov x1,v0.d[1]\n"),
    (Feature::ArmCrypto, ".arch armv8-a+crypto\naese v0.16b,v1.16b\naesmc v0.16b,v0.16b\naesd v0.16b,v1.16b\naesimc v0.16b,v0.16b\npmull2 v2.1q,v0.2d,v1.2d\npmull v2.1q,v0.1d,v1.1d\nsha256h q0,q1,v2.4s\nsha256su1 v0.4s,v1.4s,v2.4s\nsha1c q0,s1,v2.4s\n"),
];

/// 32-bit ARM snippets under the directives OpenSSL's linux32 files write (`.arch armv7-a`,
/// `.fpu neon`); its ARMv8 crypto code is `.byte`s, but a crypto mnemonic would need ARMv8's.
#[rustfmt::skip]
pub const ARM32_PROBES: &[(Feature, &str)] = &[
    (Feature::Neon, ".arch armv7-a\n.fpu neon\nvld1.8 {q0},[r0]!\nveor q0,q1,q2\nvext.8 q3,q0,q0,#8\nvrev32.8 q1,q1\nvmull.p8 q0,d0,d1\nvmov r1,r2,d0\nvst1.64 {d0,d1},[r0,:128]!\n"),
    (Feature::ArmCrypto, ".arch armv8-a\n.fpu crypto-neon-fp-armv8\naese.8 q0,q1\naesmc.8 q0,q0\naesd.8 q0,q1\naesimc.8 q0,q0\nvmull.p64 q0,d0,d1\nsha256h.32 q0,q1,q2\nsha1c.32 q0,q1,q2\n"),
];

/// POWER snippets under `.machine "any"`, as every linux64le file says (registers as numbers,
/// the flavour's spelling).
#[rustfmt::skip]
pub const PPC_PROBES: &[(Feature, &str)] = &[
    (Feature::AltivecVsx, ".machine \"any\"\nlvx 1,3,4\nvperm 0,1,2,3\nvxor 0,1,2\nvsldoi 0,1,2,8\nlxvd2x 32,0,3\nxxpermdi 0,1,2,3\nxxlor 32,33,33\n"),
    (Feature::Power8Crypto, ".machine \"any\"\nvcipher 0,1,2\nvcipherlast 0,1,2\nvncipher 0,1,2\nvpmsumd 0,1,2\nvpermxor 0,1,2,3\nvshasigmaw 0,1,0,15\nmtvsrd 32,3\n"),
    (Feature::Power9, ".machine \"any\"\nlxv 32,0(3)\nstxv 32,16(3)\nlxvb16x 32,0,3\nstxvb16x 32,0,3\nlxsd 0,0(3)\nmtvsrdd 32,3,4\nmaddld 3,4,5,6\n"),
    (Feature::Power10, ".machine \"any\"\nlxvp 32,0(3)\nstxvp 32,32(3)\nxxeval 0,1,2,3,4\nbrd 3,4\n"),
];

/// s390x snippets, each under the `.machine` that brought its facility (keccak1600-s390x says
/// `.machine "z10"`); without it GNU as and clang-19 both refuse the vector ones.
#[rustfmt::skip]
pub const S390X_PROBES: &[(Feature, &str)] = &[
    (Feature::Z10, ".machine \"z10\"\ncijne %r6,0,1f\n1:\nrisbg %r1,%r2,0,63,0\n"),
    (Feature::S390xVector, ".machine \"z13\"\nvl %v0,0(%r2)\nvperm %v0,%v1,%v2,%v3\nverllf %v0,%v1,7\nvst %v0,0(%r2)\n"),
    (Feature::S390xMsa, ".machine \"z14\"\nkm %r2,%r4\nkimd %r0,%r2\nkma %r4,%r6,%r8\nkmctr %r2,%r4,%r6\nprno %r2,%r4\n"),
];

/// RISC-V snippets, each enabling its extension with `.option arch` (rv64gc is the cross
/// compilers' default; without it GNU as and clang-19 both refuse `andn`).
#[rustfmt::skip]
pub const RISCV_PROBES: &[(Feature, &str)] = &[
    (Feature::Zbb, ".option arch, +zbb\nandn a0,a1,a2\nrev8 a0,a1\nrori a0,a1,7\nroriw a0,a1,7\nclz a0,a1\n"),
    (Feature::Zbc, ".option arch, +zbc\nclmul a0,a1,a2\nclmulh a0,a1,a2\n"),
    (Feature::Zbkb, ".option arch, +zbkb\npack a0,a1,a2\npackh a0,a1,a2\nbrev8 a0,a1\n"),
    (Feature::Zkn, ".option arch, +zkne, +zknd, +zknh\naes64es a0,a1,a2\naes64esm a0,a1,a2\naes64ds a0,a1,a2\naes64ks1i a0,a1,1\naes64ks2 a0,a1,a2\naes64im a0,a1\nsha256sig0 a0,a1\nsha512sum1 a0,a1\n"),
    (Feature::RiscvV, ".option arch, +v\nvsetivli zero,4,e32,m1,ta,ma\nvle32.v v1,(a0)\nvadd.vv v1,v1,v2\nvxor.vv v1,v1,v2\nvsll.vi v1,v1,7\nvse32.v v1,(a0)\n"),
];

/// The C-compiler-driven probes of an architecture.
pub fn gas_probes(arch: Arch) -> &'static [(Feature, &'static str)] {
    match arch {
        Arch::X86_64 => GAS_PROBES,
        Arch::Aarch64 => ARM_PROBES,
        Arch::Ppc64le => PPC_PROBES,
        Arch::S390x => S390X_PROBES,
        Arch::Riscv64 => RISCV_PROBES,
        Arch::X86 => X86_GAS_PROBES,
        Arch::Arm => ARM32_PROBES,
        // Its one table has no class: nothing to probe.
        Arch::Mips64 => &[],
    }
}

/// The nasm probes of an architecture (x86_64's, or 32-bit x86's).
pub fn nasm_probes(arch: Arch) -> &'static [(Feature, &'static str)] {
    match arch {
        Arch::X86 => X86_NASM_PROBES,
        _ => NASM_PROBES,
    }
}

/// Assembles `snippet` with nasm (which reads only files) as `arch`'s code; true when it
/// succeeds.
pub fn nasm_assembles(
    nasm: &Path,
    arch: Arch,
    format: &str,
    snippet: &str,
    scratch: &Path,
) -> bool {
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let src = scratch.join(format!("probe-{}-{n}.asm", std::process::id()));
    let obj = src.with_extension("o");
    let bits = if arch == Arch::X86 { 32 } else { 64 };
    if std::fs::write(&src, format!("BITS {bits}\nsection .text\n{snippet}")).is_err() {
        return false;
    }
    let ok = Command::new(nasm)
        .args(["-f", format, "-o"])
        .arg(&obj)
        .arg(&src)
        .env("LC_ALL", "C")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let _ = std::fs::remove_file(&src);
    let _ = std::fs::remove_file(&obj);
    ok
}

static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Assembles `snippet` with the C compiler driver and its arguments; true when it succeeds.
pub fn assembles(driver: &Path, args: &[OsString], snippet: &str, scratch: &Path) -> bool {
    compiles_stdin(driver, args, "assembler", &format!(".text\n{snippet}"), scratch)
}

/// Compiles the C `source` with the C compiler and its arguments; true when it succeeds.
pub fn c_compiles(compiler: &Path, args: &[OsString], source: &str, scratch: &Path) -> bool {
    compiles_stdin(compiler, args, "c", source, scratch)
}

/// Feeds `text` to `driver -c -x <lang> -`, in the C locale, and throws the object away.
fn compiles_stdin(
    driver: &Path,
    args: &[OsString],
    lang: &str,
    text: &str,
    scratch: &Path,
) -> bool {
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let obj = scratch.join(format!("probe-{}-{n}.o", std::process::id()));
    let child = Command::new(driver)
        .args(args)
        .args(["-c", "-x", lang, "-", "-o"])
        .arg(&obj)
        .env("LC_ALL", "C")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else { return false };
    let wrote = child.stdin.take().is_some_and(|mut s| s.write_all(text.as_bytes()).is_ok());
    let ok = child.wait().is_ok_and(|s| s.success()) && wrote;
    let _ = std::fs::remove_file(&obj);
    ok
}
