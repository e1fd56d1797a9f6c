"""corrupt_schedule.py ARTIFACT OUT_DIR: copies the CUDA artifact ARTIFACT
into OUT_DIR/<case>.loom once per way its program.cuda.json or kernel
files can be wrong, and prints the case names. Each must be refused when
loaded, naming the problem."""
import json
import os
import shutil
import sys
import zlib


def cases(program):
    arena = [i for i, b in enumerate(program["buffers"])
             if b["space"] == "arena"]
    launch = next(i for i, op in enumerate(program["instructions"])
                  if op["op"] == "launch")

    def bad_ref(p):
        p["instructions"][0]["a"]["ref"] = [len(p["buffers"]), 0]

    def past_end(p):
        arg = p["instructions"][launch]["args"][0]
        arg["sizes"] = [s * 100 for s in arg["sizes"]]

    def overlap(p):
        # Two buffers live together put at the same offset.
        a, b = arena[0], arena[1]
        p["buffers"][a]["live"] = [0, len(p["instructions"]) - 1]
        p["buffers"][b]["live"] = [0, len(p["instructions"]) - 1]
        p["buffers"][b]["offset"] = p["buffers"][a]["offset"]

    def version(p):
        p["version"] = 99

    def outside_arena(p):
        p["buffers"][arena[0]]["offset"] = p["arena_bytes"]

    def big_block(p):
        p["instructions"][launch]["block"] = [2048, 1, 1]

    def bad_kernel(p):
        p["instructions"][launch]["kernel"] = 1000

    def escape(p):
        p["cubins"][0]["file"] = "../../etc/passwd"

    return {"bad-ref": bad_ref, "past-end": past_end, "overlap": overlap,
            "version": version, "outside-arena": outside_arena,
            "big-block": big_block, "bad-kernel": bad_kernel,
            "escape": escape}


def refresh_files(artifact):
    """Records the edited files in the manifest's "files", as a producer
    with these bugs would, so that the schedule reader sees them."""
    path = os.path.join(artifact, "manifest.json")
    manifest = json.load(open(path))
    files = manifest.get("files", {})
    for name in list(files):
        file = os.path.join(artifact, name)
        if not os.path.exists(file):
            del files[name]
            continue
        data = open(file, "rb").read()
        files[name] = {"bytes": len(data), "crc32": zlib.crc32(data)}
    with open(path, "w") as f:
        json.dump(manifest, f, indent=2)


def main():
    artifact, out = sys.argv[1], sys.argv[2]
    path = os.path.join(artifact, "program.cuda.json")
    program = json.load(open(path))
    for name, corrupt in cases(program).items():
        dst = os.path.join(out, name + ".loom")
        shutil.copytree(artifact, dst)
        p = json.loads(json.dumps(program))
        corrupt(p)
        with open(os.path.join(dst, "program.cuda.json"), "w") as f:
            json.dump(p, f)
        print(name)
    # Not JSON at all; a kernel file gone; a kernel missing from the cubin.
    for name in ("not-json", "no-cubin", "no-kernel"):
        dst = os.path.join(out, name + ".loom")
        shutil.copytree(artifact, dst)
        print(name)
    with open(os.path.join(out, "not-json.loom", "program.cuda.json"), "w") as f:
        f.write("{\"format\": ")
    os.remove(os.path.join(out, "no-cubin.loom", "kernels.sm_90.cubin"))
    p = json.loads(json.dumps(program))
    p["kernels"][0] = "k_not_there"
    with open(os.path.join(out, "no-kernel.loom", "program.cuda.json"), "w") as f:
        json.dump(p, f)
    for name in os.listdir(out):
        refresh_files(os.path.join(out, name))


if __name__ == "__main__":
    main()
