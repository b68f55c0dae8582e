//! One benchmark run: every figure of `cargo xtask bench`, printed as `figure<TAB>unit<TAB>value`,
//! where the value is `n/a` for a figure the measured library cannot do.
//!
//! One backend per binary: OpenSSL through its C API (feature `ours` for crypto-sys,
//! `vendored-default` for the default line's openssl-src, the scratch project of
//! `bench/vendored.rs` for another line's), or ring or aws-lc-rs through their own Rust APIs.
//! Each library carries its own copy of much of the same C, so they are never linked into one
//! binary.
// Without any backend the binary only says so.
#![cfg_attr(not(any(openssl_c_api, feature = "ring", feature = "aws-lc-rs")), allow(dead_code))]

#[cfg(feature = "aws-lc-rs")]
mod aws_lc_backend;
#[cfg(openssl_c_api)]
mod ffi;
#[cfg(openssl_c_api)]
mod openssl;
#[cfg(feature = "ring")]
mod ring_backend;

use std::time::{Duration, Instant};

/// A figure's name, unit and value; `None` when the library cannot do it.
type Figure = (String, &'static str, Option<f64>);

/// Every backend built into this binary: its name and what it measures.
type Backend = (&'static str, fn(Duration) -> Vec<Figure>);

const BACKENDS: &[Backend] = &[
    #[cfg(openssl_c_api)]
    ("OpenSSL", openssl::figures),
    #[cfg(feature = "ring")]
    ("ring", ring_backend::figures),
    #[cfg(feature = "aws-lc-rs")]
    ("aws-lc-rs", aws_lc_backend::figures),
];

/// The AEADs every backend seals, with their key lengths.
const AEADS: [(&str, usize); 3] =
    [("AES-256-GCM", 32), ("AES-128-GCM", 16), ("ChaCha20-Poly1305", 32)];

/// The message 16 KiB and 1 KiB, aligned and one byte off: the AEAD figures of `name`,
/// each measured by `seal_rate(len, offset)` (MB/s).
fn aead_figures(name: &str, mut seal_rate: impl FnMut(usize, usize) -> f64) -> Vec<Figure> {
    let mut out = Vec::new();
    for (len, label) in [(16384, "16 KiB"), (1024, "1 KiB")] {
        for (offset, align) in [(0, "aligned"), (1, "misaligned")] {
            let v = seal_rate(len, offset);
            out.push((format!("{name} seal {label} {align}"), "MB/s", Some(v)));
        }
    }
    out
}

/// A figure the library cannot do: printed, so that the gap shows in every table.
#[cfg_attr(not(any(feature = "ring", feature = "aws-lc-rs")), allow(dead_code))]
fn missing(figure: &str, unit: &'static str) -> Figure {
    (figure.into(), unit, None)
}

/// Calls `op` in growing batches until `budget` has passed; returns calls per second.
fn rate(budget: Duration, mut op: impl FnMut()) -> f64 {
    let start = Instant::now();
    let (mut calls, mut batch) = (0u64, 1u64);
    while start.elapsed() < budget {
        for _ in 0..batch {
            op();
        }
        calls += batch;
        batch = (batch * 2).min(1 << 16);
    }
    calls as f64 / start.elapsed().as_secs_f64()
}

/// A buffer whose data starts `offset` bytes past a 64-byte boundary.
struct Buf {
    raw: Vec<u8>,
    start: usize,
    len: usize,
}

impl Buf {
    fn new(len: usize, offset: usize) -> Buf {
        let raw = vec![0x5au8; len + 128];
        let start = (64 - (raw.as_ptr() as usize % 64)) % 64 + offset;
        Buf { raw, start, len }
    }
    // Only the OpenSSL backend hands out raw pointers.
    #[cfg_attr(not(openssl_c_api), allow(dead_code))]
    fn ptr(&mut self) -> *mut u8 {
        self.raw[self.start..].as_mut_ptr()
    }
    #[cfg_attr(not(any(feature = "ring", feature = "aws-lc-rs")), allow(dead_code))]
    fn bytes(&mut self) -> &mut [u8] {
        &mut self.raw[self.start..self.start + self.len]
    }
}

fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0.3);
    let [(_, figures)] = BACKENDS else {
        let names: Vec<&str> = BACKENDS.iter().map(|b| b.0).collect();
        eprintln!(
            "crypto-bench measures one library per binary; this one has [{}]: build it with \
             exactly one of the features ours, vendored-default, ring, aws-lc-rs (and \
             --no-default-features for the last three)",
            names.join(", ")
        );
        std::process::exit(2);
    };
    for (figure, unit, value) in figures(Duration::from_secs_f64(secs)) {
        match value {
            Some(v) => println!("{figure}\t{unit}\t{v:.1}"),
            None => println!("{figure}\t{unit}\tn/a"),
        }
    }
}
