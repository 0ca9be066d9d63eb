#!/usr/bin/env python3
"""torch_reference.py — PyTorch timing of one full training step of the same U-Net and VGG that
scalebench builds (models/unet.cpp, models/vgg.cpp), so the docs can put our images/s beside
PyTorch's on the same GPU (or, with --device cpu, the same CPU: tools/cpu_step_bench.py): forward,
softmax cross-entropy, backward, SGD with momentum.

The networks are written again here from the spec strings (docs/models.md), layer for layer:
  U-Net: per level conv3x3 [+ BatchNorm] + ReLU twice (the conv has a bias only without bn), max-pool
    2x2; bottleneck with base*2^depth channels; decoder: ConvTranspose2d 2x2 stride 2 (bias), concat
    [centre-crop(skip), up], conv3x3 [+ bn] + ReLU twice; head conv1x1 (bias) to classes logits.
    padding=same pads the 3x3 convs by 1, padding=valid by 0 (labels then are at the output size).
  VGG 11/13/16/19: conv3x3 pad 1 [+ bn] + ReLU and max-pool 2x2 per configuration, flatten (no
    adaptive pooling: c*(H/32)*(W/32) features), fc-ReLU-dropout twice, fc to classes.
Module and parameter names are our node names (enc0.conv0.weight, classifier.fc2.bias, ...), in our
node order, so the printed parameter count is directly comparable with `scalebench train`'s.
Optimiser as our defaults: SGD lr 0.05, momentum 0.9, no weight decay (torch's default foreach path).
cudnn.benchmark is on: our cuDNN layers pick algorithms with cudnnFind and cache them.

Eager, or torch.compile(model, mode=default|max-autotune) (--compile; the optimiser step stays
eager, as `torch.compile(model)` users run it). Comma lists in --precision, --layout and --compile
run every combination in one process (one import, one GPU warm-up); --reps R times the steps R times
in a row and reports the median; --expect-params N stops with an error when the network built here
does not have N parameters (tools/gpu-check.sh passes sb_bench_gpu_model's count, so ours and
PyTorch's are the same architecture or the row is not printed). --deadline-s stops starting rows past
that many seconds of the process (rows not started are printed as such: a budgeted device run).

Where torch comes from: nothing here installs it. The lent GPU machine's python3 has PyTorch (with
its CUDA wheels) but no package registry, and torch cannot be carried in the bundle (gigabytes), so
tools/gpu-check.sh uses the machine's own; on a CPU host, Debian's python3-torch (1.13: no
torch.compile, whose rows are then printed as unavailable, never timed as eager).

Deliberately NOT done: data loading or host-to-device copies (one random batch made on the GPU is
reused every step), class weights in the loss, LR schedule, CUDA graphs of our own making, DDP or any
multi-GPU run, eval/IoU/accuracy, checkpoints. It times PyTorch on one device, nothing more.

  python3 tools/torch_reference.py --model unet --spec unet:depth=4,base=8 --batch 8 --height 128 \
      --width 128 --channels 1 --classes 3 --precision bf16 --layout NHWC --json torch.jsonl
  python3 tools/torch_reference.py --model vgg16 --precision fp32,tf32,bf16 --layout NCHW,NHWC \
      --compile none,default --reps 3 --expect-params 138357544
  python3 tools/torch_reference.py --all [--layout NHWC] [--json torch.jsonl]
"""
import argparse
import json
import math
import time
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F

# The default U-Net run of `scalebench train` (harness/train/train_config.h: model
# "unet:depth=4,base=8", batch 8) on the default generated data (harness/data/particle_gen.h and
# particle_writer.cpp: 1x128x128 images, 3 pixel classes). models/unet.cpp's own option defaults
# (base=16, padding=same, bn=1) fill in the rest.
UNET_DEFAULT = dict(spec="unet:depth=4,base=8", batch=8, height=128, width=128, channels=1, classes=3)
# VGG16 at 224x224: no shipped study runs it; docs/models.md quotes "VGG16 at width 1 on 224x224x3
# with 1000 classes has 138,357,544 parameters", so that shape is used (our generated
# classification data would have 1 channel and 5 classes: a first conv and last fc a little smaller).
VGG_DEFAULT = dict(spec="", batch=32, height=224, width=224, channels=3, classes=1000)
LR, MOMENTUM = 0.05, 0.9  # harness/train/train_config.h defaults

M = "M"
VGG_CONFIGS = {
    11: [64, M, 128, M, 256, 256, M, 512, 512, M, 512, 512, M],
    13: [64, 64, M, 128, 128, M, 256, 256, M, 512, 512, M, 512, 512, M],
    16: [64, 64, M, 128, 128, M, 256, 256, 256, M, 512, 512, 512, M, 512, 512, 512, M],
    19: [64, 64, M, 128, 128, M, 256, 256, 256, 256, M, 512, 512, 512, 512, M, 512, 512, 512, 512, M],
}


# ---------------------------------------------------------------- spec strings (models/spec.cpp)

def fmt_num(v):
    s = repr(v)
    return s[:-2] if s.endswith(".0") else s  # as fmt's "{}" prints a double: 1, 0.25


class Spec:
    """family:key=value,...; typed access fills defaults; canonical() as scalebench's run ids."""

    def __init__(self, text, family):
        fam, colon, rest = text.partition(":")
        if fam != family:
            raise SystemExit(f"model spec '{text}': model '{fam}' but --model {family}")
        self.text, self.family, self.opts, self.resolved = text, family, {}, {}
        for item in rest.split(",") if colon else []:
            key, eq, value = item.partition("=")
            if not (key and eq and value) or key in self.opts:
                raise SystemExit(f"model spec '{text}': '{item}' is not key=value (or given twice)")
            self.opts[key] = value

    def get(self, key, default, kind):
        raw = self.opts.get(key)
        try:
            if kind is bool:
                if raw not in (None, "0", "1", "true", "false"):
                    raise ValueError
                v = default if raw is None else raw in ("1", "true")
            else:
                v = default if raw is None else kind(raw)
        except ValueError:
            raise SystemExit(f"model spec '{self.text}': {key}='{raw}' is not a {kind.__name__}")
        self.resolved[key] = ("1" if v else "0") if kind is bool else fmt_num(v) if kind is float else str(v)
        return v

    def finish(self):
        unknown = set(self.opts) - set(self.resolved)
        if unknown:
            raise SystemExit(f"model spec '{self.text}': unknown option '{sorted(unknown)[0]}' for {self.family}")
        return self.family + ":" + ",".join(f"{k}={self.resolved[k]}" for k in sorted(self.resolved))


# ---------------------------------------------------------------- U-Net (models/unet.cpp)

def centre_crop(x, h, w):
    """The centred h x w window; an odd difference leaves the extra row/column at the bottom/right."""
    oh, ow = (x.shape[2] - h) // 2, (x.shape[3] - w) // 2
    return x[:, :, oh:oh + h, ow:ow + w]


class Stage(nn.Module):
    """conv3x3 [+ bn] + relu, twice (children conv<j>, bn<j>, relu<j>); a decoder stage first runs
    its up-conv 'up' and concatenates [crop(skip), up]."""

    def __init__(self, c_in, c_out, pad, bn, up_in=0):
        super().__init__()
        self.up = nn.ConvTranspose2d(up_in, c_out, 2, stride=2, bias=True) if up_in else None
        self.order = []
        for j in range(2):
            self.add(f"conv{j}", nn.Conv2d(c_in if j == 0 else c_out, c_out, 3, padding=pad, bias=not bn))
            if bn:
                self.add(f"bn{j}", nn.BatchNorm2d(c_out, eps=1e-5, momentum=0.1))
            self.add(f"relu{j}", nn.ReLU(inplace=True))

    def add(self, name, module):
        self.add_module(name, module)
        self.order.append(name)

    def forward(self, x, skip=None):
        if self.up is not None:
            x = self.up(x)
            x = torch.cat([centre_crop(skip, x.shape[2], x.shape[3]), x], dim=1)
        for name in self.order:
            x = getattr(self, name)(x)
        return x


class UNet(nn.Module):
    def __init__(self, channels, classes, depth, base, pad, bn):
        super().__init__()
        self.depth, c = depth, channels
        for l in range(depth):
            setattr(self, f"enc{l}", Stage(c, base << l, pad, bn))
            c = base << l
        self.bottleneck = Stage(c, base << depth, pad, bn)
        c = base << depth
        for l in reversed(range(depth)):
            setattr(self, f"dec{l}", Stage(2 * (base << l), base << l, pad, bn, up_in=c))
            c = base << l
        self.head = nn.Conv2d(c, classes, 1, bias=True)

    def forward(self, x):
        skips = []
        for l in range(self.depth):
            x = getattr(self, f"enc{l}")(x)
            skips.append(x)
            x = F.max_pool2d(x, 2)
        x = self.bottleneck(x)
        for l in reversed(range(self.depth)):
            x = getattr(self, f"dec{l}")(x, skips[l])
        return self.head(x)


def unet_output_side(n, depth, pad):
    """Output side for an input side n, with the checks the C++ layers make."""
    shrink, sides = 4 * (1 - pad), []
    for _ in range(depth):
        n -= shrink
        if n < 2:
            raise SystemExit("unet: the image is too small for this depth with valid padding")
        sides.append(n)
        n //= 2
    n -= shrink
    for l in reversed(range(depth)):
        n *= 2
        if n > sides[l] or n - shrink < 1:
            raise SystemExit("unet: the image is too small for this depth with valid padding")
        n -= shrink
    return n


def build_unet(spec, a):
    depth = spec.get("depth", 4, int)
    base = spec.get("base", 16, int)
    padding = spec.get("padding", "same", str)
    bn = spec.get("bn", True, bool)
    classes = spec.get("classes", a.classes, int)
    canonical = spec.finish()
    if padding not in ("same", "valid") or classes != a.classes or not 1 <= depth <= 7:
        raise SystemExit(f"model spec '{spec.text}': bad padding, depth or classes (data: {a.classes} classes)")
    pad = 1 if padding == "same" else 0
    if pad and (a.height % (1 << depth) or a.width % (1 << depth)):
        raise SystemExit(f"unet depth={depth} same padding needs sizes divisible by {1 << depth}")
    out_hw = (unet_output_side(a.height, depth, pad), unet_output_side(a.width, depth, pad))
    return UNet(a.channels, classes, depth, base, pad, bn), canonical, out_hw


# ---------------------------------------------------------------- VGG (models/vgg.cpp)

class VGG(nn.Module):
    def __init__(self, layers, channels, height, width_px, classes, width, bn, hidden, p):
        super().__init__()
        feats, c, i, j = OrderedDict(), channels, 0, 0
        for v in VGG_CONFIGS[layers]:
            if v == M:
                feats[f"pool{j}"], j = nn.MaxPool2d(2), j + 1
                continue
            out = max(1, int(math.floor(v * width + 0.5)))  # std::lround
            feats[f"conv{i}"] = nn.Conv2d(c, out, 3, padding=1, bias=not bn)
            if bn:
                feats[f"bn{i}"] = nn.BatchNorm2d(out, eps=1e-5, momentum=0.1)
            feats[f"relu{i}"] = nn.ReLU(inplace=True)
            c, i = out, i + 1
        self.features = nn.Sequential(feats)
        drop = (lambda: nn.Dropout(p)) if p > 0 else nn.Identity  # ours is the identity at p = 0
        self.classifier = nn.Sequential(OrderedDict([
            ("fc0", nn.Linear(c * (height // 32) * (width_px // 32), hidden)), ("relu0", nn.ReLU(inplace=True)),
            ("drop0", drop()),
            ("fc1", nn.Linear(hidden, hidden)), ("relu1", nn.ReLU(inplace=True)), ("drop1", drop()),
            ("fc2", nn.Linear(hidden, classes))]))

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))  # [n, c*h*w] in NCHW order


def build_vgg(spec, a, layers):
    width = spec.get("width", 1.0, float)
    bn = spec.get("bn", False, bool)
    hidden = spec.get("hidden", max(1, int(math.floor(4096 * width + 0.5))), int)
    p = spec.get("dropout", 0.5, float)
    classes = spec.get("classes", a.classes, int)
    if a.height < 32 or a.width < 32:
        raise SystemExit(f"vgg needs images of at least 32x32 (5 pools), got {a.height}x{a.width}")
    given = spec.get("input", a.height, int)
    canonical = spec.finish()
    if classes != a.classes or given != a.height or not 0 <= p <= 0.95:
        raise SystemExit(f"model spec '{spec.text}': classes/input/dropout disagree with the data or range")
    return VGG(layers, a.channels, a.height, a.width, classes, width, bn, hidden, p), canonical, None


# ---------------------------------------------------------------- one timed run

COMPILE_MODES = ("none", "default", "max-autotune")


def compile_unavailable(mode):
    """Why `mode` cannot run with this torch (None when it can)."""
    if mode != "none" and not hasattr(torch, "compile"):
        return f"torch {torch.__version__} has no torch.compile"
    return None


def run(a):
    dev = torch.device(a.device)
    if dev.type == "cpu" and getattr(a, "threads", 0):
        torch.set_num_threads(a.threads)
    spec = Spec(a.spec or a.model, a.model)
    model, canonical, out_hw = build_unet(spec, a) if a.model == "unet" else build_vgg(spec, a, int(a.model[3:]))
    params = sum(p.numel() for p in model.parameters())
    if a.expect_params is not None and params != a.expect_params:
        raise SystemExit(f"torch_reference: {canonical} has {params} parameters here but {a.expect_params} in "
                         f"scalebench (--expect-params): not the same architecture")
    fmt = torch.channels_last if a.layout == "NHWC" else torch.contiguous_format
    model = model.to(dev, memory_format=fmt).train()
    x = torch.randn(a.batch, a.channels, a.height, a.width, device=dev).contiguous(memory_format=fmt)
    y = torch.randint(0, a.classes, (a.batch, *out_hw) if out_hw else (a.batch,), device=dev)
    # fp32: no TF32 anywhere; tf32: TF32 tensor cores for matmuls and convolutions; bf16: autocast
    # to bf16 with fp32 master weights (what stays fp32 under autocast stays true fp32).
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = a.precision == "tf32"
    torch.backends.cudnn.benchmark = True
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    forward = model if a.compile == "none" else torch.compile(model, mode=a.compile)

    def step():
        with torch.autocast(device_type=dev.type, dtype=torch.bfloat16, enabled=a.precision == "bf16"):
            loss = F.cross_entropy(forward(x), y)  # mean over samples (VGG) or pixels (U-Net)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    t_warm = time.perf_counter()
    for _ in range(a.warmup):  # a compiled model compiles here (its time is reported apart)
        step()
    sync()
    warmup_s = time.perf_counter() - t_warm
    per_rep = []  # ms per step, each repetition
    for _ in range(a.reps):
        t0 = time.perf_counter()
        for _ in range(a.steps):
            step()
        sync()
        per_rep.append((time.perf_counter() - t0) * 1000 / a.steps)
    ms = sorted(per_rep)[len(per_rep) // 2]  # the median (upper middle for an even count)
    r = dict(framework="torch", compile=a.compile, model=a.model, spec=canonical, precision=a.precision,
             layout=a.layout, batch=a.batch, height=a.height, width=a.width, channels=a.channels,
             classes=a.classes, steps=a.steps, warmup=a.warmup, reps=a.reps, images_per_s=a.batch * 1000 / ms,
             ms_per_step=ms, images_per_s_reps=[a.batch * 1000 / v for v in per_rep], warmup_s=warmup_s,
             params=params, device=torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu",
             threads=torch.get_num_threads() if dev.type == "cpu" else 0,
             torch=torch.__version__, cudnn=torch.backends.cudnn.version())
    reps = ",".join(f"{v:.1f}" for v in r["images_per_s_reps"])
    print(f"torch {a.compile if a.compile != 'none' else 'eager'} {a.model} {a.precision} {a.layout} batch {a.batch} "
          f"{a.height}x{a.width}: {r['images_per_s']:.1f} images/s ({ms:.1f} ms/step; reps {reps}; warm-up "
          f"{warmup_s:.1f} s), params {params}", flush=True)
    if a.json:
        with open(a.json, "a") as f:
            f.write(json.dumps(r) + "\n")
    del model, forward, opt, x, y
    if dev.type == "cuda":
        torch.cuda.empty_cache()
    if a.compile != "none" and hasattr(torch, "_dynamo"):
        torch._dynamo.reset()  # the next row compiles its own graphs, not this one's
    return r


def with_defaults(a):
    d = UNET_DEFAULT if a.model == "unet" else VGG_DEFAULT
    for k, v in d.items():
        if getattr(a, k) is None:
            setattr(a, k, v)
    return a


def csv_choice(allowed):
    def parse(text):
        items = text.split(",")
        bad = [i for i in items if i not in allowed]
        if bad or not items:
            raise argparse.ArgumentTypeError(f"'{text}': each of a comma list must be one of {', '.join(allowed)}")
        return items
    return parse


def run_rows(a, started):
    """Every combination of a's precision, layout and compile lists, in that nesting; rows past the
    deadline, torch.compile rows this torch cannot run and rows out of memory are printed as not run."""
    rows = []
    for compile_mode in a.compile:
        for layout in a.layout:
            for precision in a.precision:
                b = argparse.Namespace(**{**vars(a), "precision": precision, "layout": layout, "compile": compile_mode})
                what = f"torch {compile_mode} {a.model} {precision} {layout}"
                why = compile_unavailable(compile_mode)
                if why is None and a.deadline_s and time.perf_counter() - started > a.deadline_s:
                    why = f"not started: past --deadline-s {a.deadline_s:g}"
                if why:
                    print(f"{what}: {why}", flush=True)
                    continue
                try:
                    rows.append(run(b))
                except torch.cuda.OutOfMemoryError as e:
                    print(f"{what}: out of memory ({str(e).splitlines()[0]})", flush=True)
                    torch.cuda.empty_cache()
    return rows


def main():
    started = time.perf_counter()
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--model", choices=["unet", "vgg11", "vgg13", "vgg16", "vgg19"])
    p.add_argument("--spec", help="our spec string, e.g. unet:depth=4,base=8 (default: the model's default run)")
    for k in ("batch", "height", "width", "channels", "classes"):
        p.add_argument("--" + k, type=int)
    p.add_argument("--precision", type=csv_choice(("fp32", "tf32", "bf16")), default=["fp32"],
                   help="fp32, tf32, bf16, or a comma list of them")
    p.add_argument("--layout", type=csv_choice(("NCHW", "NHWC")), default=["NCHW"], help="NCHW, NHWC or both")
    p.add_argument("--compile", type=csv_choice(COMPILE_MODES), default=["none"],
                   help="none (eager), default, max-autotune (torch.compile modes), or a comma list")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--reps", type=int, default=1, help="time the steps this many times in a row; report the median")
    p.add_argument("--expect-params", type=int, help="stop unless the network has exactly this many parameters")
    p.add_argument("--deadline-s", type=float, default=0, help="start no row after this many seconds (0: none)")
    p.add_argument("--json", help="append one JSON object per run (a line each) to this file")
    p.add_argument("--all", action="store_true",
                   help="default U-Net and VGG16 (224x224, batch 32) x fp32/tf32/bf16 in --layout, one table")
    p.add_argument("--device", default="cuda",
                   help="cuda, or cpu (tools/cpu_step_bench.py: our CPU step beside PyTorch's)")
    p.add_argument("--threads", type=int, default=0,
                   help="cpu: torch.set_num_threads (intra-op threads; 0: PyTorch's default)")
    a = p.parse_args()
    if a.steps < 1 or a.reps < 1 or a.warmup < 0:
        p.error("--steps and --reps must be at least 1, --warmup at least 0")
    if not a.all:
        if not a.model:
            p.error("--model or --all is required")
        rows = run_rows(with_defaults(a), started)
        return 0 if rows or a.deadline_s or any(compile_unavailable(c) for c in a.compile) else 1
    rows = []
    for model in ("unet", "vgg16"):
        b = argparse.Namespace(**{**vars(a), "model": model, "precision": ["fp32", "tf32", "bf16"], "spec": None,
                                  **{k: None for k in ("batch", "height", "width", "channels", "classes")}})
        rows += run_rows(with_defaults(b), started)
    w = max([len(r["spec"]) for r in rows] + [5])
    print(f"\n{'model':<{w}} {'mode':<12} {'prec':<5} {'layout':<6} {'batch':>5} {'size':>9} {'images/s':>10} "
          f"{'ms/step':>9} {'params':>11}")
    for r in rows:
        print(f"{r['spec']:<{w}} {r['compile']:<12} {r['precision']:<5} {r['layout']:<6} {r['batch']:>5} "
              f"{str(r['height']) + 'x' + str(r['width']):>9} {r['images_per_s']:>10.1f} {r['ms_per_step']:>9.2f} "
              f"{r['params']:>11}")
    if rows:
        print(f"({rows[0]['device']}, torch {rows[0]['torch']}, cuDNN {rows[0]['cudnn']}, "
              f"{a.steps} steps after {a.warmup} warm-up, median of {a.reps})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
