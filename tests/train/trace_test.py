#!/usr/bin/env python3
"""tests/train/trace_test.py SCALEBENCH — ctest `trace.timeline` (label mpi): `train --trace` on a
2-rank ring run (4 KiB-ish buckets, overlap on), then `scalebench trace merge`. Checks that every
file loads as JSON; that spans nest (each phase inside its step, phases end to end, each layer's
backward inside the step's backward phase, each node's forward inside the forward phase, end to end
and the same nodes every step, each bucket allreduce inside its step, the buckets of a
step tiling the whole gradient arena); that rank 0's per-phase sums equal the run file's /steps
columns (read with h5dump); one evaluation span per epoch on rank 0; that every rank's otherData
carries the run file's /config and /context (its run id is the run file's name, its batch, model
and strategy the command's, its host this host's); and that merge keeps every event under pid =
rank, and rank 0's provenance, and refuses a rank given twice and a file that is not a trace, each
with one line. Uses only the standard library and h5dump (hdf5-tools)."""
import json, os, re, shutil, socket, subprocess, sys, tempfile

sb = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="sbtrace")
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
PHASES = ["data", "forward", "backward", "exchange", "optimizer"]
EPS = 0.01  # µs: timestamps are written with 3 decimals


def run(*args, ok=True):
    p = subprocess.run(list(args), env=env, capture_output=True, text=True, timeout=300)
    if ok and p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args)}\n{p.stdout}\n{p.stderr}")
    return p


def steps_table(run_file):
    out = run("h5dump", "-d", "/steps", "-y", "-w", "0", "-m", "%.17g", run_file).stdout
    nums = [float(x) for x in re.findall(r"-?[0-9][0-9.e+-]*", out.split("DATA {", 1)[1])]
    cols = ["epoch", "step", "loss", "t_data", "t_fwd", "t_bwd", "t_comm_exposed", "t_update", "t_total",
            "t_checkpoint", "segment"]  # the run file's column order (harness/record/run_file.cpp)
    assert len(nums) % len(cols) == 0, "unexpected h5dump output"
    return [dict(zip(cols, nums[i:i + len(cols)])) for i in range(0, len(nums), len(cols))]


def fwd_layers_of_step0(ev, steps):
    return sorted((e for e in ev if e["cat"] == "forward" and inside(e, steps[0])), key=lambda e: e["ts"])


def inside(a, b):
    return a["ts"] >= b["ts"] - EPS and a["ts"] + a["dur"] <= b["ts"] + b["dur"] + EPS


try:
    data = f"{tmp}/seg.h5"
    run(sb, "datagen", "--task", "segmentation", "--n", "48", "--size", "32", "--seed", "3", "-o", data)
    run("mpirun", "-np", "2", "--oversubscribe", sb, "train", "--data", data, "--model", "unet:depth=2,base=4",
        "--strategy", "ring", "--batch", "4", "--epochs", "2", "--bucket-mb", "0.01",
        "--trace", f"{tmp}/t.json", "-o", f"{tmp}/runs")
    files = [f"{tmp}/t.rank0.json", f"{tmp}/t.rank1.json"]
    traces = [json.load(open(f)) for f in files]  # loads
    for rank, tr in enumerate(traces):
        ev = [e for e in tr["traceEvents"] if e["ph"] == "X"]
        assert ev and all(e["pid"] == rank for e in tr["traceEvents"]), f"rank {rank}: pid is not the rank"
        steps = sorted((e for e in ev if e["cat"] == "step"), key=lambda e: e["ts"])
        assert len(steps) == 10, f"rank {rank}: {len(steps)} step spans, expected 10 (2 epochs x 5)"
        for s in steps:
            ph = sorted((e for e in ev if e["cat"] == "phase" and inside(e, s)), key=lambda e: e["ts"])
            assert [e["name"] for e in ph] == PHASES, f"rank {rank} {s['name']}: phases {[e['name'] for e in ph]}"
            for a, b in zip(ph, ph[1:]):
                assert abs(a["ts"] + a["dur"] - b["ts"]) < EPS, f"rank {rank} {s['name']}: gap between {a['name']} and {b['name']}"
            bwd = ph[2]
            layers = [e for e in ev if e["cat"] == "layer" and inside(e, s)]
            assert layers and all(inside(l, bwd) for l in layers), f"rank {rank} {s['name']}: a layer span outside backward"
            fwd = ph[1]
            fwd_layers = sorted((e for e in ev if e["cat"] == "forward" and inside(e, s)), key=lambda e: e["ts"])
            assert [e["name"] for e in fwd_layers] == [e["name"] for e in fwd_layers_of_step0(ev, steps)], \
                f"rank {rank} {s['name']}: forward spans differ from the first step's"
            assert fwd_layers and all(inside(l, fwd) for l in fwd_layers), f"rank {rank} {s['name']}: a forward span outside forward"
            for a, b in zip(fwd_layers, fwd_layers[1:]):
                assert abs(a["ts"] + a["dur"] - b["ts"]) < EPS, f"rank {rank} {s['name']}: forward spans not end to end"
            buckets = sorted((e for e in ev if e["cat"] == "allreduce" and inside(e, s)), key=lambda e: e["args"]["begin"])
            assert buckets, f"rank {rank} {s['name']}: no allreduce span"
            assert buckets[0]["args"]["begin"] == 0 and all(
                a["args"]["end"] == b["args"]["begin"] for a, b in zip(buckets, buckets[1:])), "buckets do not tile"
            assert all(b["args"]["bytes"] == 4 * (b["args"]["end"] - b["args"]["begin"]) for b in buckets)
        n_layer = sum(e["cat"] == "layer" for e in ev)
        n_bucket = sum(e["cat"] == "allreduce" for e in ev)
        assert n_layer % 10 == 0 and n_bucket % 10 == 0, "layer/bucket spans not the same every step"
        print(f"rank {rank}: 10 steps, {n_layer // 10} layer spans and {n_bucket // 10} bucket allreduces per step; nesting ok")
    # per-phase sums of rank 0 == the run file's
    run_file = [f for f in os.listdir(f"{tmp}/runs") if f.endswith(".h5")]
    rows = steps_table(f"{tmp}/runs/{run_file[0]}")
    ev0 = [e for e in traces[0]["traceEvents"] if e["ph"] == "X"]
    for phase, col in zip(PHASES, ["t_data", "t_fwd", "t_bwd", "t_comm_exposed", "t_update"]):
        traced = sum(e["dur"] for e in ev0 if e["cat"] == "phase" and e["name"] == phase) / 1e6
        recorded = sum(r[col] for r in rows)
        assert abs(traced - recorded) <= 1e-6 + 1e-6 * recorded, f"{phase}: trace {traced} s, run file {col} {recorded} s"
        print(f"  {phase:>9}: trace {traced:.6f} s = run file {col} {recorded:.6f} s")
    evals = [e for e in ev0 if e["cat"] == "evaluation"]
    assert len(evals) == 2, f"{len(evals)} evaluation spans on rank 0, expected 2"
    # provenance: the run file's /config and /context on every rank
    for rank, tr in enumerate(traces):
        cfg, ctx = tr["otherData"]["config"], tr["otherData"]["context"]
        assert cfg["run_id"] + ".h5" == run_file[0], f"rank {rank}: run_id {cfg['run_id']}, run file {run_file[0]}"
        assert (cfg["batch"], cfg["model"], cfg["strategy"]) == (4, "unet:depth=2,base=4", "ring"), f"rank {rank}: {cfg}"
        assert ctx["hostnames"] == socket.gethostname() and ctx["git_sha"], f"rank {rank}: context {ctx}"
    print(f"  provenance: run {traces[0]['otherData']['config']['run_id']} on {traces[0]['otherData']['context']['hostnames']}"
          f", {len(traces[0]['otherData']['config'])} config and {len(traces[0]['otherData']['context'])} context keys")
    # merge
    merged = f"{tmp}/merged.json"
    run(sb, "trace", "merge", *files, "-o", merged)
    mf = json.load(open(merged))
    m = mf["traceEvents"]
    assert len(m) == sum(len(t["traceEvents"]) for t in traces) and {e["pid"] for e in m} == {0, 1}, "merge lost events"
    assert mf["otherData"]["config"] == traces[0]["otherData"]["config"], "merge lost rank 0's provenance"
    for bad_args, expect in [((files[0], files[0]), "rank 0 given twice"), ((data,), "not a trace written by train --trace")]:
        p = run(sb, "trace", "merge", *bad_args, "-o", f"{tmp}/bad.json", ok=False)
        err = p.stderr.strip().splitlines()
        assert p.returncode == 1 and len(err) == 1 and expect in err[0], f"merge {bad_args}: rc {p.returncode}, {err}"
    print("PASS: trace files load, spans nest, phase sums match the run file, merge ok")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
