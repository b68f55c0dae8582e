//! The commands a user runs, one module each (a command that grows becomes a folder). They
//! share the floor beneath (`crate::cargo`, `runner`, `prefix`, `driver`, `matrix`) and never
//! use `crate::ci`.

mod bench;
mod build;
mod detect;
mod docs;
mod generate;
mod json;
pub mod lines;
mod package;
mod sources;
mod toolchains;
mod update_openssl;
mod verify;
