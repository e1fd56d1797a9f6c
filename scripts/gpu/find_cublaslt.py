"""Prints the directory of a libcublasLt.so.13 (or .12) that a pip wheel
(nvidia-cublas, which PyTorch installs) put under site-packages, or
nothing: scripts/gpu-check.sh adds it to LD_LIBRARY_PATH."""
import glob
import os
import site
import sys

dirs = [d for d in sys.path if d.endswith("-packages")]
try:
    dirs += site.getsitepackages() + [site.getusersitepackages()]
except AttributeError:
    pass
for d in dirs:
    hits = sorted(glob.glob(os.path.join(d, "nvidia", "**",
                                         "libcublasLt.so.1[23]*"),
                            recursive=True))
    if hits:
        print(os.path.dirname(hits[-1]))
        break
