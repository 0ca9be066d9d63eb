#!/usr/bin/python3
"""docs.projection_example: the first example of docs/projection.md runs as written.

Usage: test_projection_example.py SCALEBENCH SOURCE_DIR

Takes the page's first shell block (``` with no info string), and runs its lines in order in an
empty folder, `scalebench` being the built binary: each must exit 0. So every file a line reads
must be made by a line before it (the page once read a seg64.h5 nothing on it made). Two
deviations, neither changing what runs: mpirun gets --oversubscribe (a 1-core CI machine has one
slot) and, as root, Open MPI's OMPI_ALLOW_RUN_AS_ROOT pair. Then checks what the page promises of
its output: project takes batch and model from the trace without a warning, says the 10gbe profile
is a nameplate, and the report of the projection names this host and a commit, not `-`.
It does not check the numbers (they are this host's), nor the page's other blocks (docs.commands
parses every command line of every page). About 11 s on a 2-core VM; label python (not run under
the sanitizers: the example trains 30 steps).
"""
from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import sys
import tempfile
import time


def first_shell_block(md: str) -> list[str]:
    lines, inside = [], False
    for line in md.splitlines():
        if line.startswith("```"):
            if inside:
                return lines
            inside = line.strip() == "```"
            continue
        if inside and line.strip():
            lines.append(line)
    sys.exit("FAIL: docs/projection.md has no shell block")


def main() -> int:
    sb, src = os.path.abspath(sys.argv[1]), sys.argv[2]
    block = first_shell_block(open(os.path.join(src, "docs", "projection.md"), encoding="utf-8").read())
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    outputs = {}
    with tempfile.TemporaryDirectory(prefix="sbprojdoc") as tmp:
        for line in block:
            argv = shlex.split(line)
            argv = [sb if a == "scalebench" else a for a in argv]
            if argv[0] == "mpirun":
                argv.insert(1, "--oversubscribe")
            elif argv[0] != sb:
                sys.exit(f"FAIL: docs/projection.md's first block: '{line}' is neither scalebench nor mpirun")
            t0 = time.monotonic()
            p = subprocess.run(argv, cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
            print(f"{time.monotonic() - t0:5.1f} s  rc {p.returncode}  {line}")
            if p.returncode != 0:
                sys.exit(f"FAIL: '{line}' exited {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
            outputs[line] = p.stdout + p.stderr
    projects = [out for line, out in outputs.items() if line.startswith("scalebench project")]
    reports = [out for line, out in outputs.items() if line.startswith("scalebench report")]
    assert projects and reports, "the block has no project or no report line"
    for out in projects:
        assert "# warning" not in out, f"project warned on the page's own trace:\n{out[:2000]}"
        assert "batch 8 per device" in out, f"project did not take the trace's batch:\n{out[:2000]}"
    assert any("profile 10gbe is a nameplate rate" in out for out in projects), "no nameplate line for --network 10gbe"
    report = reports[0]
    hosts = re.search(r"^  hosts +(.*)$", report, re.M)
    commit = re.search(r"^  commit +(\S+)", report, re.M)
    assert hosts and hosts.group(1) == socket.gethostname(), f"report's hosts: {hosts and hosts.group(1)}\n{report[:1500]}"
    assert commit and commit.group(1) != "-", f"report's commit: {commit and commit.group(1)}\n{report[:1500]}"
    print(f"PASS: {len(block)} lines of docs/projection.md's first block ran; report: hosts {hosts.group(1)}, "
          f"commit {commit.group(1)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
