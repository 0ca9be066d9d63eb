#!/usr/bin/env python3
"""tools/cluster/noise.py -- a load that varies, for the projection's noise validation
(tools/cluster/validate_heldout.sh --case noise): started on an emulated node (tools/cluster/agent.sh
NODE python3 noise.py --seed S), inside the node's CPU cgroup, it alternates busy and idle spells of
random length (uniform --min-ms..--max-ms each, busy with probability --busy), so the node's quota is
shared with a rank some of the time: that rank's steps vary the way a node with other tenants varies.
It runs until killed. It measures nothing and does not adapt to what the rank does."""
import argparse
import random
import time

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--seed", type=int, required=True, help="random seed (one per node: independent noise)")
ap.add_argument("--busy", type=float, default=0.4, help="probability that a spell is busy")
ap.add_argument("--min-ms", type=float, default=100.0, help="shortest spell (ms)")
ap.add_argument("--max-ms", type=float, default=600.0, help="longest spell (ms)")
a = ap.parse_args()
rng = random.Random(a.seed)
while True:
    spell = rng.uniform(a.min_ms, a.max_ms) / 1000
    if rng.random() < a.busy:
        end = time.monotonic() + spell
        while time.monotonic() < end:
            pass
    else:
        time.sleep(spell)
