//! `patch-cross TARGET HOST OUT_DIR`: openssl-src's `Build` (the patch crate's) for TARGET,
//! the way openssl-sys's build script calls it; prints the artifacts' directories.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [target, host, out_dir] = &args[..] else {
        eprintln!("usage: patch-cross TARGET HOST OUT_DIR");
        std::process::exit(2);
    };
    let artifacts = openssl_src::Build::new().target(target).host(host).out_dir(out_dir).build();
    println!("lib_dir: {}", artifacts.lib_dir().display());
    println!("include_dir: {}", artifacts.include_dir().display());
    println!("libs: {}", artifacts.libs().join(" "));
}
