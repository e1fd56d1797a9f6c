# lit configuration for Loom's FileCheck tests.
import os
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "Loom"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.loom_obj_root, "test")

config.substitutions.append(("%loom_src", config.loom_src_root))
config.substitutions.append(("%loom_obj", config.loom_obj_root))
# Python with the packages of python/requirements.txt (lit runs from .venv),
# and Loom's own Python package.
config.substitutions.append(("%python", sys.executable))
config.environment["PYTHONPATH"] = os.path.join(config.loom_src_root, "python")
config.substitutions.append(
    ("%expect_exit", sys.executable + " " +
     os.path.join(config.loom_src_root, "test", "utils", "expect_exit.py")))
config.environment["LOOM_BUILD"] = config.loom_obj_root
config.environment["LOOM_BUILD_IS_CURRENT"] = "1"
# The planner's cache stays out of the tests (test/Planner tests it).
config.environment["LOOM_PLAN_CACHE"] = "off"
config.substitutions.append(("%PATH%", config.environment["PATH"]))

llvm_config.with_system_environment(["HOME", "TMPDIR", "TMP", "TEMP",
                                    "LOOM_CUDA_PATH", "CUDA_HOME", "CUDA_PATH"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.loom_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(["loom-opt", "loomc", "loomrun"],
                                  [config.loom_tools_dir])

# GPU tests: `cuda` when nvidia-smi lists a GPU; `nccl` when this build has
# the NCCL communicator plugin (runtime/comm/nccl).
def _lists_gpu():
    import subprocess
    try:
        listing = subprocess.run(["nvidia-smi", "-L"], capture_output=True,
                                 text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return listing.returncode == 0 and any(
        line.startswith("GPU ") for line in listing.stdout.splitlines())


if _lists_gpu():
    config.available_features.add("cuda")


# `cuda-toolkit`: loomc --target=cuda finds ptxas and libdevice (it looks
# where DeviceCode.cpp's findToolkit does).
def _cuda_toolkit_root():
    root = os.environ.get("LOOM_CUDA_PATH")
    roots = [root] if root else [os.environ.get("CUDA_HOME"),
                                 os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    for r in roots:
        if r and os.access(os.path.join(r, "bin", "ptxas"), os.X_OK) and \
                os.path.exists(os.path.join(r, "nvvm", "libdevice",
                                            "libdevice.10.bc")):
            return r
    return None


_toolkit = _cuda_toolkit_root()
if _toolkit:
    config.available_features.add("cuda-toolkit")
    config.substitutions.append(
        ("%cuda_libdevice",
         os.path.join(_toolkit, "nvvm", "libdevice", "libdevice.10.bc")))
# `cuda-device`: this build has the CUDA device plugin and the host
# stand-ins for libcuda and cuBLASLt it runs against without a GPU.
_cuda_fake = os.path.join(config.loom_obj_root, "cuda-fake", "lib")
if os.path.exists(os.path.join(config.loom_obj_root, "lib",
                               "libloom_device_cuda.so")) and \
        os.path.exists(os.path.join(_cuda_fake, "libcuda.so.1")):
    config.available_features.add("cuda-device")
    config.substitutions.append(("%cuda_fake_lib", _cuda_fake))
if os.path.exists(os.path.join(config.loom_obj_root, "lib",
                               "libloom_comm_nccl.so")):
    config.available_features.add("nccl")
