#!/usr/bin/env python3
"""cpu_step_bench.py — our CPU training step beside PyTorch's, and how steady it is.

  compare: for each configuration (U-Net depth 4 base 16 on 128x128 batch 8, VGG16 width 0.25 on
    64x64 batch 16; batch norm off and on; 1 and 2 threads), runs `scalebench train` and
    tools/torch_reference.py --device cpu (the same architecture, written again there) in
    alternating order, ROUNDS rounds after --warmup-rounds (1) not counted, and prints each side's
    median images/s with its range, the ratio ours / PyTorch (median of the per-round ratios, and
    its range), each side's coefficient of variation over the rounds, and whether ours spread more
    than PyTorch's in those rounds (tools/paired_spread.py: a paired one-sided test, since two CVs
    from ten rounds on a shared host differ by chance about half the time). --from-log FILE... prints
    the same table from saved compare outputs without running anything, and with several files the
    test on their rounds pooled.
  steady: RUNS consecutive runs of ours per configuration, 1 and 2 threads alternating, and prints
    the median, range and coefficient of variation of each, and in how many of the 1/2-thread pairs
    2 threads were slower than 1; with --torch PyTorch's step is timed between ours the same way,
    so the machine's own run-to-run spread stands beside ours.
  floor: the machine's spread with nothing of ours in it: RUNS runs (a process each) of a fixed
    float32 matrix product loop (numpy, 1 and 2 BLAS threads alternating, STEPS seconds of work
    each), printing GFLOP/s median, range and CV per thread count, and the CPU time the hypervisor
    stole during the runs (/proc/stat's steal column) — what no program here can steady.

What each side times: ours is the second epoch's training images/s as `scalebench train` prints it
(--max-steps STEPS per epoch; the first epoch is the warm-up; data loading by its prefetch thread
included, validation excluded); PyTorch's is STEPS steps after 3 warm-up steps on one random batch
reused (no data loading). It prints figures and asserts nothing; PyTorch (Debian's python3-torch,
run with /usr/bin/python3) is needed here only, never by the build or `make test`.

  tools/cpu_step_bench.py compare [--rounds 5] [--warmup-rounds 1] [--steps 8] [--binary build/scalebench]
  tools/cpu_step_bench.py compare --from-log RUN1.log [RUN2.log ...]
  tools/cpu_step_bench.py steady [--runs 20] [--only unet] [--torch]
  tools/cpu_step_bench.py floor [--runs 20] [--steps 3]
"""
import argparse
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

import paired_spread  # tools/, beside this script

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# name, our spec without bn, task, image side, batch, classes (our generated data: 1 channel)
MODELS = [
    ("unet", "unet:depth=4,base=16", "segmentation", 128, 8, 3),
    ("vgg16", "vgg16:width=0.25", "classification", 64, 16, 5),
]


def configs(only):
    for name, spec, task, side, batch, classes in MODELS:
        if only and name != only:
            continue
        for bn in (0, 1):
            for threads in (1, 2):
                yield dict(name=name, spec=f"{spec},bn={bn}", task=task, side=side, batch=batch, classes=classes,
                           bn=bn, threads=threads)


def datasets(binary, tmp, steps):
    """One generated file per model: enough images for STEPS training batches plus a held-out tenth."""
    paths = {}
    for name, _, task, side, batch, _ in MODELS:
        n = int(batch * steps / 0.9) + batch
        path = os.path.join(tmp, f"{name}.h5")
        subprocess.run([binary, "datagen", "--task", task, "--n", str(n), "--size", str(side), "-o", path],
                       check=True, stdout=subprocess.DEVNULL)
        paths[name] = path
    return paths


EPOCH2 = re.compile(r"^epoch 2/2 .* ([0-9.]+) images/s", re.M)


def ours(binary, data, c, steps, extra):
    cmd = [binary, "train", "--data", data, "--model", c["spec"], "--batch", str(c["batch"]), "--epochs", "2",
           "--max-steps", str(steps), "--threads", str(c["threads"]), "--lr", "0.01"] + extra
    out = subprocess.run(cmd, capture_output=True, text=True)
    m = EPOCH2.search(out.stdout)
    if out.returncode != 0 or not m:
        sys.exit(f"cpu_step_bench: {' '.join(cmd)} failed:\n{out.stdout}{out.stderr}")
    return float(m.group(1))


def torch_side(c, steps, tmp):
    js = os.path.join(tmp, "torch.jsonl")
    if os.path.exists(js):
        os.remove(js)
    model = "unet" if c["name"] == "unet" else c["name"]
    cmd = ["/usr/bin/python3", os.path.join(HERE, "torch_reference.py"), "--device", "cpu", "--model", model,
           "--spec", c["spec"], "--batch", str(c["batch"]), "--height", str(c["side"]), "--width", str(c["side"]),
           "--channels", "1", "--classes", str(c["classes"]), "--steps", str(steps), "--warmup", "3",
           "--threads", str(c["threads"]), "--json", js]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"cpu_step_bench: {' '.join(cmd)} failed:\n{out.stdout}{out.stderr}")
    with open(js) as f:
        r = json.loads(f.readline())
    return r["images_per_s"], r["torch"]


def label(c):
    return f"{c['spec']} b{c['batch']} {c['side']}x{c['side']} t{c['threads']}"


def machine(binary):
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    return f"{platform.node()}: {model}, {os.cpu_count()} CPUs; {version}"


def spread(v):
    return f"{statistics.median(v):7.1f} [{min(v):.1f}, {max(v):.1f}]"


def compare(a, binary, tmp):
    data = datasets(binary, tmp, a.steps)
    cs = list(configs(a.only))
    ours_v = {label(c): [] for c in cs}
    torch_v = {label(c): [] for c in cs}
    torch_version = "?"
    # Warm-up rounds first, both sides, not counted: a host that sat idle runs its first minute
    # faster (each of the three configurations whose CV exceeded PyTorch's on 2026-11-28 had one
    # fast first round), and the page cache and the library loads settle.
    for r in range(-a.warmup_rounds, a.rounds):
        for c in cs:
            first_ours = r % 2 == 0  # alternate which side runs first
            got = {}
            for side in ("ours", "torch") if first_ours else ("torch", "ours"):
                if side == "ours":
                    got[side] = ours(binary, data[c["name"]], c, a.steps, a.extra)
                else:
                    got[side], torch_version = torch_side(c, a.steps, tmp)
            if r >= 0:
                ours_v[label(c)].append(got["ours"])
                torch_v[label(c)].append(got["torch"])
            which = f"round {r + 1}/{a.rounds}" if r >= 0 else f"warm-up round {r + a.warmup_rounds + 1}/{a.warmup_rounds}"
            print(f"{which} {label(c)}: ours {got['ours']:.1f}, torch {got['torch']:.1f} images/s", flush=True)
    print(f"\n{machine(binary)}; torch {torch_version}; {time.strftime('%Y-%m-%d')}; {a.rounds} alternating rounds "
          f"after {a.warmup_rounds} warm-up round(s), {a.steps} steps each")
    table([label(c) for c in cs], ours_v, torch_v)


ROUND = re.compile(r"^round \d+/\d+ (.*): ours ([0-9.]+), torch ([0-9.]+) images/s$")


def rounds_of_log(path):
    """A saved `compare` output's counted rounds (warm-up rounds are not): {configuration: ([ours], [torch])}."""
    got = {}
    with open(path) as f:
        for line in f:
            m = ROUND.match(line.rstrip("\n"))
            if m:
                o, t = got.setdefault(m.group(1), ([], []))
                o.append(float(m.group(2)))
                t.append(float(m.group(3)))
    if not got:
        sys.exit(f"cpu_step_bench: {path} has no 'round K/N CONFIGURATION: ours X, torch Y images/s' line")
    return got


def pooled(logs):
    """The spread test on several runs' rounds together, per configuration: each run's figures divided by
    their geometric mean (side by side), so a run on a faster hour adds no spread of its own."""
    def rel(v):
        g = math.exp(statistics.fmean(math.log(x) for x in v))
        return [x / g for x in v]
    print(f"\npooled over {len(logs)} runs (each side over its geometric mean in each run):")
    less = 0
    keys = [k for k in logs[0] if all(k in got for got in logs)]
    for k in keys:
        o = [x for got in logs for x in rel(got[k][0])]
        t = [x for got in logs for x in rel(got[k][1])]
        st = paired_spread.spread_test(o, t)
        less += st.verdict == "less steady"
        print(f"{k:<44} {len(o):3d} rounds: sd(log) ours / torch {st.sd_ratio:.2f}  {st.verdict} "
              f"(p more {st.p_more:.3f}, p less {st.p_less:.3f})")
    print(f"ours less steady than PyTorch (one-sided p < {paired_spread.ALPHA}) in {less} of {len(keys)} configurations")


def table(keys, ours_v, torch_v):
    """Per configuration: medians with ranges, the per-round ratio, each side's CV and whether ours
    spread more than PyTorch's in the same rounds (tools/paired_spread.py: a paired test, one-sided)."""
    print(f"{'configuration':<44} {'ours images/s [range]':>24} {'torch images/s [range]':>24} "
          f"{'ours/torch [range]':>22} {'CV ours / torch':>16}  spread of ours (p more, p less)")
    cv = lambda v: statistics.stdev(v) / statistics.mean(v) * 100 if len(v) > 1 else float("nan")
    less = 0
    for k in keys:
        ratios = [o / t for o, t in zip(ours_v[k], torch_v[k])]
        st = paired_spread.spread_test(ours_v[k], torch_v[k]) if len(ratios) >= 3 else None
        less += bool(st and st.verdict == "less steady")
        spread_col = f"{st.verdict} ({st.p_more:.3f}, {st.p_less:.3f})" if st else "-"
        print(f"{k:<44} {spread(ours_v[k]):>24} {spread(torch_v[k]):>24} "
              f"{statistics.median(ratios):6.2f} [{min(ratios):.2f}, {max(ratios):.2f}] "
              f"{cv(ours_v[k]):6.1f} / {cv(torch_v[k]):4.1f} %  {spread_col}")
    print(f"ours less steady than PyTorch (one-sided p < {paired_spread.ALPHA}) in {less} of {len(keys)} configurations")


def steady(a, binary, tmp):
    data = datasets(binary, tmp, a.steps)
    print(machine(binary))
    for c1 in configs(a.only):
        if c1["threads"] != 1:
            continue
        c2 = dict(c1, threads=2)
        v1, v2, t1, t2 = [], [], [], []
        for _ in range(a.runs):
            v1.append(ours(binary, data[c1["name"]], c1, a.steps, a.extra))
            v2.append(ours(binary, data[c2["name"]], c2, a.steps, a.extra))
            if a.torch:  # the same machine's floor: PyTorch's step timed between ours
                t1.append(torch_side(c1, a.steps, tmp)[0])
                t2.append(torch_side(c2, a.steps, tmp)[0])
        sides = [("ours", v1, v2)] + ([("torch", t1, t2)] if a.torch else [])
        for side, w1, w2 in sides:
            slower = sum(1 for x, y in zip(w1, w2) if y < x)
            for c, v in ((c1, w1), (c2, w2)):
                cv = statistics.stdev(v) / statistics.mean(v) * 100
                print(f"{side + ' ' + label(c):<50} {len(v)} runs: median {spread(v)} images/s, CV {cv:.1f}%",
                      flush=True)
            print(f"{'':<50} 2 threads slower than 1 in {slower} of {a.runs} consecutive pairs; medians 2t/1t "
                  f"{statistics.median(w2) / statistics.median(w1):.2f}", flush=True)


# One run of `floor`: SECONDS of 512x512 float32 products after a warm-up; prints GFLOP/s.
FLOOR_RUN = """
import sys, time, numpy as np
a = np.random.default_rng(1).standard_normal((512, 512), dtype=np.float32)
b = a.T.copy()
for _ in range(5): a @ b
n, t0 = 0, time.perf_counter()
while time.perf_counter() - t0 < float(sys.argv[1]):
    for _ in range(10): a @ b
    n += 10
print(n * 2 * 512 ** 3 / (time.perf_counter() - t0) / 1e9)
"""


def cpu_ticks():
    """(steal, total) jiffies of all CPUs from /proc/stat's first line."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return v[7], sum(v[:8])


def floor(a, binary, tmp):
    print(machine(binary))
    runs = {1: [], 2: []}
    steal = []
    for _ in range(a.runs):
        for threads in (1, 2):
            env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
            s0, t0 = cpu_ticks()
            out = subprocess.run(["/usr/bin/python3", "-c", FLOOR_RUN, str(a.steps)], env=env, check=True,
                                 capture_output=True, text=True).stdout
            s1, t1 = cpu_ticks()
            runs[threads].append(float(out))
            steal.append(100.0 * (s1 - s0) / max(1, t1 - t0))
    for threads, v in runs.items():
        cv = statistics.stdev(v) / statistics.mean(v) * 100
        print(f"{'numpy float32 512x512 matmul t' + str(threads):<50} {len(v)} runs of {a.steps} s: median "
              f"{spread(v)} GFLOP/s, CV {cv:.1f}%", flush=True)
    print(f"{'':<50} CPU time stolen by the hypervisor per run: median {statistics.median(steal):.1f}% "
          f"[{min(steal):.1f}, {max(steal):.1f}]")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("mode", choices=["compare", "steady", "floor"])
    p.add_argument("--binary", default=os.path.join(ROOT, "build", "scalebench"))
    p.add_argument("--rounds", type=int, default=5, help="compare: alternating rounds (at least 5)")
    p.add_argument("--warmup-rounds", type=int, default=1, help="compare: rounds run first and not counted")
    p.add_argument("--runs", type=int, default=20, help="steady: consecutive runs per configuration")
    p.add_argument("--steps", type=int, default=8, help="timed steps per run (floor: seconds of work per run)")
    p.add_argument("--only", choices=[m[0] for m in MODELS], help="one model only")
    p.add_argument("--torch", action="store_true",
                   help="steady: time PyTorch's step too, between ours, for the machine's own run-to-run spread")
    p.add_argument("--extra", nargs=argparse.REMAINDER, default=[],
                   help="further `scalebench train` options for our side, e.g. --extra --cpu-kernels blas")
    p.add_argument("--from-log", metavar="FILE", nargs="+",
                   help="compare: the table of each saved compare output's rounds instead of running any; with several,\n"
                        "also the spread test on their rounds pooled (each file's figures over its own geometric mean)")
    a = p.parse_args()
    if a.mode == "compare" and a.from_log:
        logs = [rounds_of_log(path) for path in a.from_log]
        for path, got in zip(a.from_log, logs):
            print(f"{path}:")
            table(list(got), {k: v[0] for k, v in got.items()}, {k: v[1] for k, v in got.items()})
        if len(logs) > 1:
            pooled(logs)
        return
    if a.mode == "compare" and a.rounds < 5:
        p.error("--rounds: at least 5 (a median of fewer is not a result on a shared machine)")
    binary = os.path.abspath(a.binary)
    with tempfile.TemporaryDirectory() as tmp:
        {"compare": compare, "steady": steady, "floor": floor}[a.mode](a, binary, tmp)


if __name__ == "__main__":
    main()
