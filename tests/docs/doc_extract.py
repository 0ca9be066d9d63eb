#!/usr/bin/python3
"""docs.commands, the reading: `scalebench --help` into option tables, and README.md/docs/*.md into
items (command lines, code spans, prose) with file:line. Not here: judging them (doc_checker.py).
"""
from __future__ import annotations

import collections
import glob
import os
import re
import subprocess

from doc_rules import HIDDEN_SUBCOMMANDS, OTHER_TOOLS, REPO_PATH_PREFIXES, REPO_SCRIPT_SUFFIXES, BOX_CHARS, SHELL_INFO


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
    """{"": top-level options, sub: options of `scalebench sub`, "sub nested": of `scalebench sub nested`
    (a subcommand's own subcommands, e.g. `trace merge`)}."""
    top, subs = parse_help(_help(binary))
    opts = {"": top}
    for sub in list(subs) + [s for s in HIDDEN_SUBCOMMANDS if s not in subs]:
        opts[sub], nested = parse_help(_help(binary, sub))
        for n in nested:
            opts[f"{sub} {n}"] = parse_help(_help(binary, sub, n))[0]
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


def doc_files(source_dir):
    return [os.path.join(source_dir, "README.md")] + sorted(glob.glob(os.path.join(source_dir, "docs", "*.md")))


def read_all(source_dir, files=None):
    items, stats = [], collections.Counter()
    for path in files or doc_files(source_dir):
        its, st = read_markdown(path, os.path.relpath(path, source_dir))
        items += its
        stats += st
    return items, stats
