#!/usr/bin/env python3
"""threshold_baseline.py — the best per-pixel intensity-threshold classifier on a segmentation
dataset, as a floor a segmentation model must clear.

Two thresholds t1 <= t2 split pixels into three intensity bands; each band is assigned one class.
Thresholds are searched over a grid of intensity quantiles of the training pixels, and for every
(t1, t2) all 27 band→class assignments are scored; the fit maximises the mean IoU over the
non-background classes (the figure reported) on the first 90% of samples. The fitted classifier is
then evaluated on the last 10%. If this baseline scores well, the data can be segmented by
brightness alone and a U-Net's score says little about shape.

It deliberately uses nothing but a pixel's own value: no neighbourhood, no learning beyond the two
thresholds. Needs only h5py and numpy (Debian's python3-h5py).

    /usr/bin/python3 tools/threshold_baseline.py data/showers.h5 [--quantiles 200] [--verbose]
"""
import argparse
import itertools
import sys

import h5py
import numpy as np


def load(path, lo, hi):
    with h5py.File(path, "r") as f:
        x = f["images"][lo:hi, 0].astype(np.float32).ravel()
        y = f["labels"][lo:hi].astype(np.int64).ravel()
    return x, y


def band_counts(x, y, edges, classes):
    """cum[c, i] = number of pixels of class c with value <= edges[i]; gt[c] = pixels of class c."""
    bins = np.searchsorted(edges, x, side="left")  # bins <= i  <=>  x <= edges[i]
    hist = np.zeros((classes, len(edges) + 1), dtype=np.int64)
    np.add.at(hist, (y, bins), 1)
    return np.cumsum(hist, axis=1)[:, : len(edges)], hist.sum(axis=1)


def iou_table(bands, gt, assignments):
    """bands: [P, 3 bands, C] pixel counts; assignments: [A, 3] class per band → IoU [P, A, C]."""
    classes = bands.shape[2]
    onehot = np.zeros((len(assignments), 3, classes))
    for a, assign in enumerate(assignments):
        for b, c in enumerate(assign):
            onehot[a, b, c] = 1.0
    tp = np.einsum("pbc,abc->pac", bands, onehot)
    pred = np.einsum("pb,abc->pac", bands.sum(axis=2), onehot)
    union = pred + gt[None, None, :] - tp
    return np.where(union > 0, tp / np.maximum(union, 1), 0.0)


def main():
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("dataset", help="scalebench segmentation dataset (.h5)")
    ap.add_argument("--quantiles", type=int, default=200, help="threshold grid size (default 200)")
    ap.add_argument("--train-frac", type=float, default=0.9, help="fit on this leading fraction")
    ap.add_argument("--verbose", action="store_true", help="print per-class intensity quantiles")
    args = ap.parse_args()

    with h5py.File(args.dataset, "r") as f:
        task = f.attrs.get("task")
        task = task.decode() if isinstance(task, bytes) else task
        if task != "segmentation":
            sys.exit(f"threshold_baseline: {args.dataset}: task is {task!r}, expected 'segmentation'")
        n, _, h, w = f["images"].shape
        classes = int(f.attrs["classes"])
        names = f.attrs.get("class_names", ",".join(f"class{c}" for c in range(classes)))
        names = (names.decode() if isinstance(names, bytes) else names).split(",")
    split = int(round(n * args.train_frac))
    if not 0 < split < n:
        sys.exit(f"threshold_baseline: {args.dataset}: {n} samples are too few to split")

    x, y = load(args.dataset, 0, split)
    grid = np.linspace(0, 1, args.quantiles + 1)[1:-1]
    edges = np.unique(np.quantile(x, grid).astype(np.float32))
    cum, gt = band_counts(x, y, edges, classes)
    if args.verbose:
        for c in range(classes):
            q = np.quantile(x[y == c], [0.1, 0.25, 0.5, 0.75, 0.9]) if gt[c] else []
            print(f"  train {names[c]:>10s}: {gt[c] / len(x):6.2%} of pixels, "
                  f"charge q10/q25/q50/q75/q90 = " + " ".join(f"{v:.3f}" for v in q))
    del x, y

    # Every pair t1 = edges[i] <= t2 = edges[j].
    i, j = np.triu_indices(len(edges))
    low = cum[:, i].T                   # [P, C] pixels <= t1
    mid = (cum[:, j] - cum[:, i]).T     # [P, C] t1 < x <= t2
    high = (gt[:, None] - cum[:, j]).T  # [P, C] x > t2
    bands = np.stack([low, mid, high], axis=1).astype(np.float64)
    assignments = list(itertools.product(range(classes), repeat=3))
    iou = iou_table(bands, gt.astype(np.float64), assignments)
    score = iou[:, :, 1:].mean(axis=2)  # mean over non-background classes
    p, a = np.unravel_index(np.argmax(score), score.shape)
    t1, t2, assign = float(edges[i[p]]), float(edges[j[p]]), assignments[a]

    # Evaluate on the held-out tail.
    x, y = load(args.dataset, split, n)
    pred = np.where(x <= t1, assign[0], np.where(x <= t2, assign[1], assign[2]))
    test = []
    for c in range(classes):
        inter = np.count_nonzero((pred == c) & (y == c))
        union = np.count_nonzero((pred == c) | (y == c))
        test.append(inter / union if union else 0.0)

    print(f"threshold baseline: {args.dataset} ({n} samples, {h}x{w}, {classes} classes)")
    print(f"fit on samples [0, {split}) over {len(edges)} quantile thresholds; "
          f"train mean non-background IoU {score[p, a]:.3f}")
    print(f"bands: x <= {t1:.4f} -> {names[assign[0]]} | {t1:.4f} < x <= {t2:.4f} -> "
          f"{names[assign[1]]} | x > {t2:.4f} -> {names[assign[2]]}")
    print(f"test samples [{split}, {n}): " +
          "  ".join(f"IoU {names[c]} {test[c]:.3f}" for c in range(classes)))
    print(f"mean IoU (non-background classes): {np.mean(test[1:]):.3f}")


if __name__ == "__main__":
    main()
