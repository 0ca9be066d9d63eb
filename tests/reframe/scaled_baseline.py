#!/usr/bin/env python3
"""scaled_baseline.py — a test baseline: a copy of a scalebench study file with its runs relabelled
to another model and the throughput of chosen points multiplied by a factor, so that a ReFrame
test's verdict against it is known whatever the host's speed (x1000: any real run is far below the
reference and fails; x0.001: any run passes). Not a way to make real baselines (docs/reframe.md).

  scaled_baseline.py IN.h5 OUT.h5 --model unet:depth=2,base=4 --scale mirrored:1:0.001 --scale mirrored:2:1000
"""
import argparse
import shutil

import h5py

THROUGHPUT = ('images_per_s', 'images_per_s_ci_lo', 'images_per_s_ci_hi', 'baseline_images_per_s')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('input')
    ap.add_argument('output')
    ap.add_argument('--model', required=True, help='the model every run is relabelled to')
    ap.add_argument('--scale', action='append', default=[], help='strategy:N:factor (repeatable)')
    a = ap.parse_args()
    factors = {}
    for s in a.scale:
        strategy, n, factor = s.split(':')
        factors[(strategy, int(n))] = float(factor)
    shutil.copyfile(a.input, a.output)
    with h5py.File(a.output, 'r+') as f:
        runs = f['runs'][...]
        for row in runs:
            row['model'] = a.model
            row['canonical_model'] = a.model
            factor = factors.get((row['strategy'].decode() if isinstance(row['strategy'], bytes) else row['strategy'],
                                  int(row['devices'])))
            if factor is not None:
                for col in THROUGHPUT:
                    row[col] *= factor
                for col in ('speedup', 'efficiency', 'speedup_ci_lo', 'speedup_ci_hi', 'efficiency_ci_lo',
                            'efficiency_ci_hi'):
                    row[col] *= factor
        f['runs'][...] = runs


if __name__ == '__main__':
    main()
