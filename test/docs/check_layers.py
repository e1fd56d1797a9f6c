"""check_layers.py REPO: checks the compiler's layering (docs/Architecture.md).

Every C++ source and header of the compiler (include/loom, dialects, passes,
lib, tools) belongs to a layer, by the table below; a file may include
headers of its own layer and of the layers below it, never above. The
runtime's ABI.h (plain C, no code) may be included anywhere; no other
runtime header may. Also checked: no include loop among the compiler's
headers, no source over 1000 lines, and no attribute name spelled as a
string literal outside the dialects that declare it. Prints one line per
problem and exits 1, or prints a summary.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'utils'))
from layering import INCLUDE, include_loops, too_long  # noqa: E402

# (layer, rank, path prefixes) from the ground up; the first match wins, so
# the passes that live beside a target come before the target.
LAYERS = [
    ("support", 0, ["include/loom/Support/", "lib/Support/"]),
    ("dialects", 1, ["dialects/", "include/loom/Dialect/",
                     "include/loom/Interfaces/"]),
    ("analysis", 2, ["include/loom/CostModel/", "lib/CostModel/"]),
    ("transforms", 3, [
        "passes/", "include/loom/Passes/", "lib/Conversion/",
        "include/loom/Conversion/", "lib/Transforms/",
        "include/loom/Transforms/",
        "lib/Target/CPU/ApproximateMath.cpp",
        "lib/Target/CPU/LinalgToKernels.cpp",
        "lib/Target/CPU/OutlineKernels.cpp",
        "include/loom/Target/CPU/Passes.h",
        "lib/Target/CUDA/Chips.cpp",
        "lib/Target/CUDA/EmulateLaunches.cpp",
        "lib/Target/CUDA/GatherKernels.cpp",
        "lib/Target/CUDA/HostOps.cpp",
        "lib/Target/CUDA/HostOps.h",
        "lib/Target/CUDA/LegalizeMath.cpp",
        "lib/Target/CUDA/MapToGPU.cpp",
        "include/loom/Target/CUDA/Chips.h",
        "include/loom/Target/CUDA/Passes.h",
        "lib/Target/Artifact/EntrySignature.cpp",
        "lib/Target/Artifact/PrepareEntry.cpp",
        "include/loom/Target/Artifact/EntrySignature.h",
        "include/loom/Target/Artifact/Passes.h",
        "include/loom/Target/Artifact/ArtifactFormat.h"]),
    ("pipelines", 4, ["lib/Pipelines/", "include/loom/Pipelines/"]),
    ("frontend, planner", 5, ["lib/Frontend/", "include/loom/Frontend/",
                              "lib/Planner/", "include/loom/Planner/"]),
    ("targets", 6, ["lib/Target/", "include/loom/Target/"]),
    ("registration", 7, ["lib/Registration/", "include/loom/InitAll.h"]),
    ("driver", 8, ["lib/Driver/", "include/loom/Driver/"]),
    ("tools", 9, ["tools/"]),
]
ROOTS = ["include/loom", "dialects", "passes", "lib", "tools"]
# A discardable attribute spelled as a literal where attributes are read or
# written (getAttr("nn.name"), setArgAttr(i, "dist.sharding", ...)): the
# dialects declare them and code uses their declared names.
ATTR_LITERAL = re.compile(
    r'(?:Attr\w*|getAs<[^>]*>|NamedAttr|Attribute)\s*\([^;]*?'
    r'("(?:nn|dist|loom)\.[a-z_]+")')


def layer_of(rel):
    for name, rank, prefixes in LAYERS:
        if any(rel == p or rel.startswith(p) for p in prefixes):
            return name, rank
    return None


def resolve(repo, source, name):
    """The repository file an #include "name" in `source` means, or None."""
    candidates = [os.path.join(os.path.dirname(source), name)]
    if name.startswith("loom/runtime/"):
        candidates.append(os.path.join(repo, "runtime", "include", name))
    elif name.startswith("loom/"):
        candidates.append(os.path.join(repo, "include", name))
    for candidate in candidates:
        if os.path.exists(candidate):
            return os.path.normpath(candidate)
    return None


def main():
    repo = os.path.abspath(sys.argv[1])
    files = []
    for root in ROOTS:
        for dirpath, _, names in os.walk(os.path.join(repo, root)):
            files += [os.path.join(dirpath, n) for n in names
                      if n.endswith((".h", ".cpp"))]
    problems, graph = [], {}
    for path in sorted(files):
        rel = os.path.relpath(path, repo)
        text = open(path, encoding="utf-8").read()
        long = too_long(rel, text)
        if long:
            problems.append(long)
        if not rel.startswith("dialects/"):
            for literal in sorted(set(ATTR_LITERAL.findall(text))):
                problems.append(f"{rel}: spells the attribute name {literal}; "
                                "use the dialect's declared name")
        layer = layer_of(rel)
        if layer is None:
            problems.append(f"{rel}: in no layer")
            continue
        graph[path] = []
        for name in INCLUDE.findall(text):
            if name.endswith(".inc"):
                continue
            target = resolve(repo, path, name)
            if target is None:
                continue  # a system, MLIR or LLVM header
            trel = os.path.relpath(target, repo)
            if trel.startswith("runtime/"):
                if trel != "runtime/include/loom/runtime/ABI.h":
                    problems.append(f"{rel} includes the runtime's {name}; "
                                    "the compiler may include ABI.h only")
                continue
            graph[path].append(target)
            other = layer_of(trel)
            if other is None:
                problems.append(f"{rel}: includes {name}, in no layer")
            elif other[1] > layer[1]:
                problems.append(f"{rel} ({layer[0]}) includes {name} "
                                f"({other[0]})")
    problems += include_loops(graph, repo)
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"layers: {len(files)} files, every include goes down or stays "
          "in its layer, no loops")
    return 0


if __name__ == "__main__":
    sys.exit(main())
