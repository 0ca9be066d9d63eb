#!/usr/bin/python3
"""tests/docs/test_exit_codes.py SOURCE_DIR SCALEBENCH — ctest docs.exit_codes (label unit): the exit
statuses are written once, in kernels/common/exit_codes.def; this checks that docs/design.md's
"Exit status" table shows exactly those rows (status, meaning, in order) and that `scalebench --help`
ends with the same list. It does not check which command returns which status (the cli.* and
study tests do, case by case).
"""
import re
import subprocess
import sys

src, sb = sys.argv[1], sys.argv[2]
DEF = re.compile(r'^SB_EXIT\(([a-z_]+), *([0-9]+), *"(.*)"\)$')
ROW = re.compile(r"^\| (128\+N|[0-9]+) \| (.*) \|$")

defined = []
for line in open(f"{src}/kernels/common/exit_codes.def", encoding="utf-8").read().splitlines():
    m = DEF.match(line)
    if m:
        name, code, meaning = m.groups()
        defined.append(("128+N" if name == "stopped" else code, meaning))
assert len(defined) >= 5, f"exit_codes.def: {len(defined)} SB_EXIT lines; the parser or the file is wrong"
doc = open(f"{src}/docs/design.md", encoding="utf-8").read()
section = doc.split("### Exit status", 1)[1].split("\n#", 1)[0]
documented = [m.groups() for m in map(ROW.match, section.splitlines()) if m]
if documented != defined:
    sys.exit(f"FAIL: docs/design.md's exit status table\n  {documented}\n!= exit_codes.def\n  {defined}")
out = subprocess.run([sb, "--help"], capture_output=True, text=True, check=True).stdout
helped = [tuple(l.split(None, 1)) for l in out.split("Exit status:", 1)[1].strip().splitlines()]
if helped != defined:
    sys.exit(f"FAIL: `scalebench --help` lists\n  {helped}\n!= exit_codes.def\n  {defined}")
print(f"docs.exit_codes: {len(defined)} statuses; docs/design.md and --help agree with exit_codes.def")
