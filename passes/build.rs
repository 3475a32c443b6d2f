//! Compiles the C++ shim (`cpp/*.cpp`, map in `cpp/shim.h`) that registers
//! the Rust passes in MLIR's pass registry, defines the C++ passes and runs
//! `MlirOptMain`.

use std::env;

fn main() {
    let prefix = env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    println!("cargo:rerun-if-changed=cpp");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    cc::Build::new()
        .cpp(true)
        .compiler(env::var("CXX").unwrap_or_else(|_| "clang++-22".into()))
        .std("c++17")
        .flag("-fno-rtti")
        .flag("-fno-exceptions")
        .flag("-Wno-unused-parameter")
        .include(format!("{prefix}/include"))
        .files(
            [
                "rust_pass.cpp",
                "math_passes.cpp",
                "outline_nests.cpp",
                "driver.cpp",
                "flow.cpp",
                "nvptx_target.cpp",
                "merge_gpu_modules.cpp",
                "align_workgroup.cpp",
            ]
            .map(|f| format!("cpp/{f}")),
        )
        .compile("ocannl_passes_shim");
}
