"""What the layering checks of the compiler (test/docs/check_layers.py) and
of the runtime (test/runtime/Inputs/check_layers.py) share: the include
graph's loops and the line limit."""
import os
import re

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
MAX_LINES = 1000


def too_long(rel, text):
    """A problem line when `text` has more lines than allowed, else None."""
    lines = text.count("\n")
    if lines > MAX_LINES:
        return f"{rel}: {lines} lines (at most {MAX_LINES})"
    return None


def include_loops(graph, root):
    """One problem line per include loop of `graph` (file -> files it
    includes), found by depth-first search; paths relative to `root`."""
    problems, state = [], {}

    def visit(node, stack):
        state[node] = "open"
        for target in graph.get(node, []):
            if state.get(target) == "open":
                loop = stack[stack.index(target):] + [target]
                problems.append("include loop: " + " -> ".join(
                    os.path.relpath(p, root) for p in loop))
            elif target not in state:
                visit(target, stack + [target])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return problems
