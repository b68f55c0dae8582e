//! Compiles this crate's own C against the headers crypto-sys exports through `links`.

fn main() {
    let include = std::env::var("DEP_CRYPTO_SYS_INCLUDE")
        .expect("crypto-sys exports DEP_CRYPTO_SYS_INCLUDE through its links key");
    let version = std::env::var("DEP_CRYPTO_SYS_VERSION").expect("DEP_CRYPTO_SYS_VERSION");
    let set = std::env::var("DEP_CRYPTO_SYS_ASM_SET").expect("DEP_CRYPTO_SYS_ASM_SET");
    // Every key crypto-sys documents (its build's table) against every one that arrived.
    let mut seen: Vec<String> = std::env::vars()
        .filter_map(|(k, _)| k.strip_prefix("DEP_CRYPTO_SYS_").map(str::to_lowercase))
        .collect();
    seen.sort();
    let mut documented: Vec<&str> =
        crypto_build::build_script::LINK_METADATA.iter().map(|k| k.key).collect();
    documented.sort();
    println!("cargo:rustc-env=CONSUMER_SAW_KEYS={}", seen.join(","));
    println!("cargo:rustc-env=CONSUMER_DOCUMENTED_KEYS={}", documented.join(","));
    for key in ["c_variant", "legacy"] {
        let value = std::env::var(format!("DEP_CRYPTO_SYS_{}", key.to_uppercase()));
        let name = format!("CONSUMER_SAW_{}", key.to_uppercase());
        println!("cargo:rustc-env={name}={}", value.unwrap_or_default());
    }
    println!("cargo:rerun-if-changed=c/digest.c");
    println!("cargo:rustc-env=CONSUMER_SAW_VERSION={version}");
    println!("cargo:rustc-env=CONSUMER_SAW_ASM_SET={set}");
    cc::Build::new().file("c/digest.c").include(include).compile("consumer_c");
}
