//! Compiles this crate's own C against the headers crypto-sys exports through `links`.

fn main() {
    let include = std::env::var("DEP_CRYPTO_SYS_INCLUDE")
        .expect("crypto-sys exports DEP_CRYPTO_SYS_INCLUDE through its links key");
    let version = std::env::var("DEP_CRYPTO_SYS_VERSION").expect("DEP_CRYPTO_SYS_VERSION");
    let set = std::env::var("DEP_CRYPTO_SYS_ASM_SET").expect("DEP_CRYPTO_SYS_ASM_SET");
    println!("cargo:rerun-if-changed=c/digest.c");
    println!("cargo:rustc-env=CONSUMER_SAW_VERSION={version}");
    println!("cargo:rustc-env=CONSUMER_SAW_ASM_SET={set}");
    cc::Build::new().file("c/digest.c").include(include).compile("consumer_c");
}
