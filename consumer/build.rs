//! Compiles this crate's own C against the headers crypto-sys exports through `links`.

/// crypto-sys's keys arrive as `DEP_<its links key>_<KEY>`, and its links key carries its
/// version (`crypto_sys_0_1_0`): a dependent that follows its versions finds the one key that
/// every version emits, `symbol_prefix`, and reads the others beside it.
fn dep_prefix() -> String {
    let keys: Vec<String> = std::env::vars()
        .filter_map(|(k, _)| k.strip_suffix("_SYMBOL_PREFIX").map(str::to_string))
        .filter(|k| k.starts_with("DEP_CRYPTO_SYS_"))
        .collect();
    match &keys[..] {
        [one] => format!("{one}_"),
        _ => panic!("expected one DEP_CRYPTO_SYS_*_SYMBOL_PREFIX from crypto-sys, got {keys:?}"),
    }
}

fn main() {
    let dep = dep_prefix();
    let var = |key: &str| {
        let name = format!("{dep}{}", key.to_uppercase());
        std::env::var(&name).unwrap_or_else(|_| panic!("crypto-sys exports {name}"))
    };
    let include = var("include");
    let version = var("version");
    let set = var("asm_set");
    // Every key crypto-sys documents (its build's table) against every one that arrived.
    let mut seen: Vec<String> =
        std::env::vars().filter_map(|(k, _)| k.strip_prefix(&dep).map(str::to_lowercase)).collect();
    seen.sort();
    let mut documented: Vec<&str> =
        crypto_build::build_script::LINK_METADATA.iter().map(|k| k.key).collect();
    documented.sort();
    println!("cargo:rustc-env=CONSUMER_SAW_KEYS={}", seen.join(","));
    println!("cargo:rustc-env=CONSUMER_DOCUMENTED_KEYS={}", documented.join(","));
    for key in ["c_variant", "legacy", "symbol_prefix"] {
        let name = format!("CONSUMER_SAW_{}", key.to_uppercase());
        println!("cargo:rustc-env={name}={}", var(key));
    }
    println!("cargo:rerun-if-changed=c/digest.c");
    println!("cargo:rustc-env=CONSUMER_SAW_VERSION={version}");
    println!("cargo:rustc-env=CONSUMER_SAW_ASM_SET={set}");
    cc::Build::new().file("c/digest.c").include(include).compile("consumer_c");
}
