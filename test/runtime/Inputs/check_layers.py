"""check_layers.py RUNTIME_DIR: checks the runtime's layering (runtime/README.md).

Every source and header under RUNTIME_DIR belongs to a layer, by folder or,
for the public headers in include/loom/runtime, by the table below. A file
may include headers of its own layer and of the layers below it only, and
train and launch, which sit side by side, not each other. Also checked:
no include loop among the runtime's own headers, no file over 1000 lines,
and packed GEMM weights touched only inside devices/cpu (everything else
goes through the device's parameter-update hook). Prints one line per
problem and exits 1, or prints a summary.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'utils'))
from layering import INCLUDE, include_loops, too_long  # noqa: E402

ORDER = {"abi": 0, "io": 1, "devices": 2, "comm": 3, "core": 4, "train": 5,
         "launch": 5, "tools": 6, "device plugins": 7}
# Device plugins (loaded with dlopen, included by nothing) may use the
# runtime's C API up to the collectives.
PLUGINS = [os.path.join("devices", "cuda")]

PUBLIC = {
    "ABI.h": "abi",
    "Base.h": "io", "Support.h": "io", "Json.h": "io", "Npy.h": "io",
    "Safetensors.h": "io",
    "Device.h": "devices", "DeviceBackend.h": "devices", "Kernels.h": "devices",
    "Communicator.h": "comm", "CommBackend.h": "comm",
    "Collectives.h": "comm", "MeanDivision.h": "comm", "Launch.h": "comm",
    "Runtime.h": "core",
    "Train.h": "train", "Checkpoint.h": "train",
    "Launcher.h": "launch",
}



def layer_of(root, path):
    rel = os.path.relpath(path, root)
    parts = rel.split(os.sep)
    if parts[0] == "include":
        return PUBLIC.get(parts[-1])
    if any(rel.startswith(p + os.sep) for p in PLUGINS):
        return "device plugins"
    return parts[0] if parts[0] in ORDER else None


def resolve(root, source, name):
    """The file an #include "name" in `source` means, or None (not ours)."""
    if name.startswith("loom/runtime/"):
        return os.path.join(root, "include", name)
    for base in (os.path.dirname(source), root):
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.exists(candidate):
            return candidate
    return None


def main():
    root = os.path.abspath(sys.argv[1])
    problems = []
    files = []
    for dirpath, _, names in os.walk(root):
        for name in names:
            if name.endswith((".h", ".c", ".cpp")):
                files.append(os.path.join(dirpath, name))
    graph = {}
    for path in sorted(files):
        rel = os.path.relpath(path, root)
        text = open(path, encoding="utf-8").read()
        long = too_long(rel, text)
        if long:
            problems.append(long)
        layer = layer_of(root, path)
        if layer is None:
            problems.append(f"{rel}: in no layer")
            continue
        if "packed::" in text and not rel.startswith(
                os.path.join("devices", "cpu")):
            problems.append(f"{rel}: uses packed:: outside devices/cpu")
        graph[path] = []
        for name in INCLUDE.findall(text):
            target = resolve(root, path, name)
            if target is None:
                continue  # a system or third-party header
            graph[path].append(target)
            other = layer_of(root, target)
            if other is None:
                problems.append(f"{rel}: includes {name}, which is in no "
                                "layer")
            elif (ORDER[other] > ORDER[layer] or
                  (ORDER[other] == ORDER[layer] and other != layer)):
                problems.append(f"{rel} ({layer}) includes {name} ({other})")
    # Include loops, by depth-first search.
    problems += include_loops(graph, root)
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"layers: {len(files)} files, every include goes down or stays "
          "in its layer, no loops")
    return 0


if __name__ == "__main__":
    sys.exit(main())
