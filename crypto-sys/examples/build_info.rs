//! Prints what this build of OpenSSL is, and which fast paths are live on this CPU.

fn main() {
    let info = crypto_sys::build_info();
    println!("OpenSSL {} for {}", info.openssl_version, info.target);
    println!("asm set: requested {}, effective {}", info.requested_set, info.effective_set);
    println!("C compiler: {}", info.c_compiler);
    println!("assembler: {} {}", info.assembler_kind, info.assembler_version);
    println!(
        "C variant: requested {}, built {}",
        info.requested_c_variant,
        info.c_variant.unwrap_or("none (OpenSSL's default configuration)")
    );
    if let Some(v) = info.c_variant_refused {
        println!("downgraded: C variant {v} (the C compiler failed its probe)");
    }
    for d in info.downgrades {
        println!("downgraded: {} from {} to {} (missing {})", d.path, d.from, d.to, d.missing);
    }
    println!("fast paths on this CPU:");
    for p in crypto_sys::fast_paths() {
        let status = match p.status {
            crypto_sys::Status::Live => "live",
            crypto_sys::Status::CpuLacks => "built in, but this CPU lacks it",
            crypto_sys::Status::NotBuilt => "not built in",
        };
        println!("  {:<36} {status}", p.name);
    }
}
