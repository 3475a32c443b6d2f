// The floor under any process that reads a module with MLIR's own parser:
// stock MLIR 22 (libMLIR.so), nothing of ocannl-mlir. It parses FILE (text,
// or bytecode when it starts with MLIR's magic), with unregistered ops
// allowed and verification after parsing on, as `mlir-opt` does, `--repeat`
// times in one process, and prints times in microseconds:
//
//   first context US parse US print US warm context US parse US print US
//
// `context`: an MLIRContext with the func dialect loaded (the least a tool
// needs); `parse`: the module read and verified; `print`: written back as
// text to /dev/null. `first`: the first round, what a process that reads
// one module pays (its code and tables touched for the first time);
// `warm`: the best of the later rounds (-1 with --repeat 1).
// tools/bench/infer_vs_onnx.py builds it (g++ against /usr/lib/llvm-22) and
// runs it on the decoder stack with every `!ocannl.tensor` replaced by the
// builtin `tensor<*xf32>` and the ops left unregistered: no IRDL dialect,
// no verifier of ours, no inference. What it prints bounds from below what
// the whole `ocannl-opt` process can reach against ONNX (the issue-15
// process goal).
//
// Build: g++ -O2 -std=c++17 mlir_parse_floor.cpp -I/usr/lib/llvm-22/include
//          -L/usr/lib/llvm-22/lib -lMLIR -lLLVM -Wl,-rpath,/usr/lib/llvm-22/lib
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace {
using Clock = std::chrono::steady_clock;

/// The most rounds one run does (each parses the whole module).
constexpr long kMaxRepeat = 10000;

long micros(Clock::time_point a, Clock::time_point b) {
  return static_cast<long>(std::chrono::duration_cast<std::chrono::microseconds>(b - a).count());
}
} // namespace

int main(int argc, char **argv) {
  auto usage = [] {
    std::fprintf(stderr, "usage: mlir_parse_floor FILE [--repeat N]\n");
    return 1;
  };
  const char *path = nullptr;
  long repeat = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      char *end = nullptr;
      errno = 0;
      repeat = std::strtol(argv[++i], &end, 10);
      if (end == argv[i] || *end != '\0' || errno == ERANGE || repeat < 1 || repeat > kMaxRepeat) {
        std::fprintf(stderr, "mlir_parse_floor: --repeat takes a count from 1 to %ld, not '%s'\n", kMaxRepeat,
                     argv[i]);
        return 1;
      }
    } else if (!path) {
      path = argv[i];
    } else {
      return usage();
    }
  }
  if (!path)
    return usage();
  // Checked before anything opens a file: with standard output closed, the
  // first file opened (the /dev/null the module is printed to) would take
  // its descriptor and swallow the times.
  if (fcntl(STDOUT_FILENO, F_GETFD) < 0) {
    std::fprintf(stderr, "mlir_parse_floor: standard output is closed\n");
    return 1;
  }
  long first[3] = {-1, -1, -1}, best[3] = {-1, -1, -1};
  for (long r = 0; r < repeat; ++r) {
    auto t0 = Clock::now();
    mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
    ctx.allowUnregisteredDialects();
    ctx.loadDialect<mlir::func::FuncDialect>();
    auto t1 = Clock::now();
    mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceFile<mlir::ModuleOp>(path, &ctx);
    auto t2 = Clock::now();
    if (!module) {
      std::fprintf(stderr, "mlir_parse_floor: %s did not parse\n", path);
      return 1;
    }
    std::error_code ec;
    llvm::raw_fd_ostream null("/dev/null", ec);
    if (ec) {
      std::fprintf(stderr, "mlir_parse_floor: /dev/null: %s\n", ec.message().c_str());
      return 1;
    }
    module->print(null);
    null.flush();
    auto t3 = Clock::now();
    long got[3] = {micros(t0, t1), micros(t1, t2), micros(t2, t3)};
    for (int k = 0; k < 3; ++k) {
      if (r == 0)
        first[k] = got[k];
      else if (best[k] < 0 || got[k] < best[k])
        best[k] = got[k];
    }
  }
  if (std::printf("first context %ld parse %ld print %ld warm context %ld parse %ld print %ld\n", first[0],
                  first[1], first[2], best[0], best[1], best[2]) < 0 ||
      std::fflush(stdout) != 0) {
    std::fprintf(stderr, "mlir_parse_floor: cannot write the times to standard output\n");
    return 1;
  }
  return 0;
}
