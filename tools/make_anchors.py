#!/usr/bin/python3
"""make_anchors.py — writes the published scaling figures of results/anchors/README.md as study
files (docs/results-schema.md, `kind = study`), so `scalebench report`/`compare` and plots/ read
them beside a user's own study.

    /usr/bin/python3 tools/make_anchors.py [OUT_DIR]      (default: results/anchors)

Every number below is copied from the source named next to it, at the commit given; a figure the
source does not give is left out (NaN / empty), never estimated. Derived columns say so in the
row's `derived` column (speedup = efficiency x N, or efficiency = speedup / N: the definitions of
docs/design.md section 5). Each row's `source` column and the file's `source` attribute carry the
citation and the quoted sentence.

It deliberately does not download anything, does not read the sources (they were read by hand),
and writes no column a source does not give a value for (no epochs, losses, run files).
"""
from __future__ import annotations

import math
import os
import sys

import h5py
import numpy as np

NAN = math.nan

HOROVOD_URL = ("https://github.com/horovod/horovod/blob/62ed3398f65ede5505626af76bf544879a6add3e/docs/benchmarks.md")
HOROVOD_QUOTE = ("The above benchmark was done on 128 servers with 4 Pascal GPUs each connected by RoCE-capable 25 "
                 "Gbit/s network. Horovod achieves 90% scaling efficiency for both Inception V3 and ResNet-101, and "
                 "68% scaling efficiency for VGG-16.")
HOROVOD_SOURCE = (f"Horovod docs/benchmarks.md ({HOROVOD_URL}), the text under the '512-GPU Benchmark' figure: "
                  f"\"{HOROVOD_QUOTE}\" (the same benchmark as Sergeev & Del Balso 2018, arXiv:1802.05799)")

UNET_URL = ("https://github.com/NVIDIA/DeepLearningExamples/blob/2de29455a696b5608e24daa95f579f689b2d59e1/"
            "TensorFlow2/Segmentation/UNet_Medical/README.md")
UNET_SOURCE = (f"NVIDIA DeepLearningExamples TensorFlow2/Segmentation/UNet_Medical/README.md ({UNET_URL}), section "
               "'Training performance results', tables 'Training performance: NVIDIA DGX A100 (8x A100 40GB)' and "
               "'Training performance: NVIDIA DGX-1 (8x V100 16GB)': \"Performance numbers (in images per second) were "
               "averaged over 1000 iterations, excluding the first 200 warm-up steps.\" Columns: GPUs, Batch size / GPU, "
               "Throughput [img/s], Weak scaling (= throughput(8) / throughput(1)). Launched with horovodrun "
               "(the README's 'Training performance benchmark' section)")

# (model name here: unet_medical@<system>, so tables and plots never mix the two systems)
# (device, precision, batch per GPU, images/s at 1 GPU, images/s at 8 GPUs, published weak scaling at 8)
UNET_ROWS = [
    ("NVIDIA DGX A100 (8x A100 40GB)", "tf32", 1, 29.56, 210.74, 7.13),
    ("NVIDIA DGX A100 (8x A100 40GB)", "tf32", 8, 46.26, 293.64, 6.35),
    ("NVIDIA DGX A100 (8x A100 40GB)", "amp", 1, 62.50, 259.22, 4.15),
    ("NVIDIA DGX A100 (8x A100 40GB)", "amp", 8, 118.98, 561.77, 4.72),
    ("NVIDIA DGX-1 (8x V100 16GB)", "fp32", 1, 14.65, 117.81, 8.04),
    ("NVIDIA DGX-1 (8x V100 16GB)", "fp32", 8, 17.91, 137.11, 7.66),
    ("NVIDIA DGX-1 (8x V100 16GB)", "amp", 1, 40.36, 210.18, 5.21),
    ("NVIDIA DGX-1 (8x V100 16GB)", "amp", 8, 59.58, 368.88, 6.19),
]

TF_URL = ("https://github.com/tensorflow/tensorflow/blob/5984ffefd320c5d71b801ee06079a51b91ea42c0/"
          "tensorflow/docs_src/performance/benchmarks.md")
TF_SOURCE = (f"TensorFlow tensorflow/docs_src/performance/benchmarks.md ({TF_URL}), section 'Details for Amazon EC2 "
             "Distributed (NVIDIA Tesla K80)': \"Instance type: p2.8xlarge; GPU: 8x NVIDIA Tesla K80; ... Test Date: May "
             "2017\"; variable_update distributed_replicated, cross_replica_sync True; \"EC2 instances (p2.8xlarge) running "
             "worker servers also ran parameter servers\"; \"each test was run 5 times and then the times were averaged "
             "together ... 10 warmup steps are done and then the next 100 steps are averaged\". Tables 'Training "
             "synthetic data' (batch per GPU: InceptionV3 64, ResNet-50 64, ResNet-152 32) and, under 'Other Results', "
             "the same at batch 32 (InceptionV3, ResNet-50); images/s")
# The page states the instance type, not its network; AWS lists p2.8xlarge at "10 Gbps" (not in the source).
TF_NETWORK = "p2.8xlarge (network not stated by the source)"
# (model, batch per GPU, images/s at 1, 8, 16, 32, 64 GPUs), synthetic data, as published
TF_EC2_ROWS = [
    ("inception_v3", 64, (29.7, 229, 459, 902, 1783)),
    ("resnet50", 64, (52.4, 378, 751, 1388, 2744)),
    ("resnet152", 32, (19.4, 146, 291, 565, 981)),
    ("inception_v3", 32, (29.2, 219, 427, 820, 1608)),
    ("resnet50", 32, (48.4, 333, 667, 1180, 2315)),
]
TF_EC2_GPUS = (1, 8, 16, 32, 64)

GOYAL_URL = "https://arxiv.org/abs/1706.02677v2"
GOYAL_SOURCE = (f"Goyal et al., 'Accurate, Large Minibatch SGD: Training ImageNet in 1 Hour', arXiv:1706.02677v2 "
                f"({GOYAL_URL}; its text as stored in a public repository, read through this project's code search). "
                "Abstract: \"our Caffe2-based system trains ResNet-50 with a minibatch size of 8192 on 256 GPUs in one hour "
                "... Using commodity hardware, our implementation achieves ~90% scaling efficiency when moving from 8 to "
                "256 GPUs.\" Section 4.3: \"Each server contains 8 NVIDIA Tesla P100 GPUs that are interconnected with "
                "NVIDIA NVLink ... the servers have a Mellanox ConnectX-4 50Gbit Ethernet network card\"; \"Backprop for "
                "ResNet-50 on a single NVIDIA Tesla P100 GPU takes 120 ms.\" Section 5.1: \"we use n = 32 throughout\" "
                "(images per worker). Section 5.5: \"the time per iteration increases only 12% while scaling the minibatch "
                "size by 44x\" (256 to 11264 images: 8 to 352 GPUs, Figure 7: \"The baseline (kn = 256) uses 8 GPUs in a "
                "single server\"); \"Relative to a perfectly efficient extrapolation of the 8 GPU baseline, our "
                "implementation achieves ~90% scaling efficiency.\" Allreduce: Gloo, local reduction and broadcast "
                "pipelined with the inter-server allreduce (Section 4.2)")
# (GPUs, efficiency relative to the 8-GPU server, how it was read)
GOYAL_ROWS = [
    (8, 1.0, "the baseline: efficiency 1 by definition"),
    (256, 0.90, "published '~90%' (abstract), relative to the 8-GPU server"),
    (352, 1 / 1.12, "derived: weak scaling at 32 images a GPU, time per iteration +12% from 8 to 352 GPUs (Section 5.5), "
                    "efficiency = 1 / 1.12"),
]

TXL_URL = ("https://github.com/NVIDIA/DeepLearningExamples/blob/729963dd47e7c8bd462ad10bfac7a7b0b604e6dd/"
           "PyTorch/LanguageModeling/Transformer-XL/README.md")
TXL_TGT_LEN = 384  # the README's hyperparameter table: Large model tgt_len, "number of tokens to predict during training"
TXL_SOURCE = (f"NVIDIA DeepLearningExamples PyTorch/LanguageModeling/Transformer-XL/README.md ({TXL_URL}), section "
              "'Training performance: 8x NVIDIA DGX-2H (16x V100 32GB)', 'Large model': \"Our results were obtained by "
              "running the pytorch/run.sub training script in the pytorch-20.06-py3 NGC container. Performance numbers (in "
              "tokens per second) were averaged over 500 training iterations.\" \"The numbers presented above were "
              "obtained with LOCAL_BATCH_SIZE=4.\" Columns: Nodes, Batch Size / GPU, Throughput - FP32 (tok/s), Throughput - "
              "Mixed precision (tok/s), Weak Scaling - FP32, Weak scaling - Mixed precision. Large model: n_layer 18, "
              "d_model 1024, tgt_len 384 (the README's hyperparameter table); PyTorch DistributedDataParallel (train.py)")
# (precision, tokens/s at 1, 2, 4, 8 nodes, published weak scaling at 1, 2, 4, 8 nodes), batch 4 a GPU, 16 GPUs a node
TXL_ROWS = [
    ("fp32", (69070, 136960, 270120, 514500), (1.00, 1.98, 3.91, 7.45)),
    ("amp", (154950, 307520, 605530, 1189700), (1.00, 1.98, 3.91, 7.68)),
]
TXL_NODES = (1, 2, 4, 8)

DAINT_URL = ("https://github.com/e-bug/distributed-tensorflow-benchmarks/blob/a0d3d61f4f8994d96b40e1a65e78e5a92ef09741/"
              "report/source/benchmarks.tex")
DAINT_SOURCE = (f"E. Bugliarello, 'Distributed TensorFlow: A performance evaluation' (CSCS summer internship report, 2017), "
                f"report/source/benchmarks.tex ({DAINT_URL}) and report/source/envis.tex at the same commit. Settings: "
                "\"Model: InceptionV3; Batch size per GPU: 64; Data Format: NCHW; Local Parameter Device: CPU; Optimizer: sgd; "
                "Piz Daint OS: Suse 12/CLE 6.0.UP02; CUDA/cuDNN: 8.0/5.1; TensorFlow: 1.1.0; ... Test Date: August 2017\"; "
                "\"each test was run 5 times and then the times were averaged together\"; \"10 warmup steps are done and then "
                "the next 100 steps are averaged\"; \"nodes running Workers also run Parameter Servers\"; Table 'Parameters "
                "achieving peak performance on Piz Daint' (Num PSs, Num GPUs, Variable Update, Real Data, Img/s: \"Each of these "
                "values represents the peak performance achieved with the corresponding number of GPUs\"). envis.tex: \"Piz Daint "
                "is a hybrid Cray XC40/XC50 supercomputer at CSCS. The system has Aries routing and communications ASIC, with "
                "Dragonfly network topology.\" \"Each node that we use in Piz Daint is equipped with an NVIDIA Tesla P100\". "
                "tf_cnn_benchmarks.py at the same commit: server_protocol defaults to 'grpc' (the launch scripts do not set it)")
# The table's synthetic-data rows (Real Data FALSE), as published: (Num PSs, Num GPUs = nodes, Variable Update, Img/s).
# The real-data rows (Real Data TRUE) are not copied: the anchor is the compute-and-exchange case, as tf-ec2-k80-2017's.
DAINT_ROWS = [
    (1, 1, "parameter_server", 138.23),
    (1, 2, "parameter_server", 264.57),
    (3, 4, "distributed_replicated", 523.38),
    (2, 8, "parameter_server", 1018.18),
    (4, 16, "parameter_server", 2001.00),
    (12, 32, "parameter_server", 3840.35),
    (40, 64, "parameter_server", 7118.31),
    (116, 128, "parameter_server", 9219.70),
]

STR_COLS = ["run_id", "point_id", "group_id", "status", "error", "study", "model", "strategy", "scaling",
            "precision", "backend", "task", "device", "interconnect", "baseline", "derived", "source", "file"]
INT_COLS = ["world_size", "batch", "global_batch"]
FLOAT_COLS = ["images_per_s", "baseline_images_per_s", "speedup", "efficiency"]


def horovod_rows() -> list:
    out = []
    for model, eff in (("inception_v3", 0.90), ("resnet101", 0.90), ("vgg16", 0.68)):
        out.append(dict(model=model, strategy="ring", scaling="weak", precision="", world_size=512, batch=0,
                        device="128 servers x 4 Pascal GPUs", interconnect="RoCE-capable 25 Gbit/s",
                        images_per_s=NAN, baseline_images_per_s=NAN, efficiency=eff, speedup=eff * 512,
                        baseline="", derived="speedup = efficiency x 512; efficiency published as a whole percent",
                        source=HOROVOD_SOURCE, task="classification"))
    return out


def unet_rows() -> list:
    out = []
    for device, prec, batch, ips1, ips8, weak in UNET_ROWS:
        system = "dgxa100" if "A100" in device else "dgx1-v100"
        common = dict(model=f"unet_medical@{system}", strategy="ring", scaling="weak", precision=prec, batch=batch,
                      device=device, interconnect="inside one DGX (8 GPUs, one node)", baseline="ring N=1",
                      baseline_images_per_s=ips1, source=UNET_SOURCE, task="segmentation")
        out.append(dict(common, world_size=1, images_per_s=ips1, speedup=1.0, efficiency=1.0,
                        derived="speedup and efficiency at N = 1 are 1 by definition"))
        out.append(dict(common, world_size=8, images_per_s=ips8, speedup=weak, efficiency=weak / 8,
                        derived="efficiency = published weak scaling / 8"))
    return out


def tf_ec2_rows() -> list:
    out = []
    for model, batch, ips in TF_EC2_ROWS:
        common = dict(model=model, strategy="ps-sync", scaling="weak", precision="fp32", batch=batch,
                      device="p2.8xlarge: 8x NVIDIA Tesla K80 a node", interconnect=TF_NETWORK, baseline="N=1",
                      baseline_images_per_s=ips[0], source=TF_SOURCE, task="classification")
        for n, v in zip(TF_EC2_GPUS, ips):
            out.append(dict(common, world_size=n, images_per_s=v, speedup=v / ips[0], efficiency=v / ips[0] / n,
                            derived="speedup = images/s / images/s at 1 GPU; efficiency = speedup / N"))
    return out


def goyal_rows() -> list:
    out = []
    for n, eff, how in GOYAL_ROWS:
        out.append(dict(model="resnet50", strategy="hierarchical", scaling="weak", precision="", world_size=n, batch=32,
                        device="Big Basin: 8x NVIDIA Tesla P100 (NVLink) a server", task="classification",
                        interconnect="Mellanox ConnectX-4 50Gbit Ethernet a server, Wedge100 switches",
                        images_per_s=NAN, baseline_images_per_s=NAN, efficiency=eff, speedup=eff * n / 8,
                        baseline="N=8 (one server)", source=GOYAL_SOURCE,
                        derived=f"efficiency: {how}; speedup = efficiency x N / 8"))
    return out


def txl_rows() -> list:
    out = []
    for prec, toks, weak in TXL_ROWS:
        for nodes, tok, w in zip(TXL_NODES, toks, weak):
            out.append(dict(model="transformer_xl_large", strategy="ring", scaling="weak", precision=prec,
                            world_size=16 * nodes, batch=4, device="NVIDIA DGX-2H (16x V100 32GB) a node",
                            interconnect="not stated by the source", task="language_modeling",
                            images_per_s=tok / TXL_TGT_LEN, baseline_images_per_s=toks[0] / TXL_TGT_LEN,
                            speedup=w, efficiency=w / nodes, baseline="N=16 (one DGX-2H)", source=TXL_SOURCE,
                            derived=("images_per_s = sequences/s = published tok/s / 384 (tgt_len); speedup = the "
                                     "published weak scaling (relative to one node); efficiency = that / nodes")))
    return out


def daint_rows() -> list:
    out = []
    ips1 = DAINT_ROWS[0][3]
    for ps, n, update, ips in DAINT_ROWS:
        out.append(dict(model="inception_v3", strategy="ps-sync", scaling="weak", precision="fp32", batch=64, world_size=n,
                        device="Piz Daint (Cray XC40/XC50): 1x NVIDIA Tesla P100 a node", task="classification",
                        interconnect="Cray Aries, Dragonfly topology (rate not stated by the source); TensorFlow gRPC",
                        images_per_s=ips, baseline_images_per_s=ips1, speedup=ips / ips1, efficiency=ips / ips1 / n,
                        baseline="N=1", source=(f"{DAINT_SOURCE}. This row of the table: Num PSs {ps}, Num GPUs {n}, "
                                f"Variable Update {update}, Real Data FALSE, Img/s {ips:.2f}"),
                        derived="speedup = images/s / images/s at 1 GPU; efficiency = speedup / N"))
    return out


def write(path: str, study: str, rows: list, attrs: dict):
    for r in rows:
        key = f"{r['model']}-{r['device']}-{r['precision']}-b{r['batch']}".replace(" ", "_")
        r.setdefault("group_id", f"anchor-{study}-{key}")
        r.setdefault("point_id", f"{r['group_id']}-{r['strategy']}-n{r['world_size']}")
        r.setdefault("run_id", r["point_id"])
        r.update(status="ok", error="", study=study, backend="cuda", file="",
                 global_batch=r["batch"] * r["world_size"])
    sdt = h5py.string_dtype("utf-8")
    dt = np.dtype([(c, sdt) for c in STR_COLS] + [(c, "<i8") for c in INT_COLS] + [(c, "<f8") for c in FLOAT_COLS])
    table = np.zeros(len(rows), dtype=dt)
    for i, r in enumerate(rows):
        for c in STR_COLS:
            table[c][i] = str(r.get(c, ""))
        for c in INT_COLS:
            table[c][i] = int(r.get(c, 0))
        for c in FLOAT_COLS:
            table[c][i] = float(r.get(c, NAN))
    tmp = path + ".tmp"
    with h5py.File(tmp, "w") as f:
        f.attrs.update({"schema_version": np.int64(1), "kind": "study", "writer": "tools/make_anchors.py",
                        "created_utc": "2026-11-25T00:00:00Z", "study": study, "runs": np.int64(len(rows)),
                        "runs_ok": np.int64(len(rows)),
                        "point_fields": "model,strategy,scaling,precision,batch,device,world_size", **attrs})
        f.create_dataset("runs", data=table)
    os.replace(tmp, path)


def main(argv) -> int:
    out = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "results", "anchors")
    os.makedirs(out, exist_ok=True)
    files = {
        "horovod-2018.h5": ("anchor horovod-2018", horovod_rows(), {
            "source": HOROVOD_SOURCE,
            "speedup_definition": "published: scaling efficiency at 512 GPUs (whole percent); speedup = efficiency x N"}),
        "tf-ec2-k80-2017.h5": ("anchor tf-ec2-k80-2017", tf_ec2_rows(), {
            "source": TF_SOURCE,
            "speedup_definition": "derived: speedup = images/s(N) / images/s(1 GPU); efficiency = speedup / N"}),
        "goyal-2017.h5": ("anchor goyal-2017", goyal_rows(), {
            "source": GOYAL_SOURCE,
            "speedup_definition": "published: scaling efficiency relative to one 8-GPU server; speedup = efficiency x N / 8"}),
        "transformer-xl-dgx2h.h5": ("anchor transformer-xl-dgx2h", txl_rows(), {
            "source": TXL_SOURCE,
            "speedup_definition": "published: weak scaling = throughput(nodes) / throughput(1 node); efficiency = that / nodes"}),
        "tf-daint-p100-2017.h5": ("anchor tf-daint-p100-2017", daint_rows(), {
            "source": DAINT_SOURCE,
            "speedup_definition": "derived: speedup = images/s(N) / images/s(1 GPU); efficiency = speedup / N"}),
        "unet-medical-tf2.h5": ("anchor unet-medical-tf2", unet_rows(), {
            "source": UNET_SOURCE,
            "speedup_definition": "published: weak scaling = throughput(8 GPUs) / throughput(1 GPU); efficiency = that / 8"}),
    }
    for name, (study, rows, attrs) in files.items():
        p = os.path.join(out, name)
        write(p, study, rows, attrs)
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
