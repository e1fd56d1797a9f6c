"""expect_exit.py CODE COMMAND...: runs COMMAND, passes its output through,
and succeeds only if it exits with CODE (lit's `not` accepts any failure)."""
import subprocess
import sys

code = int(sys.argv[1])
result = subprocess.run(sys.argv[2:])
if result.returncode != code:
    sys.stderr.write(f"expect_exit: expected exit code {code}, got "
                     f"{result.returncode}: {' '.join(sys.argv[2:])}\n")
    sys.exit(1)
