#!/usr/bin/python3
"""tf_cnn_variables.py — the variables tf_cnn_benchmarks places on parameter servers, in the order its
placement sees them, with their bytes: what `scalebench project --ps-variables` reads (docs/projection.md,
"The model"). Derived by arithmetic from the models' definitions, no count that a source prints; it
does not run TensorFlow and knows only inception3, resnet50 and resnet152.

    /usr/bin/python3 tools/tf_cnn_variables.py MODEL --variable-update parameter_server|distributed_replicated [-o FILE]

The source: tensorflow/benchmarks' scripts/tf_cnn_benchmarks, at 9a318c0 as Bugliarello's Piz Daint runs
vendored it (e-bug/distributed-tensorflow-benchmarks at a0d3d61, google-benchmarks/tf_cnn_benchmarks/,
identical but one commented line) and at 9165a70 as TensorFlow's EC2 page names it ("Benchmark GitHub
hash"); variable_mgr.py is the same file at both, and so is every line used below (the two
tf_cnn_benchmarks.py differ in dropout, result storage and logging only):
- inception_model.py / resnet_model.py, add_inference: the layers below, `cnn.use_batch_norm = True`
  before the first conv (ResNet: batch_norm_config scale=True); tf_cnn_benchmarks.py then adds
  `network.affine(nclass, activation='linear')`, nclass = 1001 (add_image_preprocessing).
- tf_cnn_benchmarks.py, ConvNetBuilder: conv() makes a kernel [kh, kw, in, out] (`use_bias=False`)
  and then batch_norm() -> tf.contrib.layers.batch_norm(fused=True); affine() makes `weights`
  [in, out] then `biases` [out]. inception_module(): columns in order, each column's first layer reads
  the module's input, `share` reuses the previous column's layer (no variable), pools make none; the
  module's output channels are the sum of the columns' last layers'. resnet_bottleneck_v1(): a 1x1
  shortcut conv where depth differs from the input's, then 1x1, 3x3, 1x1.
- TensorFlow 1.1.0 (the Daint report's), contrib/layers/python/layers/layers.py, _fused_batch_norm:
  creates beta (trainable with center, the default), gamma (trainable with scale; without, a fixed
  one, still a variable: the fused kernel needs a scale), moving_mean and moving_variance (not
  trainable), each [C], in that order.
- What each --variable-update places, and in what order (variable_mgr.py, tf_cnn_benchmarks.py):
  parameter_server: VariableMgrDistributedFetchFromPS puts the model under replica_device_setter
  with GreedyLoadBalancingStrategy(byte_size_load_fn): every model variable, in creation order (the
  global step is placed by another setter, param_server_device); distributed_replicated: the model's
  variables stay on the workers, and a `ps_var/` copy of each trainable one is created, in order, under
  param_server_device (replica_device_setter's round robin), which has placed the global step (int64)
  first (_build_model: `with tf.device(self.global_step_device)`, global_step_device =
  param_server_device).
All float32 (4 bytes). Non-trainable variables are placed but carry no gradient.
"""
from __future__ import annotations

import argparse
import sys

FLOAT_BYTES = 4
NCLASS = 1001  # tf_cnn_benchmarks.py, add_image_preprocessing: "nclass = 1001"


class Builder:
    """ConvNetBuilder's variable side: the channel bookkeeping and the variables each layer creates."""

    def __init__(self, channels: int, bn_scale: bool):
        self.top = channels
        self.bn_scale = bn_scale  # batch_norm_config's scale: gamma trainable
        self.variables: list[tuple[str, int, bool]] = []  # (name, bytes, trainable) in creation order
        self.convs = 0

    def conv(self, out: int, kh: int, kw: int, *_stride_and_mode, cin: int | None = None):
        cin = self.top if cin is None else cin
        name = f"conv{self.convs}"
        self.convs += 1
        self.variables.append((f"{name}/kernel", kh * kw * cin * out * FLOAT_BYTES, True))
        for v, trainable in (("beta", True), ("gamma", self.bn_scale), ("moving_mean", False), ("moving_variance", False)):
            self.variables.append((f"{name}/batchnorm/{v}", out * FLOAT_BYTES, trainable))
        self.top = out

    def module(self, cols):
        cin = self.top
        sizes: list[list[int]] = []
        for c, col in enumerate(cols):
            sizes.append([])
            for l, layer in enumerate(col):
                kind, args = layer[0], layer[1:]
                first = {"cin": cin} if l == 0 else {}
                if kind == "conv":
                    self.conv(*args, **first)
                elif kind in ("mpool", "apool"):
                    self.top = cin if l == 0 else self.top  # a pool keeps its input's channels
                elif kind == "share":
                    self.top = sizes[c - 1][l]
                sizes[c].append(self.top)
        self.top = sum(s[-1] for s in sizes)

    def bottleneck(self, depth: int, depth_bottleneck: int):
        cin = self.top
        if depth != cin:
            self.conv(depth, 1, 1, cin=cin)  # the shortcut
        self.conv(depth_bottleneck, 1, 1, cin=cin)
        self.conv(depth_bottleneck, 3, 3)
        self.conv(depth, 1, 1)

    def affine(self, out: int):
        self.variables.append(("affine0/weights", self.top * out * FLOAT_BYTES, True))
        self.variables.append(("affine0/biases", out * FLOAT_BYTES, True))
        self.top = out


def inception3() -> list[tuple[str, int, bool]]:
    """inception_model.py's Inceptionv3Model.add_inference, then the class layer (see the header)."""
    def a(n):
        return [[("conv", 64, 1, 1)], [("conv", 48, 1, 1), ("conv", 64, 5, 5)],
                [("conv", 64, 1, 1), ("conv", 96, 3, 3), ("conv", 96, 3, 3)],
                [("apool", 3, 3, 1, 1, "SAME"), ("conv", n, 1, 1)]]

    b = [[("conv", 384, 3, 3, 2, 2, "VALID")],
         [("conv", 64, 1, 1), ("conv", 96, 3, 3), ("conv", 96, 3, 3, 2, 2, "VALID")],
         [("mpool", 3, 3, 2, 2, "VALID")]]

    def c(n):
        return [[("conv", 192, 1, 1)],
                [("conv", n, 1, 1), ("conv", n, 1, 7), ("conv", 192, 7, 1)],
                [("conv", n, 1, 1), ("conv", n, 7, 1), ("conv", n, 1, 7), ("conv", n, 7, 1), ("conv", 192, 1, 7)],
                [("apool", 3, 3, 1, 1, "SAME"), ("conv", 192, 1, 1)]]

    d = [[("conv", 192, 1, 1), ("conv", 320, 3, 3, 2, 2, "VALID")],
         [("conv", 192, 1, 1), ("conv", 192, 1, 7), ("conv", 192, 7, 1), ("conv", 192, 3, 3, 2, 2, "VALID")],
         [("mpool", 3, 3, 2, 2, "VALID")]]

    def e(pool):
        return [[("conv", 320, 1, 1)], [("conv", 384, 1, 1), ("conv", 384, 1, 3)],
                [("share",), ("conv", 384, 3, 1)],
                [("conv", 448, 1, 1), ("conv", 384, 3, 3), ("conv", 384, 1, 3)],
                [("share",), ("share",), ("conv", 384, 3, 1)],
                [(pool, 3, 3, 1, 1, "SAME"), ("conv", 192, 1, 1)]]

    cnn = Builder(3, bn_scale=False)  # input_nchan = 3; batch_norm_config {}
    for out, k in ((32, 3), (32, 3), (64, 3)):
        cnn.conv(out, k, k)
    cnn.conv(80, 1, 1)  # after mpool (channels kept)
    cnn.conv(192, 3, 3)
    for cols in (a(32), a(64), a(64), b, c(128), c(160), c(160), c(192), d, e("apool"), e("mpool")):
        cnn.module(cols)
    assert cnn.top == 2048, cnn.top  # add_inference ends with cnn.reshape([-1, 2048])
    cnn.affine(NCLASS)
    return cnn.variables


def resnet(layer_counts) -> list[tuple[str, int, bool]]:
    """resnet_model.py's Resnetv1Model.add_inference (model_config.py's layer counts), then the class layer."""
    cnn = Builder(3, bn_scale=True)  # batch_norm_config {'decay': 0.997, 'epsilon': 1e-5, 'scale': True}
    cnn.conv(64, 7, 7)  # then mpool (channels kept)
    for count, (depth, bottleneck) in zip(layer_counts, ((256, 64), (512, 128), (1024, 256), (2048, 512))):
        for _ in range(count):
            cnn.bottleneck(depth, bottleneck)
    cnn.affine(NCLASS)  # after spatial_mean: 2048 channels
    return cnn.variables


MODELS = {"inception3": inception3, "resnet50": lambda: resnet((3, 4, 6, 3)), "resnet152": lambda: resnet((3, 8, 36, 3))}
GLOBAL_STEP = ("global_step", 8, False)  # int64 scalar
# `project --ps-placement` for each --variable_update (the setters above: greedy, replica_device_setter's round robin)
RULE = {"parameter_server": "greedy", "distributed_replicated": "round-robin"}


def placed(variables, variable_update: str):
    """The sequence the placement sees (see the header): every variable (parameter_server), or the global
    step then a copy of each trainable one (distributed_replicated)."""
    if variable_update == "parameter_server":
        return variables
    return [GLOBAL_STEP] + [(f"ps_var/{n}", b, t) for n, b, t in variables if t]


def write(variables, out):
    out.write("# NAME BYTES trainable|fixed, in the order the placement sees them (tools/tf_cnn_variables.py)\n")
    for name, nbytes, trainable in variables:
        out.write(f"{name} {nbytes} {'trainable' if trainable else 'fixed'}\n")


def main(argv) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model", choices=sorted(MODELS))
    ap.add_argument("--variable-update", required=True, choices=sorted(RULE))
    ap.add_argument("-o", "--output", help="write here (default: stdout)")
    args = ap.parse_args(argv[1:])
    variables = placed(MODELS[args.model](), args.variable_update)
    if args.output:
        with open(args.output, "w") as f:
            write(variables, f)
    else:
        write(variables, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
