#!/usr/bin/python3
"""noise_lab.py — how often `scalebench compare` cries wolf, and how often it catches a real
slowdown, measured on this machine (issue 25's noise laboratory). A benchmark: it prints figures
(and writes them as JSON with -o); it asserts nothing and is not a test.

    /usr/bin/python3 tools/noise_lab.py BUILD_DIR [--pairs 8] [--k 5] [--power-k 3,5,10]
        [--trials 10] [--caps 0.9,0.8] [--work results/noise-lab] [-o lab.json]
    /usr/bin/python3 tools/noise_lab.py BUILD_DIR --ab [--ab-k 10] [--ab-aa-runs 12]
        [--ab-caps 0.95,0.98] [--trials 10] [--ab-interleave run|slice] [--slice-ms 250]
        [--cap-period-us 10000] [--work results/noise-lab] [-o ab.json]

(a) A/A false alarms: --pairs independent pairs of K-repetition sweeps of the same small study
    (one-thread U-Net points, long enough to time: ≥ 1 s and ≥ 30 measured steps a run), each pair
    compared; every timing comparison that comes out REGRESSION or improved is a false alarm (both
    sides ran the same binary and configuration). Reported per metric and in total.
(b) Power: per cap c in --caps and K in --power-k, --trials times: K runs of one point free, then K
    runs of it in a cgroup limited to c of one core (cgroup v1 cpu.cfs_quota_us, or v2 cpu.max), and
    compare; detection = images_per_s REGRESSION. A cap of 0.8 slows a one-thread run by about 20 %
    when the core is otherwise free (less when other jobs already take part of it).
(c) --ab: the same two questions for `scalebench ab` (pairs taken back to back, ABBA, decided by a
    signed-rank test of the paired log ratios) instead of (a) and (b):
    A/A: --ab-aa-runs runs of `ab` with both sides the same, over the --batches study, K = --ab-k
    pairs; every timing row that comes out slower or faster is a false alarm.
    Power: per cap c in --ab-caps, --trials runs of `ab` on one point with side B's runs in a cgroup
    capped to c of one core and side A's in an uncapped one (`--a-wrap`/`--b-wrap` through a
    two-line joiner script), K = --ab-k pairs; detection = images_per_s slower.
    --ab-interleave slice: both runs of a pair together on one CPU, taking turns every --slice-ms
    (`ab --interleave slice`); give the capped cgroup a CFS period under a slice (--cap-period-us
    10000), or a side computing in slices rarely fills a 100 ms period and the cap seldom binds.
Needs root for the cgroup (the A/A parts do not). It deliberately does not pick K for anyone or
change any default: it measures the rule as shipped (docs/metrics.md).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter

SPEC = """[study]
name = "{name}"
output = "{out}"
repetitions = {k}

[dataset]
path = "{data}"

[sweep]
models = ["unet:depth=2,base=4"]
strategies = ["single"]
devices = [1]
batch = {batch}

[train]
epochs = 3
lr = 0.05
threads = 1
"""


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def sweep(sb, work, name, k, batch, data, cgroup=None) -> str:
    out = os.path.join(work, name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(work, exist_ok=True)
    spec = os.path.join(work, name + ".toml")
    with open(spec, "w") as f:
        f.write(SPEC.format(name=name, out=out, k=k, batch=batch, data=data))
    cmd = [sb, "sweep", spec]
    if cgroup:  # the shell joins the cgroup, then becomes the sweep: every point inherits it
        cmd = ["sh", "-c", f'echo $$ > "{cgroup}/cgroup.procs" && exec "$@"', "sh"] + cmd
    r = run(cmd)
    if r.returncode != 0:
        sys.exit(f"noise_lab: sweep {name} failed:\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    r = run([sb, "collect", out])
    if r.returncode != 0:
        sys.exit(f"noise_lab: collect {name} failed: {r.stderr}")
    return os.path.join(out, "study.h5")


def compare(sb, a, b) -> list:
    # --across-hosts: both sides ran here, and the power test's CPU cap (part of the host
    # fingerprint) is the treatment, not another machine.
    r = run([sb, "compare", a, b, "--format", "json", "--across-hosts"])
    if r.returncode not in (0, 1, 3):
        sys.exit(f"noise_lab: compare failed ({r.returncode}): {r.stderr}")
    return json.loads(r.stdout)["rows"]


def write_spec(work, name, k, batch, data) -> str:
    spec = os.path.join(work, name + ".toml")
    with open(spec, "w") as f:
        f.write(SPEC.format(name=name, out=os.path.join(work, name), k=k, batch=batch, data=data))
    return spec


AB_EXTRA: list = []  # --ab-interleave / --slice-ms, passed to every `ab`


def ab(sb, work, name, k, batch, data, a_wrap="", b_wrap="") -> dict:
    """One `scalebench ab` of the study against itself (each side under its wrap, when given); its verdicts."""
    out = os.path.join(work, name)
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sb, "ab", write_spec(work, name, 1, batch, data), "--pairs", str(k), "-o", out] + AB_EXTRA
    if a_wrap:
        cmd += ["--a-wrap", a_wrap]
    if b_wrap:
        cmd += ["--b-wrap", b_wrap]
    r = run(cmd)
    if r.returncode != 0:
        sys.exit(f"noise_lab: ab {name} failed ({r.returncode}):\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    with open(os.path.join(out, "verdicts.json")) as f:
        return json.load(f)


def joiner(work) -> str:
    """A script that moves itself into the cgroup named by its first argument, then runs the rest."""
    path = os.path.join(work, "cgroup_exec.sh")
    with open(path, "w") as f:
        f.write('#!/bin/sh\n# cgroup_exec.sh CGROUP CMD...: run CMD inside CGROUP (noise_lab.py --ab)\n'
                'echo $$ > "$1/cgroup.procs" && shift && exec "$@"\n')
    os.chmod(path, 0o755)
    return path


def ab_lab(a, sb, work, data, result):
    """(c): A/A false alarms and power of `scalebench ab`."""
    if not a.skip_aa:
        per, alarms, verdicts = Counter(), Counter(), Counter()
        tested = 0  # rows that took the test (not those decided without one: a constant metric)
        for i in range(a.ab_aa_runs):
            for row in ab(sb, work, f"abaa{i}", a.ab_k, a.batches, data)["rows"]:
                per[row["metric"]] += 1
                tested += row["p"] is not None
                verdicts[row["verdict"]] += 1
                alarms[row["metric"]] += row["verdict"] in ("slower", "faster")
            print(f"ab A/A run {i + 1}/{a.ab_aa_runs}: {tested} tested timing comparisons so far, "
                  f"{sum(alarms.values())} false alarms", flush=True)
        total = sum(per.values())
        result["ab_aa"] = {"k": a.ab_k, "runs": a.ab_aa_runs, "comparisons": total, "tested": tested,
                           "false_alarms": sum(alarms.values()),
                           "rate": sum(alarms.values()) / total if total else None,
                           "per_metric": {m: {"comparisons": per[m], "false_alarms": alarms[m]} for m in sorted(per)},
                           "verdicts": dict(verdicts)}
        print(f"ab A/A: {sum(alarms.values())} false alarms in {tested} tested timing comparisons ({total} rows) at "
              f"K = {a.ab_k} pairs; verdicts {dict(verdicts)}")
    if not a.skip_power:
        result["ab_power"] = []
        script = joiner(work)
        # Side A runs in an uncapped cgroup of its own: a cgroup is a scheduling group of its own, which
        # on a loaded host gets another share of the CPU than a task of the root group (a first try
        # without it had the capped side run 5x faster), so only the cap tells the sides apart.
        free = make_cgroup(None, "-free")
        for cap in [float(c) for c in a.ab_caps.split(",")]:
            cg = make_cgroup(cap, period_us=a.cap_period_us)
            try:
                hits, verdicts = 0, Counter()
                for t in range(a.trials):
                    rows = ab(sb, work, f"abpw{cap}t{t}", a.ab_k, "4", data, a_wrap=f"{script} {free}",
                              b_wrap=f"{script} {cg}")["rows"]
                    v = [r for r in rows if r["metric"] == "images_per_s"][0]
                    verdicts[v["verdict"]] += 1
                    hits += v["verdict"] == "slower"
                    print(f"ab power cap {cap} K = {a.ab_k} trial {t + 1}: {v['verdict']} {100 * v['change']:+.1f}% "
                          f"({v['note']})", flush=True)
                result["ab_power"].append({"cap": cap, "cap_period_us": a.cap_period_us, "k": a.ab_k,
                                           "interleave": a.ab_interleave, "trials": a.trials, "detected": hits,
                                           "rate": hits / a.trials, "verdicts": dict(verdicts)})
                print(f"ab power: cap {cap} of a core, K = {a.ab_k} pairs: {hits}/{a.trials} detected; {dict(verdicts)}")
            finally:
                os.rmdir(cg)
        os.rmdir(free)


def read_timing(study_h5) -> set:
    """The timing metrics as the study file's /metrics table tags them (metrics.def, the one list)."""
    import h5py  # the plots' dependency; only needed here
    with h5py.File(study_h5, "r") as f:
        m = f["metrics"][()]
        return {n.decode() for n, k in zip(m["name"], m["kind"]) if k.decode() == "timing"}


def make_cgroup(cap, name="", period_us=0) -> str:
    """A CPU cgroup capped to `cap` of one core (None: uncapped, a scheduling group like the capped one),
    over a period of period_us (0: the cgroup's default, 100 ms). A side that computes in slices
    (ab --interleave slice) feels the cap only in the periods its slice covers whole, so the lab gives
    slices a period well under a slice."""
    v1 = "/sys/fs/cgroup/cpu"
    if os.path.exists(os.path.join(v1, "cpu.cfs_quota_us")):
        path = os.path.join(v1, f"sb-noise-lab-{os.getpid()}{name}")
        os.makedirs(path, exist_ok=True)
        if period_us:
            open(os.path.join(path, "cpu.cfs_period_us"), "w").write(str(period_us))
        period = int(open(os.path.join(path, "cpu.cfs_period_us")).read())
        open(os.path.join(path, "cpu.cfs_quota_us"), "w").write(str(int(cap * period)) if cap else "-1")
        return path
    v2 = "/sys/fs/cgroup"
    path = os.path.join(v2, f"sb-noise-lab-{os.getpid()}{name}")
    os.makedirs(path, exist_ok=True)
    period = period_us or 100000
    open(os.path.join(path, "cpu.max"), "w").write(f"{int(cap * period)} {period}" if cap else f"max {period}")
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--pairs", type=int, default=8)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--batches", default="[2, 4, 8, 16]", help="the A/A study's batch axis (one point each)")
    ap.add_argument("--power-k", default="3,5,10")
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--caps", default="0.9,0.8")
    ap.add_argument("--work", default="results/noise-lab")
    ap.add_argument("-o", "--output", default="")
    ap.add_argument("--skip-aa", action="store_true")
    ap.add_argument("--skip-power", action="store_true")
    ap.add_argument("--ab", action="store_true", help="(c): measure `scalebench ab` instead of compare")
    ap.add_argument("--ab-k", type=int, default=10, help="pairs per ab run")
    ap.add_argument("--ab-aa-runs", type=int, default=12, help="A/A ab runs (each: every point of --batches; 5 tested metrics a point)")
    ap.add_argument("--ab-caps", default="0.95,0.98", help="side B's CPU caps, fractions of one core")
    ap.add_argument("--ab-interleave", default="run", choices=["run", "slice"], help="ab's --interleave")
    ap.add_argument("--slice-ms", type=float, default=250, help="ab's --slice-ms (with --ab-interleave slice)")
    ap.add_argument("--ab-cpus", default="", help="ab's --cpus (with --ab-interleave slice; default ab's: the last CPU)")
    ap.add_argument("--data-n", type=int, default=480,
                    help="images in the generated set (480: runs of about 1 s; more for longer runs)")
    ap.add_argument("--cap-period-us", type=int, default=0,
                    help="the capped cgroup's CFS period (0: its default, 100 ms); 10000 for slices")
    a = ap.parse_args()
    AB_EXTRA.extend(["--interleave", a.ab_interleave] +
                    (["--slice-ms", f"{a.slice_ms:g}"] if a.ab_interleave == "slice" else []) +
                    (["--cpus", a.ab_cpus] if a.ab_cpus else []))
    sb = os.path.abspath(os.path.join(a.build, "scalebench"))
    work = os.path.abspath(a.work)
    os.makedirs(work, exist_ok=True)
    data = os.path.join(work, "seg.h5" if a.data_n == 480 else f"seg{a.data_n}.h5")
    if not os.path.exists(data):
        r = run([sb, "datagen", "--task", "segmentation", "--n", str(a.data_n), "--size", "32", "--seed", "3", "-o", data])
        if r.returncode != 0:
            sys.exit(f"noise_lab: datagen failed: {r.stderr}")
    result = {"started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "host": os.uname().nodename,
              "ab_args": AB_EXTRA, "data_n": a.data_n,
              "cpus": os.cpu_count(), "loadavg_start": os.getloadavg()}
    t0 = time.time()
    if a.ab:
        ab_lab(a, sb, work, data, result)
    if not a.skip_aa and not a.ab:
        per = Counter()
        alarms = Counter()
        flags = Counter()
        timing = None
        for i in range(a.pairs):
            x = sweep(sb, work, f"aa{i}x", a.k, a.batches, data)
            y = sweep(sb, work, f"aa{i}y", a.k, a.batches, data)
            timing = timing or read_timing(x)
            for row in compare(sb, x, y):
                if row["metric"] not in timing:
                    continue
                per[row["metric"]] += 1
                flags[row["verdict"]] += 1
                if row["verdict"] in ("REGRESSION", "improved"):
                    alarms[row["metric"]] += 1
            print(f"A/A pair {i + 1}/{a.pairs}: {sum(per.values())} timing comparisons so far, "
                  f"{sum(alarms.values())} false alarms", flush=True)
        total = sum(per.values())
        result["aa"] = {"k": a.k, "pairs": a.pairs, "comparisons": total, "false_alarms": sum(alarms.values()),
                        "rate": sum(alarms.values()) / total if total else None,
                        "per_metric": {m: {"comparisons": per[m], "false_alarms": alarms[m]} for m in sorted(per)},
                        "verdicts": dict(flags)}
        print(f"A/A: {sum(alarms.values())} false alarms in {total} timing comparisons "
              f"({100 * result['aa']['rate']:.2f} %) at K = {a.k}; verdicts {dict(flags)}")
    if not a.skip_power and not a.ab:
        result["power"] = []
        for cap in [float(c) for c in a.caps.split(",")]:
            cg = make_cgroup(cap)
            try:
                for k in [int(x) for x in a.power_k.split(",")]:
                    hits, verdicts = 0, Counter()
                    for t in range(a.trials):
                        base = sweep(sb, work, f"pw{cap}k{k}b{t}", k, "4", data)
                        slow = sweep(sb, work, f"pw{cap}k{k}c{t}", k, "4", data, cgroup=cg)
                        v = [r for r in compare(sb, base, slow) if r["metric"] == "images_per_s"][0]
                        verdicts[v["verdict"]] += 1
                        hits += v["verdict"] == "REGRESSION"
                        print(f"power cap {cap} K = {k} trial {t + 1}: {v['verdict']} {100 * v['change']:+.1f}%",
                              flush=True)
                    result["power"].append({"cap": cap, "k": k, "trials": a.trials, "detected": hits,
                                            "rate": hits / a.trials, "verdicts": dict(verdicts)})
                    print(f"power: cap {cap} of a core, K = {k}: {hits}/{a.trials} detected; {dict(verdicts)}")
            finally:
                os.rmdir(cg)
    result["seconds"] = round(time.time() - t0)
    result["loadavg_end"] = os.getloadavg()
    print(json.dumps(result, indent=1))
    if a.output:
        with open(a.output, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
