#!/usr/bin/python3
"""score_anchors.py — re-scores `scalebench project` against the published multi-node scaling tables
in results/anchors/ (tools/make_anchors.py writes them; results/anchors/README.md gives their sources):
for every published point past one node, the uncalibrated prediction (the network profile's delivered
range, the described step's stated spread) with its band, and the prediction calibrated on the table's
smallest multi-node point (`project --calibrate N=K:eff=E`) with its band, the error, inside or not.

    /usr/bin/python3 tools/score_anchors.py SCALEBENCH [--check] [--markdown] [--points K]

--points K calibrates on each table's K smallest multi-node points instead (two or more fit the
link's latency too; not with --check).

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

import tf_cnn_variables

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ANCHORS = os.path.join(ROOT, "results", "anchors")
TOLERANCE = 0.10

def transformer_xl_params(n_token, cutoffs, div_val, d_embed, d_model, n_layer, n_head, d_head, d_inner,
                          tie_projs) -> int:
    """Elements in model.parameters() of DeepLearningExamples' MemTransformerLM (mem_transformer.py and
    utils/proj_adaptive_softmax.py at 729963d, attn_type 0, adaptive embedding and softmax, tied weights):
    arithmetic on the stated configuration, no count the source prints."""
    ends = [0] + cutoffs + [n_token]
    emb = sum((ends[i + 1] - ends[i]) * (d_embed // div_val ** i) + d_model * (d_embed // div_val ** i)
              for i in range(len(ends) - 1))  # emb_layers + emb_projs
    softmax = len(cutoffs) * (d_embed + 1) + n_token  # cluster weight and bias, out_layers_biases
    softmax += sum(d_model * (d_embed // div_val ** i) for i, tied in enumerate(tie_projs) if not tied)
    attn = d_model * 3 * n_head * d_head + 2 * n_head * d_head * d_model + 2 * d_model  # qkv, o, r nets; norm
    ff = d_model * d_inner + d_inner + d_inner * d_model + d_model + 2 * d_model
    return emb + softmax + n_layer * (attn + ff) + 2 * n_head * d_head  # + r_w_bias, r_r_bias


# What each anchor's projection is given. Parameter counts: Keras Applications, "Available models"
# (keras.io/api/applications; the table docs/projection.md cites) unless said. The rest: the anchor's
# source and the stated assumptions beside each value. A table whose smallest N is one node (not one
# GPU) is projected relative to that node: predicted efficiency(N) / efficiency(node), its band's ends
# each over the same end at the node, and calibrated on published(K) x the projection at the node.
# `step_ms` (compute per step at one GPU) is needed where the table has no figure at one GPU.
INPUTS = {
    "tf-ec2-k80-2017.h5": dict(
        # AWS lists p2.8xlarge at "10 Gbps"; the source names only the instance type
        network="10gbe",
        ranks_per_node=8,  # "GPU: 8x NVIDIA Tesla K80" a p2.8xlarge
        # the source's distributed_replicated: gradients summed inside an instance, then pushed to and pulled
        # from parameter servers on the instances: hierarchical's chains inside a node and --ps-shards between
        # nodes. "Equal numbers of parameter servers and worker servers were used with the following
        # exceptions: InceptionV3: 8 instances / 6 parameter servers; ResNet-50: (batch size 32) 8 instances /
        # 4 parameter servers; ResNet-152: 8 instances / 4 parameter servers" (the InceptionV3 line names no
        # batch: read as both of its series)
        strategy="hierarchical",
        ps_shards={"default": "2:2,4:4,8:8", ("inception_v3", 64): "2:2,4:4,8:6", ("inception_v3", 32): "2:2,4:4,8:6",
                   ("resnet50", 32): "2:2,4:4,8:4", ("resnet152", 32): "2:2,4:4,8:4"},
        # whole variables on the servers (--ps-variables): the page's "Benchmark GitHub hash: 9165a70" is
        # tensorflow/benchmarks' tf_cnn_benchmarks, whose distributed_replicated places a copy of each trainable
        # variable round-robin after the global step (tools/tf_cnn_variables.py says where)
        variable_update={"default": "distributed_replicated"},
        tf_cnn_model={"inception_v3": "inception3", "resnet50": "resnet50", "resnet152": "resnet152"},
        # TF 1.x replicated: every gradient exchanged after backward (no overlap; an assumption: the point;
        # the band brackets it, a described step's layers being assumed)
        layers=1,
        params={"inception_v3": 23851784, "resnet50": 25636712, "resnet152": 60419944},
    ),
    "goyal-2017.h5": dict(
        # "a Mellanox ConnectX-4 50Gbit Ethernet network card" a server: two 25gbe links stand for one
        # 50 Gbit/s link (an assumption: the delivered range doubled; no 50 GbE profile)
        network="25gbe", nics_per_node=2,
        ranks_per_node=8,  # "Each server contains 8 NVIDIA Tesla P100 GPUs"
        strategy="hierarchical",  # local reduction, inter-server allreduce, broadcast (Section 4.2)
        # "Most of the allreduce communication time is hidden by pipelining allreduce operations with
        # gradient computation" (Figure 8): gradients spread over 16 backward layers (an assumption)
        layers=16,
        params={"resnet50": 25636712},
        # "Backprop for ResNet-50 on a single NVIDIA Tesla P100 GPU takes 120 ms" (Section 4.3), forward
        # half of that (synthetic_trace.py's backward = 2/3 of the step): 180 ms at 32 images
        step_ms={("resnet50", ""): 180.0},
    ),
    "transformer-xl-dgx2h.h5": dict(
        # the README names no network: a DGX-2H's eight 100 Gbit/s InfiniBand links, as assumed
        network="100gib", nics_per_node=8,
        ranks_per_node=16,  # "16x V100 32GB" a DGX-2H; run.sub: --ntasks-per-node=16
        # inside a DGX-2: NVSwitch "offre une bande passante de 300 Go/s entre chaque GPU" (tomshardware.fr,
        # www.tomshardware.fr/dgx-2-16-gpu-presentes-comme-la-plus-grosse-cartes-graphique-du-monde,
        # "DGX-2 : 16 GPU présentés comme la plus grosse carte graphique du monde"): the nameplate, not measured
        intra=["--intra-gbps", "300"],
        strategy="ring",  # PyTorch DistributedDataParallel over NCCL (train.py)
        layers=18,  # n_layer 18; DDP's buckets overlap backward (gradients spread evenly: an assumption)
        # wt103_large.yaml's manual_config (n_token 267735, cutoffs, div_val 4, d_embed 1024, tie_projs)
        # and the README's Large model table: 285,167,482 elements, every gradient dense (sparse=False)
        params={"transformer_xl_large": transformer_xl_params(
            267735, [19997, 39997, 199997], 4, 1024, 1024, 18, 16, 64, 4096, [False, True, True, True])},
        # compute per step at one GPU: 4 sequences x 384 tokens / (one node's published tok/s / 16) --
        # one node's step, its intra-node exchange included (an upper bound on the compute)
        step_ms={("transformer_xl_large", "fp32"): 4 * 384 / (69070 / 16) * 1e3,
                 ("transformer_xl_large", "amp"): 4 * 384 / (154950 / 16) * 1e3},
        # apex amp O2 (train.py's default opt level) keeps fp16 model gradients: DDP sums fp16 (assumed)
        extra={"amp": ["--compression", "fp16"]},
    ),
    "tf-daint-p100-2017.h5": dict(
        # the report names the network ("Aries routing and communications ASIC, with Dragonfly network topology"), not its
        # rate; the software sends over gRPC: tf_cnn_benchmarks.py at the report's commit defaults server_protocol to
        # 'grpc' and the launch scripts do not set it. So the transport, not Aries, is the profile: tfgrpc, TensorFlow's
        # gRPC before its August 2017 upgrade (TensorFlow 1.1 is before it), its delivered range the published transfers
        # of tensorflow/tensorflow#6256 and #6116, its latency gRPC's own ping-pongs (docs/projection.md cites each),
        # each one connection's; a node's connections together from no adding up to grpc/grpc#15348's four connections.
        # MPI over the same Aries reaches "~10GB/s" (openucx/ucx#4274): the link is not what limits gRPC. The table's
        # servers (2, 4, 12, 40, 116 for 8 to 128 workers) load the busiest node with 359 to 1043 MB each way a step
        # of 503 to 889 ms: at least 0.71 to 1.17 GB/s each way, past one connection's 569 MB/s but not four's
        network="tfgrpc",
        ranks_per_node=1,  # "Each node that we use in Piz Daint is equipped with an NVIDIA Tesla P100"
        # parameter servers on the workers' nodes ("nodes running Workers also run Parameter Servers"; run_dist_tf.sh
        # at a0d3d61: one a node, TF_PS_PER_NODE=1, on the first nodes), the table's "Num PSs" at each N:
        # --ps-shards costs the exchange between the nodes as a push to and a pull from them (ring at one rank a node)
        strategy="ring",
        ps_shards={"default": "2:1,4:3,8:2,16:4,32:12,64:40,128:116"},
        # whole variables on them (--ps-variables), as the table's "Variable Update" of each row placed them: the
        # launch script's tf_cnn_benchmarks (tools/tf_cnn_variables.py says where) with --variable_update
        # parameter_server (greedy by bytes) but at N = 4 distributed_replicated (round robin)
        variable_update={"default": "parameter_server", 4: "distributed_replicated"},
        tf_cnn_model={"inception_v3": "inception3"},
        layers=1,  # TF 1.x: every gradient exchanged after backward (no overlap; as tf-ec2-k80-2017, an assumption)
        # Keras Applications, as above (tf_cnn_benchmarks' inception3 at that commit: the same blocks, no auxiliary
        # head; its 1001 classes add 2,049)
        params={"inception_v3": 23851784},
    ),
}
# (anchor, model, precision, batch, N, "uncalibrated" | "calibrated"): points that miss, stated not
# tuned away (results/notes/projection-anchors-2026-11-28.md says why each misses).
KNOWN_MISSES = {
    # Calibrated at 16 GPUs, ResNet-152's exchange is almost all the stated intra-node chain (2 us, 5 GB/s: 96.7
    # of the 108.8 ms at 16), so the fitted link is fast (162 Gbit/s, past the 10gbe range) and the 4 servers for
    # 8 instances at 64 GPUs, which double the bytes between nodes, double a term of about 12 ms: 0.920 predicted,
    # 0.790 published (0.910 at 32). Inside its calibrated band, [0.673, 0.949]: the point's other reading (the
    # link at 10gbe's top, gradients ready over the last 0.195 of backward) gives 0.712.
    ("tf-ec2-k80-2017.h5", "resnet152", "fp32", 32, 64, "calibrated"),
    # Calibrated at 2 nodes, 128 misses (+0.15; 64 within, -0.01): the server holding Inception V3's 8.2 MB classifier
    # takes 127 x 8.2 MB a push, which the placement now prices (it was +0.43 with equal shares); what is left is not
    # modelled: the Dragonfly's global links, which carry every worker's traffic, and the servers' CPU (one process
    # applies 127 pushes of its variables a step).
    ("tf-daint-p100-2017.h5", "inception_v3", "fp32", 64, 128, "calibrated"),
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


def project_cmd(sb, trace, inputs, n_max, extra, out):
    return [sb, "project", "--trace", trace, "--network", inputs["network"], "--nics-per-node",
            str(inputs.get("nics_per_node", 1)), "--ranks-per-node", str(inputs["ranks_per_node"]),
            "--max-devices", str(n_max), "-o", out] + inputs.get("intra", []) + extra


def run_all(cmds):
    """Runs the project commands side by side (each is short; together they are the test's time)."""
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for c in cmds]
    for c, p in zip(cmds, procs):
        out, err = p.communicate()
        if p.returncode != 0:
            sys.exit(f"score_anchors: {' '.join(c)} exited {p.returncode}: {err.strip() or out.strip()}")


def rows_by_n(path, strategy):
    return {int(r["world_size"]): r for r in rows_of(path) if r["strategy"] == strategy and r["scaling"] == "weak"}


def relative(rows, n, base):
    """Efficiency at n over efficiency at base (1 where base is one GPU), the band's ends paired."""
    if base == 1:
        r = rows[n]
        return r["efficiency"], r["efficiency_band_lo"], r["efficiency_band_hi"]
    r, b = rows[n], rows[base]
    ends = sorted((r["efficiency_band_lo"] / b["efficiency_band_lo"], r["efficiency_band_hi"] / b["efficiency_band_hi"]))
    return r["efficiency"] / b["efficiency"], ends[0], ends[1]


def score(sb, calibrate_on=1):
    series, skipped = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for anchor, inputs in INPUTS.items():
            by_series = {}
            for r in rows_of(os.path.join(ANCHORS, anchor)):
                by_series.setdefault((r["model"], r["precision"], int(r["batch"])), {})[int(r["world_size"])] = r
            for (model, prec, batch), by_n in by_series.items():
                base = min(by_n)
                step_ms = (batch / by_n[1]["images_per_s"] * 1e3 if base == 1 else inputs["step_ms"][(model, prec)])
                tag = f"{anchor}-{model}-{prec}-{batch}"
                trace = os.path.join(tmp, tag + ".json")
                subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tools", "synthetic_trace.py"), "--step-ms",
                                f"{step_ms:.4f}", "--params", str(inputs["params"][model]), "--layers",
                                str(inputs["layers"]), "--batch", str(batch), "--model", model, "-o", trace], check=True)
                n_max = 1 << (max(by_n).bit_length() - 1)  # project's N: powers of 2
                multi = sorted(n for n in by_n if n > inputs["ranks_per_node"] and n <= n_max and n & (n - 1) == 0)
                skipped += [(anchor, model, prec, batch, n) for n in by_n if n > inputs["ranks_per_node"] and n not in multi]
                shards = inputs.get("ps_shards", {})
                shards = shards.get((model, batch), shards.get("default"))
                extra = inputs.get("extra", {}).get(prec, []) + (["--ps-shards", shards] if shards else [])
                # one projection per variable_update the table's rows used, each scoring its own rows
                updates = inputs.get("variable_update", {})
                by_update = {}
                for n in multi:
                    by_update.setdefault(updates.get(n, updates.get("default")), []).append(n)
                for update, ns in by_update.items():
                    placement = []
                    if update is not None:
                        placed = os.path.join(tmp, f"{tag}-{update}.txt")
                        with open(placed, "w") as f:
                            tf_cnn_variables.write(tf_cnn_variables.placed(
                                tf_cnn_variables.MODELS[inputs["tf_cnn_model"][model]](), update), f)
                        placement = ["--ps-variables", placed, "--ps-placement", tf_cnn_variables.RULE[update]]
                    series.append(dict(anchor=anchor, inputs=inputs, model=model, prec=prec, batch=batch, by_n=by_n,
                                       base=base, multi=multi, scored=ns, trace=trace, n_max=n_max, extra=extra + placement,
                                       unc=os.path.join(tmp, f"{tag}-{update}-u.h5"),
                                       cal=os.path.join(tmp, f"{tag}-{update}-c.h5")))
        run_all([project_cmd(sb, s["trace"], s["inputs"], s["n_max"], s["extra"], s["unc"]) for s in series])
        cmds = []
        for s in series:
            s["unc_rows"] = rows_by_n(s["unc"], s["inputs"]["strategy"])
            specs = []
            for k in s["multi"][:calibrate_on]:
                # the published figure at K as an efficiency against one GPU: relative to one node, times the
                # projection's own efficiency at that node (the node's inside is not what is calibrated)
                eff_k = s["by_n"][k]["efficiency"] * relative(s["unc_rows"], s["base"], 1)[0]
                specs += ["--calibrate", f"N={k}:eff={eff_k:.4f}:strategy={s['inputs']['strategy']}"]
            cmds.append(project_cmd(sb, s["trace"], s["inputs"], s["n_max"], s["extra"] + specs, s["cal"]))
        run_all(cmds)
        points = []
        for s in series:
            cal_rows = rows_by_n(s["cal"], s["inputs"]["strategy"])
            for n in s["scored"]:
                u, u_lo, u_hi = relative(s["unc_rows"], n, s["base"])
                c, c_lo, c_hi = relative(cal_rows, n, s["base"])
                points.append(dict(anchor=s["anchor"], model=s["model"], prec=s["prec"], batch=s["batch"], n=n,
                                   base=s["base"], measured=s["by_n"][n]["efficiency"], unc=u, unc_lo=u_lo,
                                   unc_hi=u_hi, cal=c, cal_lo=c_lo, cal_hi=c_hi, calibrated_on=(n in s["multi"][:calibrate_on])))
    # a table's points in order of N, whichever of its projections scored them
    first = {}
    for p in points:
        first.setdefault((p["anchor"], p["model"], p["prec"], p["batch"]), len(first))
    points.sort(key=lambda p: (first[(p["anchor"], p["model"], p["prec"], p["batch"])], p["n"]))
    for p in points:
        p["unc_inside"] = p["unc_lo"] <= p["measured"] <= p["unc_hi"]
        p["cal_error"] = p["cal"] - p["measured"]
        p["cal_within"] = abs(p["cal_error"]) <= TOLERANCE
        p["cal_inside"] = p["cal_lo"] <= p["measured"] <= p["cal_hi"]
    return points, skipped


def table(points):
    yes = {True: "yes", False: "**no**"}
    lines = ["| anchor | model | precision | batch | N | relative to N = | measured | uncalibrated [band] | inside | "
             "calibrated [band] | error | within ±0.10 | inside |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for p in points:
        lines.append(f"| {p['anchor'].removesuffix('.h5')} | {p['model']} | {p['prec'] or '-'} | {p['batch']} | {p['n']} | "
                     f"{p['base']} | {p['measured']:.3f} | "
                     f"{p['unc']:.3f} [{p['unc_lo']:.3f}, {p['unc_hi']:.3f}] | {yes[p['unc_inside']]} | "
                     f"{p['cal']:.3f} [{p['cal_lo']:.3f}, {p['cal_hi']:.3f}]{' (fitted here)' if p['calibrated_on'] else ''} | "
                     f"{p['cal_error']:+.3f} | {yes[p['cal_within']]} | {yes[p['cal_inside']]} |")
    return "\n".join(lines)


def main(argv) -> int:
    if len(argv) < 2:
        sys.exit("usage: score_anchors.py SCALEBENCH [--check] [--markdown] [--points K]")
    # --points K: calibrate on each table's K smallest multi-node points (2 or more fit the latency
    # too; a table with fewer takes what it has). The check is of one point, as the issue states it.
    k = 1
    if "--points" in argv:
        given = argv[argv.index("--points") + 1] if argv.index("--points") + 1 < len(argv) else ""
        if not given.isdigit() or int(given) < 1:
            sys.exit(f"score_anchors.py: --points '{given}' (a count of points, 1 or more)")
        k = int(given)
    if k != 1 and "--check" in argv:
        sys.exit("score_anchors.py: --check scores calibration on one point; leave --points out")
    points, skipped = score(argv[1], k)
    print(table(points))
    for anchor, model, prec, batch, n in skipped:
        print(f"\nnot scored: {anchor} {model} {prec or '-'} batch {batch} N = {n} (project's N are powers of 2)")
    unc_in = sum(p["unc_inside"] for p in points)
    cal_ok = sum(p["cal_within"] for p in points)
    cal_in = sum(p["cal_inside"] for p in points)
    print(f"\n{len(points)} published points past one node: {unc_in} inside their uncalibrated band, "
          f"{cal_ok} within ±{TOLERANCE:.2f} calibrated on the table's "
          f"{'smallest multi-node point' if k == 1 else f'{k} smallest multi-node points'} "
          f"({cal_in} inside the calibrated band)")
    if "--check" not in argv:
        return 0
    bad = []
    for p in points:
        for kind, ok in (("uncalibrated", p["unc_inside"]), ("calibrated", p["cal_within"])):
            key = (p["anchor"], p["model"], p["prec"], p["batch"], p["n"], kind)
            if ok == (key in KNOWN_MISSES):
                bad.append(f"{key}: {'passes but is listed as a known miss' if ok else 'misses'}")
    if bad:
        print("FAIL:\n  " + "\n  ".join(bad))
        return 1
    print("study.published_tables: every point as stated")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
