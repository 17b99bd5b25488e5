# -*- Python -*-
# lit configuration of kgen's integration tests.
import os
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "KGEN"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kgen_obj_root, "test")

config.substitutions.append(("%kgen_src_root", config.kgen_src_root))
config.substitutions.append(("%kgen_docs_dir", config.kgen_docs_dir))
config.substitutions.append(("%kgen_tools_dir", config.kgen_tools_dir))
# The Python running lit (Debian's /usr/bin/python3, with python3-numpy).
config.substitutions.append(("%python", sys.executable))

# nvcc, when the CUDA toolkit is there: emitted kernels must compile.
if config.cuda_nvcc and os.path.exists(config.cuda_nvcc):
    config.available_features.add("nvcc")
    config.substitutions.append(
        ("%nvcc", f"{config.cuda_nvcc} -std=c++17 -I{config.kgen_src_root}/codegen/include"))

# The legality's property check (test/unit), built with the CUDA toolkit: its
# accepted configs feed the CPU check of their schedules.
legality_tests = os.path.join(config.kgen_obj_root, "test", "unit",
                              "kgen-legality-tests")
if os.path.exists(legality_tests):
    config.available_features.add("legality-tests")
    config.substitutions.append(("%kgen_legality_tests", legality_tests))

# kgen-bench is built with the CUDA toolkit (compile mode needs no GPU).
if os.path.exists(os.path.join(config.kgen_tools_dir, "kgen-bench")):
    config.available_features.add("kgen-bench")

# Headless Chromium (Debian's chromium, scripts/dev.sh installs it): the
# HTML report is opened in it (test/Tools/kgen-bench-report-html.test).
import shutil
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if chromium:
    config.available_features.add("chromium")
    config.substitutions.append(("%chromium", chromium))

# Slurm and munge from Debian's packages (scripts/dev.sh test installs
# them): test/slurm starts a single-node cluster of the test's own processes.
if all(shutil.which(t) or os.path.exists(os.path.join("/usr/sbin", t))
       for t in ("slurmctld", "slurmd", "munged", "sbatch", "squeue", "scancel")):
    config.available_features.add("slurm")

llvm_config.with_system_environment(["HOME", "TMPDIR"])
llvm_config.use_default_substitutions()

tool_dirs = [config.kgen_tools_dir, config.llvm_tools_dir]
# FileCheck, not, count and the kgen tools are found on PATH too.
for d in tool_dirs:
    llvm_config.with_environment("PATH", d, append_path=True)
llvm_config.add_tool_substitutions(
    ["kgen-opt", "kgen-run", "kgen-translate", "kgen-bench", "kgen-tune"],
    tool_dirs)
