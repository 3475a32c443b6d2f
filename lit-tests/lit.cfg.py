# lit configuration of the ocannl-mlir suite. Run it through the README test
# command (`scripts/test.sh`) or `cargo test -p ocannl-tools --test lit`,
# which build ocannl-opt first and set OCANNL_BIN_DIR; by hand:
#   OCANNL_BIN_DIR=target/debug /usr/lib/llvm-22/bin/lit -v lit-tests
import os

import lit.formats

config.name = "ocannl"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Output", "lit.cfg.py"]

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
config.test_source_root = here
config.test_exec_root = os.path.join(root, "target", "lit")

llvm_bin = os.environ.get("OCANNL_LLVM_BIN", "/usr/lib/llvm-22/bin")
ocannl_bin = os.environ.get("OCANNL_BIN_DIR", os.path.join(root, "target", "debug"))

# `--param ocannl_plugin=PATH/OcannlMLIRPlugin.so`: the suite runs a second
# time with every `ocannl-opt` replaced by stock mlir-opt loading the plugin
# (cmake/; tools/tests/plugin/check.sh). Tests that never run ocannl-opt
# (only ocannl-run) are `UNSUPPORTED: plugin`.
plugin = lit_config.params.get("ocannl_plugin")
if plugin:
    if not os.path.exists(plugin):
        lit_config.fatal(f"ocannl_plugin: {plugin} does not exist")
    config.name = "ocannl-plugin"
    config.available_features.add("plugin")
    config.test_exec_root = os.path.join(root, "target", "lit-plugin")
    stock = os.path.join(llvm_bin, "mlir-opt")
    config.substitutions.append(
        (r"\bocannl-opt\b",
         f"{stock} --load-dialect-plugin={plugin} --load-pass-plugin={plugin}"))

if not os.path.exists(os.path.join(ocannl_bin, "ocannl-opt")):
    lit_config.fatal(f"ocannl-opt not found in {ocannl_bin}: build it or set OCANNL_BIN_DIR")

# Tools resolve from here first: ocannl-opt, then LLVM 22's mlir-opt,
# FileCheck, not, count (never /usr/bin's older LLVM).
config.environment["PATH"] = os.pathsep.join([ocannl_bin, llvm_bin, os.environ.get("PATH", "")])
for var in ["HOME", "TMPDIR"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

# %irdl: the checked-in IRDL definition, as stock `mlir-opt --irdl-file=%irdl`
# loads it.
config.substitutions.append(("%irdl", os.path.join(root, "dialect", "ocannl.irdl.mlir")))
