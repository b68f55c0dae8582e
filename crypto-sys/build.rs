//! Builds OpenSSL with the asm chosen for this toolchain; the logic lives in crypto-build.

fn main() {
    if let Err(e) = crypto_build::build_script::run() {
        eprintln!("error: crypto-sys: {e:#}");
        std::process::exit(1);
    }
}
