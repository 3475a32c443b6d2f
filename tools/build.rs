//! Link flags of the tools' binaries.
//!
//! Packed relative relocations (RELR, `-z pack-relative-relocs`): the
//! binaries link MLIR and LLVM statically as position-independent
//! executables, so at every start the dynamic loader reads and applies
//! 272k `R_X86_64_RELATIVE` entries, 6.9 MB of `.rela.dyn`. Packed, they
//! take 50 KB: with the binary in the page cache, `ocannl-opt` on an empty
//! file takes about 10.1 ms instead of 10.5 ms (more when the binary's pages
//! are cold: 6.5 MB less to read). Addresses stay randomised (linking
//! without PIE saves more, but gives that up for tools that read untrusted
//! files). Needs GNU ld 2.38 or lld 15, and glibc 2.36 at run time, which
//! the binaries need anyway.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
