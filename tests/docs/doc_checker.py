#!/usr/bin/python3
"""docs.commands, the judging: Checker runs each doc command through `scalebench --parse-only` and
checks every option a doc names against the CLI's --help, counting what it checked.
Not here: reading the docs (doc_extract.py) or the allowlists (doc_rules.py).
"""
from __future__ import annotations

import collections
import concurrent.futures
import os
import re
import shlex
import subprocess
import threading

from doc_rules import (ALLOWED_FOREIGN, ELLIPSES, ENGLISH_WORDS, FILL, LAUNCHERS, NOT_BUILT, NOT_COMMANDS, OPTION_IN_TEXT,
                       OTHER_TOOLS, PLACEHOLDERS, SEPARATORS)
from doc_extract import split_comment, is_scalebench, other_tool


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
        self.pool, self.pending, self.lock, self.cache = None, [], threading.Lock(), {}

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
        if k + 1 < len(toks) and f"{sub} {toks[k + 1]}" in self.opts:  # a nested subcommand
            sub, k = f"{sub} {toks[k + 1]}", k + 1
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
        # Each run is a process start of the whole binary (its CUDA libraries included): about a second
        # on a loaded 2-core host, so the runs go on a few threads while the docs are read on.
        if self.pool is not None:
            self.pending.append(self.pool.submit(self.parse_now, item, argv, fragment, shown))
        else:
            self.parse_now(item, argv, fragment, shown)

    def run_parse_only(self, full):
        """One `scalebench --parse-only` run per distinct command line (many docs repeat a line)."""
        key = tuple(full)
        with self.lock:
            if key in self.cache:
                self.stats["parse-only runs saved (the same line again)"] += 1
                return self.cache[key]
        res = subprocess.run([self.binary, "--parse-only", *full], capture_output=True, text=True, timeout=120)
        with self.lock:
            self.stats["parse-only runs"] += 1
            self.cache[key] = res
        return res

    def count(self, key):
        with self.lock:
            self.stats[key] += 1

    def parse_now(self, item, argv, fragment, shown):
        added = []
        for _ in range(4):
            full = argv + added
            res = self.run_parse_only(full)
            helped = any(a in ("--help", "-h") for a in full)
            version = full == ["--version"] and res.stdout.startswith("scalebench ")
            if res.returncode == 0 and ("parse-only: ok" in res.stdout or (helped and "Usage:" in res.stdout) or version):
                if added:
                    self.count("fragments completed with FILL")
                return
            err = next((l for l in res.stderr.splitlines() if l.startswith("scalebench: error:")),
                       res.stderr.strip() or f"exit {res.returncode}")
            m = re.match(r"^scalebench: error: (\S+) is required", err)
            if fragment and m and m.group(1) in FILL and FILL[m.group(1)][0] not in added:
                added += FILL[m.group(1)]
                continue
            m = re.match(r"^scalebench: error: (--[\w-]+): \d+ required .* missing", err)
            if item.kind == "span" and m and full and full[-1] == m.group(1):
                self.count("spans naming an option without its value (option checked, not parsed)")
                return
            if "this build has no CUDA backend" in err:
                self.count("cuda lines parsed, not validated (build without CUDA)")
                return
            filled = f" (+ {' '.join(added)} from FILL)" if added else ""
            self.fail(item, f"does not parse: `scalebench --parse-only {' '.join(shlex.quote(a) for a in argv)}`"
                            f"{filled} -> {err}   [doc: {shown}]")
            return
        self.fail(item, f"FILL did not complete it: {shown}")

    def run(self, items):
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as self.pool:
            for it in items:
                self.item(it)
            for f in self.pending:
                f.result()
        self.pool = None
        self.failures.sort()

    def summary(self):
        lines = [f"  {v:5d}  {k}" for k, v in sorted(self.stats.items())]
        lines.append(f"  {len(self.options_checked):5d}  distinct scalebench options named by the docs "
                     f"({sum(self.options_checked.values())} mentions)")
        lines.append("  other tools' options skipped: " +
                     ", ".join(f"{t} {n}" for t, n in sorted(self.foreign.items()) if n))
        return "\n".join(lines)
