#!/usr/bin/python3
"""score_anchors.py — re-scores `scalebench project` against the published multi-node scaling tables
in results/anchors/ (tools/make_anchors.py writes them; results/anchors/README.md gives their sources):
for every published point past one node, the uncalibrated prediction (the network profile's delivered
range, the described step's stated spread) with its band, and the prediction calibrated on the table's
smallest multi-node point (`project --calibrate N=K:eff=E`) with its band, the error, inside or not.

    /usr/bin/python3 tools/score_anchors.py SCALEBENCH [--check] [--markdown]

--check (ctest study.published_tables): exit 1 unless every point is inside its uncalibrated band
and, calibrated, within +/-0.10 of the published efficiency — except the points listed in
KNOWN_MISSES, which must still miss (a listed point that now passes fails the check too, so the list
stays what holds). It deliberately tunes nothing: the inputs below are fixed, each with its source.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import h5py

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ANCHORS = os.path.join(ROOT, "results", "anchors")
TOLERANCE = 0.10

# What each anchor's projection is given. Parameter counts: Keras Applications, "Available models"
# (keras.io/api/applications; the table docs/projection.md cites). The rest: the anchor's source and
# the stated assumptions beside each value.
INPUTS = {
    "tf-ec2-k80-2017.h5": dict(
        # AWS lists p2.8xlarge at "10 Gbps"; the source names only the instance type
        network="10gbe",
        ranks_per_node=8,  # "GPU: 8x NVIDIA Tesla K80" a p2.8xlarge
        # the source's distributed_replicated: gradients summed inside an instance, then exchanged with
        # parameter servers sharded one per instance -- about a ring over the instances' leaders in
        # bytes a node moves (an assumption); project's ps-sync is one unsharded server, not that
        strategy="hierarchical",
        layers=1,  # TF 1.x replicated: every gradient exchanged after backward (no overlap; an assumption)
        params={"inception_v3": 23851784, "resnet50": 25636712, "resnet152": 60419944},
    ),
}
# (anchor, model, batch, N, "uncalibrated" | "calibrated"): points that miss, stated not tuned away.
# Uncalibrated: the published efficiency lies above the band's top, the 10gbe profile's fast end
# (9.4 Gbit/s, 10 us) with compute 10 % slower: the parts of the model with no range -- the
# intra-node link (2 us, 5 GB/s: an assumption), every gradient sent after backward (--layers 1) --
# cost more than the real runs paid. Calibrated: ResNet-152 at 64 GPUs falls to 0.790 from 0.910
# at 32, where the model, fitted at 16, grows its exchange by little (a ring over 8 leaders).
KNOWN_MISSES = {
    ("tf-ec2-k80-2017.h5", "inception_v3", 64, 16, "uncalibrated"),
    ("tf-ec2-k80-2017.h5", "inception_v3", 64, 32, "uncalibrated"),
    ("tf-ec2-k80-2017.h5", "inception_v3", 64, 64, "uncalibrated"),
    ("tf-ec2-k80-2017.h5", "resnet152", 32, 16, "uncalibrated"),
    ("tf-ec2-k80-2017.h5", "resnet152", 32, 32, "uncalibrated"),
    ("tf-ec2-k80-2017.h5", "resnet152", 32, 64, "calibrated"),
    ("tf-ec2-k80-2017.h5", "inception_v3", 32, 16, "uncalibrated"),
    ("tf-ec2-k80-2017.h5", "resnet50", 32, 16, "uncalibrated"),
}


def rows_of(path):
    with h5py.File(path, "r") as f:
        t = f["runs"][()]
        names = t.dtype.names
        out = []
        for r in t:
            d = {}
            for n in names:
                v = r[n]
                d[n] = v.decode() if isinstance(v, bytes) else v.item() if hasattr(v, "item") else v
            out.append(d)
        return out


def project(sb, trace, inputs, n_max, extra, out):
    cmd = [sb, "project", "--trace", trace, "--network", inputs["network"], "--ranks-per-node",
           str(inputs["ranks_per_node"]), "--max-devices", str(n_max), "-o", out] + extra
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return {int(r["world_size"]): r for r in rows_of(out)
            if r["strategy"] == inputs["strategy"] and r["scaling"] == "weak"}


def score(sb):
    points = []
    with tempfile.TemporaryDirectory() as tmp:
        for anchor, inputs in INPUTS.items():
            series = {}
            for r in rows_of(os.path.join(ANCHORS, anchor)):
                series.setdefault((r["model"], int(r["batch"])), {})[int(r["world_size"])] = r
            for (model, batch), by_n in series.items():
                step_ms = batch / by_n[1]["images_per_s"] * 1e3
                trace = os.path.join(tmp, f"{model}-{batch}.json")
                subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tools", "synthetic_trace.py"), "--step-ms",
                                f"{step_ms:.4f}", "--params", str(inputs["params"][model]), "--layers",
                                str(inputs["layers"]), "--batch", str(batch), "--model", model, "-o", trace], check=True)
                multi = sorted(n for n in by_n if n > inputs["ranks_per_node"])
                n_max = max(by_n)
                unc = project(sb, trace, inputs, n_max, [], os.path.join(tmp, "u.h5"))
                k = multi[0]
                spec = f"N={k}:eff={by_n[k]['efficiency']:.4f}:strategy={inputs['strategy']}"
                cal = project(sb, trace, inputs, n_max, ["--calibrate", spec], os.path.join(tmp, "c.h5"))
                for n in multi:
                    measured = by_n[n]["efficiency"]
                    u, c = unc[n], cal[n]
                    points.append(dict(
                        anchor=anchor, model=model, batch=batch, n=n, measured=measured,
                        unc=u["efficiency"], unc_lo=u["efficiency_band_lo"], unc_hi=u["efficiency_band_hi"],
                        cal=c["efficiency"], cal_lo=c["efficiency_band_lo"], cal_hi=c["efficiency_band_hi"],
                        calibrated_on=(n == k)))
    for p in points:
        p["unc_inside"] = p["unc_lo"] <= p["measured"] <= p["unc_hi"]
        p["cal_error"] = p["cal"] - p["measured"]
        p["cal_within"] = abs(p["cal_error"]) <= TOLERANCE
        p["cal_inside"] = p["cal_lo"] <= p["measured"] <= p["cal_hi"]
    return points


def table(points):
    yes = {True: "yes", False: "**no**"}
    lines = ["| anchor | model | batch | N | measured | uncalibrated [band] | inside | calibrated [band] | error | "
             "within ±0.10 | inside |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for p in points:
        lines.append(f"| {p['anchor'].removesuffix('.h5')} | {p['model']} | {p['batch']} | {p['n']} | {p['measured']:.3f} | "
                     f"{p['unc']:.3f} [{p['unc_lo']:.3f}, {p['unc_hi']:.3f}] | {yes[p['unc_inside']]} | "
                     f"{p['cal']:.3f} [{p['cal_lo']:.3f}, {p['cal_hi']:.3f}]{' (fitted here)' if p['calibrated_on'] else ''} | "
                     f"{p['cal_error']:+.3f} | {yes[p['cal_within']]} | {yes[p['cal_inside']]} |")
    return "\n".join(lines)


def main(argv) -> int:
    if len(argv) < 2:
        sys.exit("usage: score_anchors.py SCALEBENCH [--check] [--markdown]")
    points = score(argv[1])
    print(table(points))
    unc_in = sum(p["unc_inside"] for p in points)
    cal_ok = sum(p["cal_within"] for p in points)
    print(f"\n{len(points)} published points past one node: {unc_in} inside their uncalibrated band, "
          f"{cal_ok} within ±{TOLERANCE:.2f} calibrated on the table's smallest multi-node point")
    if "--check" not in argv:
        return 0
    bad = []
    for p in points:
        for kind, ok in (("uncalibrated", p["unc_inside"]), ("calibrated", p["cal_within"])):
            key = (p["anchor"], p["model"], p["batch"], p["n"], kind)
            if ok == (key in KNOWN_MISSES):
                bad.append(f"{key}: {'passes but is listed as a known miss' if ok else 'misses'}")
    if bad:
        print("FAIL:\n  " + "\n  ".join(bad))
        return 1
    print("study.published_tables: every point as stated")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
