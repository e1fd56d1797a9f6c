"""read_fifo.py FIFO OUT COMMAND...: runs COMMAND while a reader copies what
arrives on FIFO into OUT; exits with COMMAND's status."""
import subprocess
import sys
import threading

fifo, out = sys.argv[1], sys.argv[2]


def copy():
    with open(fifo, "rb") as source, open(out, "wb") as sink:
        sink.write(source.read())


reader = threading.Thread(target=copy, daemon=True)
reader.start()
code = subprocess.run(sys.argv[3:]).returncode
reader.join(timeout=60)
sys.exit(code)
