#!/usr/bin/env python3
"""compare_weights.py — compares weight dumps of `scalebench train --dump-weights` (raw float32).

  compare_weights.py close INIT REF OTHER... [--rtol 1e-5]
      every OTHER's update (OTHER - INIT) equals REF's update within rtol, relative to max|REF - INIT|
      (the update is what one step changes; comparing whole weights would hide it under the init)
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
    init, ref, others = load(rest[0]), load(rest[1]), rest[2:]
    d_ref = ref - init
    scale = np.abs(d_ref).max()
    if scale == 0:
        print("FAIL: the reference update is zero (nothing trained)")
        return 1
    for p in others:
        d = load(p) - init
        if d.shape != d_ref.shape:
            print(f"FAIL: {p} has {d.size} weights, reference {d_ref.size}")
            return 1
        err = np.abs(d - d_ref).max() / scale
        print(f"{'ok' if err <= rtol else 'FAIL'}: {p} update differs from the reference by {err:.2e} (rtol {rtol:g})")
        if err > rtol:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
