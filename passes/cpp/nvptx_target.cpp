//===- nvptx_target.cpp - The NVPTX chip and PTX version, checked ---------===//
//
// `ocannl-to-nvvm{chip features}` and `ocannl-run --chip --ptx-version`
// name an NVPTX processor and a PTX ISA version. LLVM's NVPTX back end
// aborts the process on a pair it cannot compile ("PTX version 8.0 does not
// support target 'sm_100'") and, given a processor it does not know, warns
// and goes on with a target that is not the user's. So both are checked
// here, before any pass runs, against what the linked LLVM knows: its
// processors and its `ptxNN` features, and the lowest PTX version LLVM 22
// compiles each processor for (`kLeastPtx`: `sm_100` needs `ptx86`).
//
//===----------------------------------------------------------------------===//

#include "shim.h"

#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

#include <cstring>
#include <mutex>

extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTargetMC();

namespace {

constexpr const char *kTriple = "nvptx64-nvidia-cuda";

/// The NVPTX subtarget information of LLVM's default processor: its
/// processors and features; null when LLVM has no NVPTX target.
std::unique_ptr<llvm::MCSubtargetInfo> subtarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
  });
  std::string error;
  llvm::Triple triple(kTriple);
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  return std::unique_ptr<llvm::MCSubtargetInfo>(
      target->createMCSubtargetInfo(triple, "", ""));
}

/// The lowest PTX version (`NN` of `ptxNN`) LLVM 22's NVPTX back end
/// compiles each processor for: the default it picks without a `ptxNN`
/// feature, below which it aborts ("PTX version 8.0 does not support
/// target 'sm_100'"). The subtarget's feature bits do not carry it (the
/// back end computes it in `NVPTXSubtarget`), so it is written here, as
/// measured with `llc -mcpu=CHIP -mattr=+ptxNN` for every processor `llc
/// -march=nvptx64 -mcpu=help` lists; a processor missing here (a newer
/// LLVM) is refused as unknown rather than guessed.
const std::pair<const char *, unsigned> kLeastPtx[] = {
    {"sm_20", 32},   {"sm_21", 32},   {"sm_30", 32},   {"sm_32", 40},   {"sm_35", 32},
    {"sm_37", 41},   {"sm_50", 40},   {"sm_52", 41},   {"sm_53", 42},   {"sm_60", 50},
    {"sm_61", 50},   {"sm_62", 50},   {"sm_70", 60},   {"sm_72", 61},   {"sm_75", 63},
    {"sm_80", 70},   {"sm_86", 71},   {"sm_87", 74},   {"sm_88", 90},   {"sm_89", 78},
    {"sm_90", 78},   {"sm_90a", 80},  {"sm_100", 86},  {"sm_100a", 86}, {"sm_100f", 88},
    {"sm_101", 86},  {"sm_101a", 86}, {"sm_101f", 88}, {"sm_103", 88},  {"sm_103a", 88},
    {"sm_103f", 88}, {"sm_110", 90},  {"sm_110a", 90}, {"sm_110f", 90}, {"sm_120", 87},
    {"sm_120a", 87}, {"sm_120f", 88}, {"sm_121", 88},  {"sm_121a", 88}, {"sm_121f", 88},
};

/// `ptxNN` as NN (0 when `name` is not of that form).
unsigned ptxNumber(llvm::StringRef name) {
  unsigned n = 0;
  if (!name.consume_front("ptx") || name.getAsInteger(10, n))
    return 0;
  return n;
}

/// NN as "N.N".
std::string dotted(unsigned n) { return std::to_string(n / 10) + "." + std::to_string(n % 10); }

/// `text` quoted with C escapes (a newline or a non-ASCII byte shows).
std::string quoted(llvm::StringRef text) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << '\'';
  os.write_escaped(text, /*UseHexEscapes=*/true);
  os << '\'';
  return out;
}

/// Checks `chip` and `features` (`+ptxNN`, or `auto`: the lowest PTX
/// version the chip allows, at least 8.0) and writes the features to use
/// into `resolved`; on failure writes the reason into `error`.
bool resolve(llvm::StringRef chip, llvm::StringRef features, std::string &resolved,
             std::string &error) {
  std::unique_ptr<llvm::MCSubtargetInfo> any = subtarget();
  if (!any) {
    error = "this build of LLVM has no NVPTX target";
    return false;
  }
  // The PTX versions LLVM knows.
  std::vector<unsigned> ptx;
  for (const llvm::SubtargetFeatureKV &f : any->getAllProcessorFeatures())
    if (unsigned n = ptxNumber(f.Key))
      ptx.push_back(n);
  std::sort(ptx.begin(), ptx.end());
  unsigned least = 0;
  for (const auto &[name, n] : kLeastPtx)
    if (chip == name)
      least = n;
  bool known = false;
  for (const llvm::SubtargetSubTypeKV &p : any->getAllProcessorDescriptions())
    known |= chip == p.Key;
  if (!known || !least) {
    // In the table's order (by architecture: sm_20 ... sm_121f).
    std::string names;
    for (const auto &[name, n] : kLeastPtx)
      for (const llvm::SubtargetSubTypeKV &p : any->getAllProcessorDescriptions())
        if (llvm::StringRef(p.Key) == name)
          names += (names.empty() ? "" : ", ") + std::string(p.Key);
    error = "unknown chip " + quoted(chip) + " (a virtual architecture such as compute_80 " +
            "is not one): LLVM's NVPTX back end knows " + names;
    return false;
  }
  unsigned wanted;
  if (features == "auto") {
    wanted = std::max(least, 80u);
  } else {
    llvm::StringRef name = features;
    wanted = name.consume_front("+") ? ptxNumber(name) : 0;
    bool ptxKnown = std::find(ptx.begin(), ptx.end(), wanted) != ptx.end();
    if (!wanted || !ptxKnown) {
      error = "features " + quoted(features) + " is not a PTX version LLVM knows: give +ptxNN, " +
              "from +ptx" + std::to_string(ptx.empty() ? 0 : ptx.front()) + " to +ptx" +
              std::to_string(ptx.empty() ? 0 : ptx.back()) + " (or auto)";
      return false;
    }
    if (wanted < least) {
      error = "PTX " + dotted(wanted) + " does not support chip " + quoted(chip) + ": it needs " +
              "PTX " + dotted(least) + " or later (+ptx" + std::to_string(least) + ")";
      return false;
    }
  }
  resolved = "+ptx" + std::to_string(wanted);
  return true;
}

} // namespace

namespace ocannl {
bool resolveNvptxTarget(llvm::StringRef chip, llvm::StringRef features, std::string &resolved,
                        std::string &error) {
  return resolve(chip, features, resolved, error);
}
} // namespace ocannl

extern "C" {
/// [`resolve`] for Rust: the resolved features (or the error) are copied
/// into `out` (`outLen` bytes, NUL-terminated, cut if longer); returns
/// whether the pair is valid.
bool ocannlResolveNvptxTarget(const char *chip, intptr_t chipLen, const char *features,
                              intptr_t featuresLen, char *out, intptr_t outLen) {
  std::string resolved, error;
  bool ok = resolve(llvm::StringRef(chip, chipLen), llvm::StringRef(features, featuresLen),
                    resolved, error);
  const std::string &text = ok ? resolved : error;
  if (outLen > 0) {
    size_t n = std::min(text.size(), static_cast<size_t>(outLen - 1));
    std::memcpy(out, text.data(), n);
    out[n] = '\0';
  }
  return ok;
}
} // extern "C"
