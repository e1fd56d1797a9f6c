"""Writes two --rename-parameters maps for a generated GPT: `h.3.ln_1.weight`
-> `h3.ln1.weight` (another exporter's style) and every parameter -> `pNN`
(names that carry no structure), in a shuffled order."""
import json
import random
import re
import sys

import onnx

model = onnx.load(sys.argv[1], load_external_data=False)
names = [t.name for t in model.graph.initializer]
h0 = {}
for name in names:
    m = re.match(r"h\.(\d+)\.(.*)", name)
    if m:
        h0[name] = "h%s.%s" % (m.group(1), m.group(2).replace("_", ""))
json.dump(h0, open(sys.argv[2], "w"))
shuffled = list(names)
random.Random(0).shuffle(shuffled)
json.dump({n: "p%02d" % i for i, n in enumerate(shuffled)},
          open(sys.argv[3], "w"))
