#!/usr/bin/python3
"""docs.commands: the docs cannot drift from the CLI.

Usage: test_doc_commands.py SCALEBENCH SOURCE_DIR [unittest options]

Reads README.md and docs/*.md and
  1. extracts every `scalebench ...` command line: each line of a shell code block (``` with no info
     string, sh, bash, shell or console; `\\` continuations joined, a `$ ` prompt and trailing
     `# comments` dropped) and each inline `code span`, also behind a launcher
     (`mpirun -np N [mpirun options] scalebench ...`, `srun ... scalebench ...`, `/usr/bin/time ...`),
     and runs it through `scalebench --parse-only ...` (parse and validate, run nothing);
  2. checks that every `--option` the docs name exists: in a scalebench command, in that
     subcommand's `--help`; anywhere else (prose, bare `--option` spans, non-command lines of code
     blocks), in some subcommand's `--help` -- unless the option sits in another tool's command
     (a line or span that starts with mpirun, srun, cmake, ctest, git, python3, a script, ...: see
     OTHER_TOOLS) or is one of the few ALLOWED_FOREIGN options, each naming its tool.

The rules that turn a doc line into an argv, all explicit and counted in the summary:
  - `[--opt value]` brackets are dropped (the option is checked); `a|b|c` inside a word is a choice:
    the line is parsed once per choice, choosing the i-th alternative of every choice in the i-th run;
  - `…` / `...` mark an elided part and are dropped; a line or span with one, and every inline span,
    is a fragment: when the CLI says a required argument is missing, FILL supplies it and the line
    is parsed again; an inline span that ends in an option without its value only names the option;
  - PLACEHOLDERS (`<spec>`, `N`, `DIR`, ...) get a sensible value; any other `<...>` is an error;
  - a fenced block that draws with box characters (docs/design.md's flow) is a diagram: its lines
    are prose; NOT_BUILT subcommands (DESIGN's `project`) are skipped, not parsed;
  - `--backend cuda` lines in a build without CUDA stop at "this build has no CUDA backend" after
    CLI11 accepted every option and value: counted as parsed, not as validated.
The summary prints how many command lines, parse runs and option mentions were checked.
"""
from __future__ import annotations

import collections
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile
import unittest

SCALEBENCH = ""
SOURCE_DIR = ""

# Subcommands whose --help is read. slurm-point is hidden from `scalebench --help` (the generated
# sbatch scripts run it) but docs/slurm.md names it.
EXPECTED_SUBCOMMANDS = ("datagen", "train", "sweep", "status", "collect", "report", "compare", "commbench")
HIDDEN_SUBCOMMANDS = ("slurm-point",)
# Subcommands of the design (docs/design.md, a copy of shared/DESIGN.md) that this tree does not have;
# README.md says so ("Not yet: `scalebench project`"). Lines using them are skipped and counted.
NOT_BUILT = {"project": "DESIGN §7's what-if projection; not implemented (README.md: 'Not yet')"}

# Placeholder words in doc commands -> the value the parse run uses. Whole tokens only (or the
# value after `--opt=`), except <...> which is replaced inside a token too.
PLACEHOLDERS = {
    "<spec>": "studies/cpu-demo.toml", "SPEC": "studies/cpu-demo.toml",
    "<profile>": "slurm/profiles/local-test.toml", "<cluster>": "my-cluster",
    "<study>": "cpu-demo", "<dir>": "results/cpu-demo", "DIR": "results/cpu-demo/runs",
    "N": "2", "NN": "1", "R": "1", "K": "2", "S": "2", "NAME": "ring", "PATH": "weights.bin",
    "<strategy>": "ring", "BASE": "results/baselines/cpu-demo.h5", "NEW": "results/cpu-demo/study.h5",
}
# What a fragment lacks, by the name CLI11 or the config check gives in "X is required".
FILL = {
    "--data": ["--data", "data/seg.h5"], "--output": ["-o", "data/x.h5"], "spec": ["studies/cpu-demo.toml"],
    "dir": ["results/cpu-demo"], "study": ["results/cpu-demo/study.h5"],
    "base": ["results/baselines/cpu-demo.h5"], "new": ["results/cpu-demo/study.h5"],
    "--group": ["--group", "1"], "--repetition": ["--repetition", "1"],
}
# Inline spans that hold `scalebench` but are not commands.
NOT_COMMANDS = {"scalebench <version>": "the `writer` attribute of a run file (docs/results-schema.md)"}

# Launchers: the command they start is the first `scalebench` word after them; their own options
# before it are theirs. Without a `scalebench` word, a launcher line is that tool's own -- except
# that words after a `…` continue an elided `scalebench train` (docs/strategies.md's launch column).
LAUNCHERS = {"mpirun": "Open MPI", "mpiexec": "MPI", "srun": "Slurm", "time": "time", "/usr/bin/time": "time"}
# Other tools: a command (code line or span) whose first word is one of these is not scalebench's,
# and its options are that tool's. Scripts and binaries of this repository are recognised by path.
OTHER_TOOLS = {
    "sbatch": "Slurm", "scontrol": "Slurm", "squeue": "Slurm", "sacct": "Slurm", "cmake": "CMake",
    "ctest": "CTest", "make": "make", "git": "git", "python3": "python3 (plots/, tools/, tests/ scripts)",
    "/usr/bin/python3": "python3 (plots/, tools/, tests/ scripts)", "pip": "pip", "less": "less",
    "source": "shell", "cd": "shell", "for": "shell", "do": "shell", "done": "shell",
    "sb_bench_gpu_model": "the GPU model benchmark (models/bench)", "sb_bench_kernels": "Google Benchmark",
    "sb_fuzz": "the fuzzer (tests/fuzz)", "spack": "Spack (docs/install.md)", "module": "Environment Modules / Lmod",
}
# Tool names that are also English words: in prose they do not name the tool ("a value for --x").
ENGLISH_WORDS = {"time", "for", "do", "done", "source", "make", "less", "cd"}
REPO_PATH_PREFIXES = ("tools/", "plots/", "tests/", "build/", "./build/", "slurm/", "/tmp/sb/bin/", ".gpu/")
REPO_SCRIPT_SUFFIXES = (".py", ".sh")
# Options named in prose or in bare `--option` spans that belong to another tool the prose is
# talking about: (option, tool, files where it may appear). Keep it short; an entry nothing uses
# fails the test.
ALLOWED_FOREIGN = [
    ("--mca", "mpirun (Open MPI MCA parameter)", ["docs/comm.md"]),
    ("--oversubscribe", "mpirun (more ranks than cores)", ["docs/comm.md", "README.md"]),
    ("--allow-run-as-root", "mpirun (added by the local launcher as root)", ["docs/sweep-spec.md", "README.md"]),
    ("--mpi", "srun (--mpi=none: the wrong PMI plugin)", ["docs/slurm.md"]),
    ("--array", "sbatch (job arrays for repetitions)", ["docs/slurm.md"]),
    ("--dependency", "sbatch (the collect job)", ["docs/slurm.md", "docs/testing.md"]),
    ("--exclusive", "sbatch (profile sbatch_args example)", ["docs/slurm.md", "docs/testing.md"]),
    ("--constraint", "sbatch (profile sbatch_args example)", ["docs/slurm.md"]),
    ("--signal", "sbatch (profile signal_seconds)", ["docs/slurm.md", "docs/results-schema.md"]),
    ("--requeue", "sbatch (profile requeue)", ["docs/slurm.md"]),
    ("--gpus-per-node", "sbatch (profile gpu_request)", ["docs/slurm.md", "docs/testing.md"]),
    ("--gres", "sbatch (profile gpu_request)", ["docs/slurm.md", "docs/testing.md"]),
    ("--export", "srun (scalebench's own --export and a profile's srun_args)", ["docs/slurm.md", "docs/testing.md"]),
    ("--name", "srun/mpirun (the form of a profile's srun_args: `--name` or `--name=value`)", ["docs/slurm.md"]),
    ("--layers", "sb_bench_gpu_model (per-layer timings)", ["docs/gpu.md"]),
    ("--all", "tools/torch_reference.py (the whole matrix)", ["docs/gpu.md"]),
    ("--commbench", "plots/make_all.py", ["docs/plots.md"]),
    ("--traceback", "plots/make_all.py", ["docs/plots.md"]),
    ("--replay-only", "sb_fuzz (tests/fuzz: the corpus alone)", ["docs/testing.md"]),
    ("--input-timeout", "sb_fuzz (tests/fuzz: the hang limit)", ["docs/testing.md"]),
]

BOX_CHARS = re.compile("[\u2500-\u257f\u25b2-\u25bc\u25b6]")  # box drawing, ▲▼▶
SHELL_INFO = {"", "sh", "bash", "shell", "console"}
OPTION_IN_TEXT = re.compile(r"(?<![\w-])(--[A-Za-z][A-Za-z0-9_-]*)")
ELLIPSES = {"…", "..."}
SEPARATORS = {"|", "||", "&&", ";"}


# ---- the CLI's options, from --help ------------------------------------------------------------------

def _help(binary, *args):
    r = subprocess.run([binary, *args, "--help"], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise AssertionError(f"`scalebench {' '.join(args)} --help` exited {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def parse_help(text):
    """(options, subcommands) of one --help page: every -x / --long name; Subcommands: section."""
    options, subs, section = set(), [], ""
    for line in text.splitlines():
        if re.match(r"^\S.*:$", line):
            section = line[:-1]
            continue
        if section == "Options":
            m = re.match(r"^\s{1,4}(-[^\s]+)", line)
            if m:
                options.update(n for n in m.group(1).split(",") if n.startswith("-"))
        elif section == "Subcommands":
            m = re.match(r"^\s{1,4}([a-z][\w-]*)\s", line)
            if m:
                subs.append(m.group(1))
    return options, subs


def cli_options(binary):
    """{"": top-level options, sub: options of `scalebench sub`}."""
    top, subs = parse_help(_help(binary))
    opts = {"": top}
    for sub in list(subs) + [s for s in HIDDEN_SUBCOMMANDS if s not in subs]:
        opts[sub] = parse_help(_help(binary, sub))[0]
    return opts, subs


# ---- markdown --------------------------------------------------------------------------------------

Item = collections.namedtuple("Item", "kind file line text")  # kind: code | span | prose


def _spans(paragraph):
    """(offset, content, end) of each inline code span (CommonMark: a run of n backticks closes at the
    next run of exactly n)."""
    out, i = [], 0
    while True:
        m = re.compile(r"`+").search(paragraph, i)
        if not m:
            return out
        n = len(m.group())
        close = re.compile(r"(?<!`)`{%d}(?!`)" % n).search(paragraph, m.end())
        if not close:
            i = m.end()
            continue
        content = paragraph[m.end():close.start()].replace("\n", " ")
        if content.startswith(" ") and content.endswith(" ") and content.strip():
            content = content[1:-1]
        out.append((m.start(), content, close.end()))
        i = close.end()


def read_markdown(path, name):
    """Items of one markdown file; name is its repo-relative path (for messages)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    items, stats = [], collections.Counter()
    i = 0
    para, para_start = [], 0

    def flush():
        nonlocal para
        if not para:
            return
        text = "\n".join(para)
        last = 0
        prose = []
        for start, content, end in _spans(text):
            items.append(Item("span", name, para_start + text.count("\n", 0, start), content))
            prose.append(text[last:start])
            prose.append(" " * (end - start))
            last = end
        prose.append(text[last:])
        for k, pl in enumerate("".join(prose).split("\n")):
            if pl.strip():
                items.append(Item("prose", name, para_start + k, pl))
        para = []

    while i < len(lines):
        line = re.sub(r"^\s*>\s?", "", lines[i])  # blockquote markers
        fence = re.match(r"^\s*(```+|~~~+)\s*([\w-]*)", line)
        if fence:
            flush()
            marker, info = fence.group(1), fence.group(2).lower()
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(marker):
                j += 1
            block = lines[i + 1:j]
            first = i + 2  # 1-based line number of block[0]
            if info not in SHELL_INFO or any(BOX_CHARS.search(b) for b in block):
                stats["diagram or non-shell block lines read as prose"] += len(block)
                items.extend(Item("prose", name, first + k, b) for k, b in enumerate(block) if b.strip())
            else:
                k = 0
                while k < len(block):
                    start, text = k, block[k]
                    while text.rstrip().endswith("\\") and k + 1 < len(block):
                        k += 1
                        text = text.rstrip()[:-1] + " " + block[k].strip()
                        stats["continuation lines joined"] += 1
                    if text.strip():
                        items.append(Item("code", name, first + start, text))
                    k += 1
            i = j + 1
            continue
        if not line.strip() or line.lstrip().startswith(("|", "#")):
            flush()
            if line.strip():  # a table row or a heading: a paragraph of its own
                para, para_start = [line], i + 1
                flush()
        else:
            if not para:
                para_start = i + 1
            para.append(line)
        i += 1
    flush()
    return items, stats


# ---- the checker -----------------------------------------------------------------------------------

def split_comment(text):
    """(code, comment): a `#` at a word start outside quotes begins the comment."""
    quote = None
    for k, c in enumerate(text):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (k == 0 or text[k - 1].isspace()):
            return text[:k], text[k + 1:]
    return text, ""


def is_scalebench(word):
    return os.path.basename(word) == "scalebench"


def other_tool(word):
    if word in OTHER_TOOLS:
        return OTHER_TOOLS[word]
    if word.startswith(REPO_PATH_PREFIXES) or word.endswith(REPO_SCRIPT_SUFFIXES):
        return "a script or program of this repository"
    return None


class Checker:
    def __init__(self, binary, opts, run_parse=True):
        self.binary, self.opts, self.run_parse = binary, opts, run_parse
        self.union = set().union(*opts.values())
        self.failures = []  # "file:line: message"
        self.stats = collections.Counter()
        self.commands = []  # (where, argv words) checked
        self.allow_used = collections.Counter()
        self.options_checked = collections.Counter()  # option name -> mentions
        self.foreign = collections.Counter()  # tool -> option mentions

    def fail(self, item, msg):
        self.failures.append(f"{item.file}:{item.line}: {msg}")

    # -- options in prose ------------------------------------------------------------------------------
    def prose(self, item, text):
        for m in OPTION_IN_TEXT.finditer(text):
            name = m.group(1).rstrip("-")
            # "sbatch --parsable", "srun --mpi=pmix": the nearest word before it (options skipped)
            # names the tool whose option it is.
            before = [w.strip("(`'\"") for w in text[:m.start()].split() if not w.startswith("-")]
            tool = before and before[-1] not in ENGLISH_WORDS and (
                OTHER_TOOLS.get(before[-1]) or LAUNCHERS.get(before[-1]))
            if tool:
                self.foreign[tool] += 1
                self.stats["option mentions of other tools in prose (tool named before it)"] += 1
                continue
            if name in self.union:
                self.options_checked[name] += 1
                self.stats["option mentions in prose (exist in some subcommand)"] += 1
                continue
            entry = next((e for e in ALLOWED_FOREIGN if e[0] == name and item.file in e[2]), None)
            if entry:
                self.allow_used[(entry[0], item.file)] += 1
                self.foreign[entry[1]] += 1
                self.stats["option mentions of other tools (allowlist)"] += 1
            else:
                self.fail(item, f"names {name}, which no scalebench subcommand has (`scalebench SUB --help`)"
                                f" and no ALLOWED_FOREIGN entry gives to another tool: {text.strip()!r}")

    # -- a code line or a span --------------------------------------------------------------------------
    def item(self, item):
        if item.kind == "prose":
            self.prose(item, item.text)
            return
        text = item.text.strip()
        if item.kind == "code" and text.startswith("$ "):
            text = text[2:]
        if item.kind == "span" and text in NOT_COMMANDS:
            self.stats["spans that are not commands (NOT_COMMANDS)"] += 1
            return
        if text.startswith("#SBATCH"):
            self.foreign["sbatch"] += len(OPTION_IN_TEXT.findall(text))
            return
        code, comment = split_comment(text) if item.kind == "code" else (text, "")
        if comment:
            self.prose(item, comment)
        words = code.split()
        if not words:
            return
        if not any(is_scalebench(w) for w in words) and (words[0].startswith("-") or not (
                words[0] in LAUNCHERS or other_tool(words[0]))):
            self.prose(item, code)  # not a command: option names in it are checked as prose
            return
        try:
            tokens = shlex.split(code)
        except ValueError as e:
            if any(is_scalebench(w) for w in words):
                self.fail(item, f"cannot split as a shell line ({e}): {code.strip()!r}")
            else:
                self.prose(item, code)
            return
        segment = []
        for t in tokens + [";"]:
            if t in SEPARATORS or t.endswith(";"):
                if t.endswith(";") and t != ";":
                    segment.append(t[:-1])
                if segment:
                    self.segment(item, segment)
                segment = []
            else:
                segment.append(t)

    def segment(self, item, tokens):
        while tokens and re.match(r"^[A-Za-z_]\w*=", tokens[0]):  # VAR=value prefixes
            tokens = tokens[1:]
        if not tokens:
            return
        if tokens[0] in ("do", "then", "else") and len(tokens) > 1:  # shell keywords before a command
            tokens = tokens[1:]
        first = tokens[0]
        if is_scalebench(first):
            self.command(item, tokens[1:])
            return
        if first in LAUNCHERS:
            at = next((k for k, t in enumerate(tokens) if is_scalebench(t)), None)
            if at is not None:
                self.stats[f"lines launched by {os.path.basename(first)}"] += 1
                self.foreign[LAUNCHERS[first]] += sum(t.startswith("-") for t in tokens[1:at])
                self.command(item, tokens[at + 1:])
                return
            cut = next((k for k, t in enumerate(tokens) if t in ELLIPSES), None)
            if cut is not None and any(t.lstrip("[").startswith("-") for t in tokens[cut + 1:]):
                self.stats["launcher lines eliding `scalebench train` (options after … checked)"] += 1
                self.command(item, ["train", "…"] + tokens[cut + 1:])
            self.foreign[LAUNCHERS[first]] += sum(t.startswith("-") for t in tokens[1:cut])
            return
        tool = other_tool(first)
        if tool:
            self.foreign[tool] += sum(t.startswith("-") for t in tokens[1:])
            self.stats["other-tool commands skipped"] += 1
        else:
            self.prose(item, " ".join(tokens))

    # -- one scalebench command line --------------------------------------------------------------------
    def command(self, item, words):
        where = f"{item.file}:{item.line}"
        shown = "scalebench " + " ".join(words)
        fragment = item.kind == "span"
        toks, subs_done = [], 0
        for w in words:
            if w in ELLIPSES:
                fragment = True
                continue
            bare = re.sub(r"^\[+", "", w)
            bare = re.sub(r"\](\.\.\.|…)?$", "", bare)
            if bare != w:
                self.stats["[optional] brackets dropped"] += 1
            if bare in ELLIPSES or not bare:
                fragment = True
                continue
            key, eq, val = bare.partition("=") if bare.startswith("-") else ("", "", bare)
            if val in PLACEHOLDERS:
                val, subs_done = PLACEHOLDERS[val], subs_done + 1
            for ph in re.findall(r"<[^<>]*>", val):
                if ph not in PLACEHOLDERS:
                    self.fail(item, f"placeholder {ph} has no value in PLACEHOLDERS: {shown}")
                    return
                val, subs_done = val.replace(ph, PLACEHOLDERS[ph]), subs_done + 1
            toks.append(key + eq + val if key else val)
        if subs_done:
            self.stats["placeholders substituted"] += subs_done
        # subcommand and option names
        sub, k = "", 0
        while k < len(toks) and toks[k].startswith("-"):
            k += 1
        if k < len(toks):
            sub = toks[k]
        if sub in NOT_BUILT:
            self.stats[f"lines of the unbuilt `{sub}` skipped"] += 1
            return
        if not sub and not [t for t in toks if t.startswith("-")]:
            self.stats["mentions of the program alone"] += 1
            return
        if not sub and fragment and not set(toks) & {"--help", "-h", "--version"}:
            for t in toks:  # a span naming a top-level option (`scalebench --parse-only`)
                if t.split("=")[0] not in self.opts[""]:
                    self.fail(item, f"names option {t}, which `scalebench --help` does not list: {shown}")
                else:
                    self.options_checked[t.split("=")[0]] += 1
            self.stats["spans naming top-level options (checked, not parsed)"] += 1
            return
        if sub and sub not in self.opts:
            self.fail(item, f"`scalebench {sub}`: no such subcommand: {shown}")
            return
        missing = []
        for pos, t in enumerate(toks):
            if not t.startswith("-") or re.match(r"^-\d", t):
                continue
            name = t.split("=")[0]
            scope = "" if pos < k or not sub else sub
            for n in (name.split("|") if "|" in name else [name]):
                if n in self.opts[scope] or (scope and n in ("-h", "--help")):
                    self.options_checked[n] += 1
                    self.stats["option mentions in scalebench commands"] += 1
                else:
                    missing.append(n)
        for n in missing:
            self.fail(item, f"names option {n}, which `scalebench {sub or ''} --help` does not list: {shown}")
        self.stats["scalebench command lines" + (" (fragments)" if fragment else "")] += 1
        self.commands.append((where, toks))
        if missing or not self.run_parse:
            return
        # choices a|b|c: run i takes the i-th alternative of each (the last when it has fewer)
        choices = [t.split("|") if "|" in t and not t.startswith("|") else [t] for t in toks]
        runs = max(len(c) for c in choices)
        if runs > 1:
            self.stats["extra parse runs for a|b choices"] += runs - 1
        for r in range(runs):
            argv = [c[min(r, len(c) - 1)] for c in choices]
            self.parse(item, argv, fragment, shown)

    def parse(self, item, argv, fragment, shown):
        added = []
        for _ in range(4):
            full = argv + added
            res = subprocess.run([self.binary, "--parse-only", *full], capture_output=True, text=True, timeout=60)
            self.stats["parse-only runs"] += 1
            helped = any(a in ("--help", "-h") for a in full)
            if res.returncode == 0 and ("parse-only: ok" in res.stdout or (helped and "Usage:" in res.stdout)):
                if added:
                    self.stats["fragments completed with FILL"] += 1
                return
            err = next((l for l in res.stderr.splitlines() if l.startswith("scalebench: error:")),
                       res.stderr.strip() or f"exit {res.returncode}")
            m = re.match(r"^scalebench: error: (\S+) is required", err)
            if fragment and m and m.group(1) in FILL and FILL[m.group(1)][0] not in added:
                added += FILL[m.group(1)]
                continue
            m = re.match(r"^scalebench: error: (--[\w-]+): \d+ required .* missing", err)
            if item.kind == "span" and m and full and full[-1] == m.group(1):
                self.stats["spans naming an option without its value (option checked, not parsed)"] += 1
                return
            if "this build has no CUDA backend" in err:
                self.stats["cuda lines parsed, not validated (build without CUDA)"] += 1
                return
            filled = f" (+ {' '.join(added)} from FILL)" if added else ""
            self.fail(item, f"does not parse: `scalebench --parse-only {' '.join(shlex.quote(a) for a in argv)}`"
                            f"{filled} -> {err}   [doc: {shown}]")
            return
        self.fail(item, f"FILL did not complete it: {shown}")

    def run(self, items):
        for it in items:
            self.item(it)

    def summary(self):
        lines = [f"  {v:5d}  {k}" for k, v in sorted(self.stats.items())]
        lines.append(f"  {len(self.options_checked):5d}  distinct scalebench options named by the docs "
                     f"({sum(self.options_checked.values())} mentions)")
        lines.append("  other tools' options skipped: " +
                     ", ".join(f"{t} {n}" for t, n in sorted(self.foreign.items()) if n))
        return "\n".join(lines)


def doc_files(source_dir):
    return [os.path.join(source_dir, "README.md")] + sorted(glob.glob(os.path.join(source_dir, "docs", "*.md")))


def read_all(source_dir, files=None):
    items, stats = [], collections.Counter()
    for path in files or doc_files(source_dir):
        its, st = read_markdown(path, os.path.relpath(path, source_dir))
        items += its
        stats += st
    return items, stats


# ---- tests -----------------------------------------------------------------------------------------

class DocCommands(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.opts, cls.subs = cli_options(SCALEBENCH)
        items, read_stats = read_all(SOURCE_DIR)
        cls.checker = Checker(SCALEBENCH, cls.opts)
        cls.checker.stats.update(read_stats)
        cls.checker.run(items)
        print(f"\ndocs.commands: {len(doc_files(SOURCE_DIR))} files, {len(cls.subs)} subcommands "
              f"(+ {', '.join(HIDDEN_SUBCOMMANDS)}), {len(cls.checker.union)} CLI option names")
        print(cls.checker.summary())
        if cls.checker.failures:
            print(f"\n{len(cls.checker.failures)} problem(s):")
            print("\n".join("  " + f for f in cls.checker.failures))
        sys.stdout.flush()

    def test_help_lists_every_subcommand(self):
        self.assertEqual(sorted(set(EXPECTED_SUBCOMMANDS) - set(self.subs)), [],
                         "`scalebench --help` lacks subcommands the docs test expects")

    def test_every_doc_command_parses_and_every_option_exists(self):
        self.assertEqual(self.checker.failures, [], "\n" + "\n".join(self.checker.failures))

    def test_checked_something(self):
        # Not a pass on nothing: the docs hold dozens of command lines and option names.
        self.assertGreaterEqual(sum(v for k, v in self.checker.stats.items() if k.startswith("scalebench command lines")), 40)
        self.assertGreaterEqual(self.checker.stats["parse-only runs"], 40)
        self.assertGreaterEqual(len(self.checker.options_checked), 40)

    def test_allowlist_entries_are_used(self):
        unused = [f"{o} ({t}) in {f}" for o, t, files in ALLOWED_FOREIGN for f in files
                  if not self.checker.allow_used[(o, f)]]
        self.assertEqual(unused, [], "ALLOWED_FOREIGN entries no doc needs any more: remove them")


class CheckerCatchesDrift(unittest.TestCase):
    """The checker itself, on a made-up doc: it must report what a drifting doc says."""

    def check(self, markdown, run_parse=True):
        opts, _ = cli_options(SCALEBENCH)
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "docs"))
            with open(os.path.join(d, "docs", "x.md"), "w", encoding="utf-8") as f:
                f.write(markdown)
            items, _ = read_all(d, [os.path.join(d, "docs", "x.md")])
        c = Checker(SCALEBENCH, opts, run_parse)
        c.run(items)
        return c

    def test_unknown_option_in_a_code_block(self):
        c = self.check("text\n\n```\nmpirun -np 2 --oversubscribe scalebench train --data d.h5 \\\n"
                       "    --strategy ring --chunk-kb 64   # comment\n```\n")
        self.assertEqual(len(c.failures), 1, c.failures)
        self.assertIn("docs/x.md:4:", c.failures[0])
        self.assertIn("--chunk-kb", c.failures[0])

    def test_unknown_option_in_prose_and_spans(self):
        c = self.check("The chains move `--chunk-kb` chunks; see `scalebench train --no-such-flag`\n"
                       "and --also-not-there.\n")
        self.assertEqual(len(c.failures), 3, c.failures)
        self.assertTrue(all("docs/x.md:1:" in f or "docs/x.md:2:" in f for f in c.failures), c.failures)

    def test_bad_value_fails_to_parse(self):
        c = self.check("```\nscalebench report results/x/study.h5 --format html\n"
                       "scalebench train --data d.h5 --strategy mirrored|bogus\n```\n")
        self.assertEqual(len(c.failures), 2, c.failures)
        self.assertIn("--format", c.failures[0])
        self.assertIn("bogus", c.failures[1])

    def test_fragments_placeholders_and_other_tools(self):
        c = self.check("`scalebench sweep … --launcher slurm`, `scalebench train --strategy mirrored --devices N`,\n"
                       "`srun --mpi=<x> … scalebench train …`, `cmake --build build`, `scalebench commbench --json`,\n"
                       "`mpirun -np N … [--ranks-per-node K]`\n\n"
                       "```\n$ /usr/bin/time -f 'wall %e s' scalebench collect <study>   # --dry-run here is prose\n"
                       "for p in a b; do python3 tools/torch_reference.py --model x; done\n```\n")
        self.assertEqual(c.failures, [])
        self.assertEqual(c.stats["scalebench command lines (fragments)"], 5)
        self.assertEqual(c.stats["scalebench command lines"], 1)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    SCALEBENCH, SOURCE_DIR = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[3:])
