"""check_comm_log.py ARTIFACT_DIR LOG_PREFIX: checks the comm log that a run
of the artifact wrote (LOOM_COMM_LOG / loomrun --comm-log LOG_PREFIX) against
the collective calls its manifest declares.

Every rank of the mesh must have written LOG_PREFIX.rank<R>.jsonl, and each
rank's sequence of (kind, group, bytes) must be the manifest's "collectives"
list, repeated once per run of the program (--bench runs it several times),
with "axes" matching the manifest's "groups" and "seq" counting up from 0.
Prints one line on success; otherwise names the first mismatch of each rank
and exits 1. A pipelined artifact's ranks are checked against the manifest
of their stage (its "pipeline" object's "rank_stage")."""
import json
import math
import os
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    artifact, prefix = sys.argv[1], sys.argv[2]
    with open(os.path.join(artifact, "manifest.json")) as f:
        top = json.load(f)
    pipeline = top.get("pipeline")

    def manifest_of(rank):
        if not pipeline:
            return top
        stage = pipeline["stages"][pipeline["rank_stage"][rank]]
        with open(os.path.join(artifact, stage, "manifest.json")) as f:
            return json.load(f)

    first = manifest_of(0)
    axes = (first.get("mesh") or {}).get("axes") or []
    ranks = math.prod(axis["size"] for axis in axes)
    problems = []
    runs = set()
    calls = set()
    for rank in range(ranks):
        manifest = manifest_of(rank)
        groups = manifest.get("groups") or []
        expected = [(c["kind"], c["group"], c["bytes"])
                    for c in manifest.get("collectives") or []]
        calls.add(len(expected))
        path = f"{prefix}.rank{rank}.jsonl"
        if not os.path.exists(path):
            problems.append(f"rank {rank}: no log {path}")
            continue
        with open(path) as f:
            entries = [json.loads(line) for line in f if line.strip()]
        got = [(e["kind"], e["group"], e["bytes"]) for e in entries]
        for i, entry in enumerate(entries):
            if entry["seq"] != i:
                problems.append(f"rank {rank}: entry {i} has seq "
                                f"{entry['seq']}")
                break
            group = entry["group"]
            if 0 <= group < len(groups) and entry["axes"] != groups[group]:
                problems.append(f"rank {rank}: entry {i} has axes "
                                f"{entry['axes']}, but group {group} is "
                                f"{groups[group]}")
                break
        if not expected:
            if got:
                problems.append(f"rank {rank}: {len(got)} calls, but the "
                                "manifest declares none")
            continue
        count = len(got) // len(expected)
        if count == 0 or got != expected * count:
            for i, call in enumerate(got):
                if i >= len(expected) * max(count, 1) or \
                        call != expected[i % len(expected)]:
                    want = (expected[i % len(expected)]
                            if i < len(expected) * max(count, 1) else "nothing")
                    problems.append(f"rank {rank}: call {i} is {call}, the "
                                    f"manifest says {want}")
                    break
            else:
                problems.append(f"rank {rank}: {len(got)} calls, but the "
                                f"manifest declares {len(expected)} per run")
            continue
        runs.add(count)
    if len(runs) > 1:
        problems.append(f"the ranks ran the program different numbers of "
                        f"times: {sorted(runs)}")
    if problems:
        for problem in problems:
            print("check_comm_log:", problem)
        sys.exit(1)
    print(f"comm log matches the manifest: {ranks} ranks, "
          f"{'/'.join(map(str, sorted(calls)))} calls per run, "
          f"{runs.pop() if runs else 0} runs")


if __name__ == "__main__":
    main()
