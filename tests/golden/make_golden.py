#!/usr/bin/env python3
"""make_golden.py — writes the PyTorch reference files that tests/models/test_golden.cpp compares
scalebench's models against: one training-mode forward + loss + backward of a tiny U-Net and a tiny
VGG, computed in float64 by PyTorch (torch.nn.functional, autograd) from float32-rounded weights and
inputs. Parameter names follow models/unet.cpp and models/vgg.cpp (node name + ".weight"/".bias").

It does not use scalebench's initialiser or kernels: the weights are seeded numpy normals, and the
architecture is written here again from the model descriptions, so a wrong layer semantics in the
C++ code (weight layout, crop window, concat order, batch-norm statistics, loss weighting) shows up
as a mismatch. It does not exercise dropout (p = 0) or eval mode.

Run: /usr/bin/python3 tests/golden/make_golden.py   (needs python3-torch, h5py, numpy)
"""
import os

import h5py
import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
EPS = 1e-5  # batch-norm epsilon, as LayerDesc.bn_eps


class Params:
    """Named float32-rounded parameters held as float64 leaf tensors (insertion order kept)."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.t = {}

    def add(self, name, shape, std, mean=0.0):
        v = (mean + std * self.rng.standard_normal(shape)).astype(np.float32)
        self.t[name] = torch.tensor(v.astype(np.float64), requires_grad=True)

    def __getitem__(self, name):
        return self.t[name]

    def get(self, name):
        return self.t.get(name)


def conv_params(P, name, c_in, c_out, k, bias):
    P.add(name + ".weight", (c_out, c_in, k, k), np.sqrt(2.0 / (c_in * k * k)))
    if bias:
        P.add(name + ".bias", (c_out,), 0.1)


def bn_params(P, name, c):
    P.add(name + ".weight", (c,), 0.1, mean=1.0)
    P.add(name + ".bias", (c,), 0.1)


def conv_bn_relu(P, x, conv, bn, pad):
    """conv3x3 [+ batch norm with batch statistics] + ReLU; bn is the node name or None."""
    x = F.conv2d(x, P[conv + ".weight"], P.get(conv + ".bias"), stride=1, padding=pad)
    if bn:
        x = F.batch_norm(x, None, None, P[bn + ".weight"], P[bn + ".bias"], training=True, eps=EPS)
    return F.relu(x)


# ---------------------------------------------------------------- U-Net (models/unet.cpp)

def unet_build(P, in_ch, depth, base, classes, bn):
    def double_conv(prefix, c_in, c_out):
        for j in range(2):
            conv_params(P, f"{prefix}.conv{j}", c_in if j == 0 else c_out, c_out, 3, bias=not bn)
            if bn:
                bn_params(P, f"{prefix}.bn{j}", c_out)

    c = in_ch
    for l in range(depth):
        double_conv(f"enc{l}", c, base << l)
        c = base << l
    double_conv("bottleneck", c, base << depth)
    c = base << depth
    for l in reversed(range(depth)):
        out = base << l
        # ConvTranspose2d weight layout: [c_in, c_out, 2, 2].
        P.add(f"dec{l}.up.weight", (c, out, 2, 2), np.sqrt(2.0 / (out * 4)))
        P.add(f"dec{l}.up.bias", (out,), 0.1)
        double_conv(f"dec{l}", 2 * out, out)  # concat: skip (out channels) + up (out channels)
        c = out
    conv_params(P, "head", c, classes, 1, bias=True)


def centre_crop(x, h, w):
    """The centred h×w window; odd differences leave the extra row/column at the bottom/right."""
    oh, ow = (x.shape[2] - h) // 2, (x.shape[3] - w) // 2
    return x[:, :, oh:oh + h, ow:ow + w]


def unet_forward(P, x, depth, bn, pad):
    def double_conv(prefix, x):
        for j in range(2):
            x = conv_bn_relu(P, x, f"{prefix}.conv{j}", f"{prefix}.bn{j}" if bn else None, pad)
        return x

    skips = []
    for l in range(depth):
        x = double_conv(f"enc{l}", x)
        skips.append(x)
        x = F.max_pool2d(x, 2)
    x = double_conv("bottleneck", x)
    for l in reversed(range(depth)):
        x = F.conv_transpose2d(x, P[f"dec{l}.up.weight"], P[f"dec{l}.up.bias"], stride=2)
        x = torch.cat([centre_crop(skips[l], x.shape[2], x.shape[3]), x], dim=1)
        x = double_conv(f"dec{l}", x)
    return F.conv2d(x, P["head.weight"], P["head.bias"])


# ---------------------------------------------------------------- VGG (models/vgg.cpp)

VGG11 = [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]


def scaled(c, width):
    return max(1, int(np.floor(c * width + 0.5)))  # std::lround for positive values


def vgg_build(P, in_ch, width, hidden, classes, bn, features):
    c, i = in_ch, 0
    for v in VGG11:
        if v == "M":
            continue
        out = scaled(v, width)
        conv_params(P, f"features.conv{i}", c, out, 3, bias=not bn)
        if bn:
            bn_params(P, f"features.bn{i}", out)
        c, i = out, i + 1
    dims = [c * features, hidden, hidden, classes]
    for k in range(3):
        P.add(f"classifier.fc{k}.weight", (dims[k + 1], dims[k]), np.sqrt(2.0 / dims[k]))
        P.add(f"classifier.fc{k}.bias", (dims[k + 1],), 0.1)


def vgg_forward(P, x, bn):
    i = 0
    for v in VGG11:
        if v == "M":
            x = F.max_pool2d(x, 2)
            continue
        x = conv_bn_relu(P, x, f"features.conv{i}", f"features.bn{i}" if bn else None, 1)
        i += 1
    x = torch.flatten(x, 1)  # NCHW order
    for k in range(2):
        x = F.relu(F.linear(x, P[f"classifier.fc{k}.weight"], P[f"classifier.fc{k}.bias"]))
        # classifier.drop<k>: dropout=0 in the spec, the identity
    return F.linear(x, P["classifier.fc2.weight"], P["classifier.fc2.bias"])


# ---------------------------------------------------------------- files

def write(path, spec, classes, x, labels, P, logits, loss, class_weights):
    loss.backward()
    with h5py.File(path, "w") as f:
        f.attrs["spec"] = spec
        f.attrs["classes"] = np.int32(classes)
        f.attrs["loss"] = np.float64(loss.item())
        f.attrs["generator"] = f"tests/golden/make_golden.py, torch {torch.__version__}, float64"
        if class_weights is not None:
            f.attrs["class_weights"] = np.asarray(class_weights, dtype=np.float32)
        f.create_dataset("input", data=x.numpy().astype(np.float32))
        f.create_dataset("labels", data=labels.astype(np.int32))
        f.create_dataset("logits", data=logits.detach().numpy())
        for name, t in P.t.items():
            f.create_dataset(f"params/{name}", data=t.detach().numpy().astype(np.float32))
            f.create_dataset(f"grads/{name}", data=t.grad.numpy())
    print(f"{path}: loss {loss.item():.10f}, {len(P.t)} parameter tensors")


def make_unet(path, spec, depth, base, bn, pad, n, hw, classes, class_weights, seed):
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed + 1)
    P = Params(seed)
    unet_build(P, 1, depth, base, classes, bn)
    x = torch.tensor(rng.standard_normal((n, 1, hw, hw)).astype(np.float32).astype(np.float64))
    labels_full = rng.integers(0, classes, size=(n, hw, hw))
    logits = unet_forward(P, x, depth, bn, pad)
    h, w = logits.shape[2], logits.shape[3]
    # The labels are stored at the input's size; with valid padding the loss sees their centred
    # window, which the C++ side must pick with center_crop_labels.
    oh, ow = (hw - h) // 2, (hw - w) // 2
    labels = labels_full[:, oh:oh + h, ow:ow + w]
    weight = torch.tensor(class_weights, dtype=torch.float64) if class_weights is not None else None
    loss = F.cross_entropy(logits, torch.tensor(labels, dtype=torch.long), weight=weight)
    write(path, spec, classes, x, labels_full, P, logits, loss, class_weights)


def make_vgg(path, spec, width, hidden, bn, n, hw, classes, seed):
    rng = np.random.default_rng(seed + 1)
    P = Params(seed)
    vgg_build(P, 1, width, hidden, classes, bn, (hw // 32) ** 2)
    x = torch.tensor(rng.standard_normal((n, 1, hw, hw)).astype(np.float32).astype(np.float64))
    labels = rng.integers(0, classes, size=(n,))
    logits = vgg_forward(P, x, bn)
    loss = F.cross_entropy(logits, torch.tensor(labels, dtype=torch.long))
    write(path, spec, classes, x, labels, P, logits, loss, None)


def main():
    torch.set_default_dtype(torch.float64)
    make_unet(os.path.join(HERE, "unet_tiny.h5"), "unet:depth=2,base=4,padding=same,bn=1",
              depth=2, base=4, bn=True, pad=1, n=2, hw=16, classes=3, class_weights=[0.2, 1.0, 1.5], seed=11)
    make_unet(os.path.join(HERE, "unet_valid_tiny.h5"), "unet:depth=2,base=2,padding=valid,bn=0",
              depth=2, base=2, bn=False, pad=0, n=2, hw=45, classes=3, class_weights=[0.5, 1.0, 2.0], seed=12)
    make_vgg(os.path.join(HERE, "vgg_tiny.h5"), "vgg11:width=0.0625,hidden=16,dropout=0,bn=1",
             width=0.0625, hidden=16, bn=True, n=3, hw=32, classes=5, seed=13)


if __name__ == "__main__":
    main()
