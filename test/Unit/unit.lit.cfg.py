# lit runs every gtest of the unit-test binaries as one test each.
import os

import lit.formats

config.name = "Loom-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.loom_obj_root, "test", "Unit")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
