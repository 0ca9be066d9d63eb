#!/usr/bin/env python3
"""compare_weights.py — compares weight dumps of `scalebench train --dump-weights` (raw float32).

  compare_weights.py close INIT REF OTHER... [--rtol 1e-5] [--l2]
      every OTHER's update (OTHER - INIT) equals REF's update within rtol, relative to max|REF - INIT|
      (the update is what one step changes; comparing whole weights would hide it under the init).
      --l2: the norm of the difference against the norm of REF's update instead — for optimizers
      that divide each element by its own gradient scale (LAMB's first step is about sign(g)), where
      an element whose gradient is rounding noise may move differently without the step being wrong
  compare_weights.py identical A B...
      every file is byte-identical to A

Prints one line per comparison; exits 1 on the first failure. Uses numpy only.
"""
import sys

import numpy as np


def load(path):
    return np.fromfile(path, dtype=np.float32).astype(np.float64)


def main(argv):
    mode, rest = argv[1], argv[2:]
    if mode == "identical":
        ref = open(rest[0], "rb").read()
        for p in rest[1:]:
            same = open(p, "rb").read() == ref
            print(f"{'ok' if same else 'FAIL'}: {p} {'is' if same else 'is NOT'} bit-identical to {rest[0]}")
            if not same:
                return 1
        return 0
    rtol = 1e-5
    if "--rtol" in rest:
        i = rest.index("--rtol")
        rtol = float(rest[i + 1])
        rest = rest[:i] + rest[i + 2:]
    l2 = "--l2" in rest
    rest = [a for a in rest if a != "--l2"]
    init, ref, others = load(rest[0]), load(rest[1]), rest[2:]
    d_ref = ref - init
    scale = np.linalg.norm(d_ref) if l2 else np.abs(d_ref).max()
    if scale == 0:
        print("FAIL: the reference update is zero (nothing trained)")
        return 1
    for p in others:
        d = load(p) - init
        if d.shape != d_ref.shape:
            print(f"FAIL: {p} has {d.size} weights, reference {d_ref.size}")
            return 1
        err = (np.linalg.norm(d - d_ref) if l2 else np.abs(d - d_ref).max()) / scale
        worst = np.abs(d - d_ref).max() / np.abs(d_ref).max()
        how = f"in L2 norm (largest element: {worst:.2e} of the largest update)" if l2 else "at most"
        print(f"{'ok' if err <= rtol else 'FAIL'}: {p} update differs from the reference by {err:.2e} {how} (rtol {rtol:g})")
        if err > rtol:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
