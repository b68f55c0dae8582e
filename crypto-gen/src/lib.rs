//! What a maintainer runs, apart from what a build runs (`crypto-build`): the generator
//! (OpenSSL's Configure and perlasm under a faked identity, the asm scan, the hash lock's
//! entries) and the making of each line's source crate. xtask links it; in this repository
//! crypto-build's build runs its binary (`src/main.rs`) for a set or a tree a fresh clone lacks.
//! Nothing here is compiled into a packaged crypto-sys or `openssl-src` patch.

pub mod generate;
pub mod source;
