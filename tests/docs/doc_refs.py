#!/usr/bin/python3
"""docs.commands, the references: every repository path a doc names in a code span, every relative
link (and its #anchor, for a markdown target) and every ctest name a doc cites must exist.

What counts, kept narrow so that prose and example output are not mistaken for references:
  - a path: a word of an inline code span that starts with a top-level entry of the repository
    (`tools/`, `harness/`, `README.md`, ...; REPO_PATH_SKIP in doc_rules.py lists the few shapes that
    look like one but name something built or generated); a word with a placeholder (`<x>`, `{a,b}`,
    `$VAR`, `…`, upper-case NAME) is not checked; a `*` is a glob that must match something;
  - a link: `[text](target)` whose target is neither a URL nor absolute; the target resolves from
    the doc's own folder; `#anchor` must be a heading of the target (GitHub's slugs);
  - a ctest name: a span word `prefix.rest` whose prefix is the first part of some name `ctest -N`
    lists (`cli.`, `docs.`, `resume.`, gtest suites once built, ...); `*` and a trailing `…` are globs.
Not here: options and command lines (doc_checker.py), reading markdown (doc_extract.py).
"""
from __future__ import annotations

import collections
import fnmatch
import glob
import os
import re
import subprocess

from doc_rules import KEY_PREFIXES, NOT_REPO_TOP, PATHS_NOT_CHECKED, REPO_PATH_SKIP

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^()\s]+)\)|!\[[^\]]*\]\(([^()\s]+)\)")
PLACEHOLDER = re.compile(r"[<>{}$…]|\.\.\.|(?:^|/)[A-Z][A-Z_]+(?:/|$)")
FILE_SUFFIX = re.compile(r"\.(py|sh|md|h5|json|toml|cpp|h|def|txt|png|pdf|cfg|csv|tsv|bin|log|c|cu)$")


def slug(heading):
    """GitHub's anchor of a markdown heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path):
    out, seen, fence = set(), collections.Counter(), False
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for line in lines:
        if re.match(r"^\s*(```|~~~)", line):
            fence = not fence
        if fence:
            continue
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m.group(1))
            out.add(s if not seen[s] else f"{s}-{seen[s]}")
            seen[s] += 1
    return out


def ctest_names(ctest, build_dir):
    r = subprocess.run([ctest, "-N"], cwd=build_dir, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise AssertionError(f"`ctest -N` in {build_dir} exited {r.returncode}: {r.stderr.strip()}")
    names = re.findall(r"^\s*Test\s+#\d+:\s+(\S+)", r.stdout, re.M)
    if not names:
        raise AssertionError(f"`ctest -N` in {build_dir} listed no tests")
    return names


class RefChecker:
    def __init__(self, source_dir, tests):
        self.src, self.tests = source_dir, tests
        self.prefixes = {t.split(".")[0] for t in tests if "." in t}
        self.top = {e for e in os.listdir(source_dir) if not e.startswith(".") and not e.startswith(NOT_REPO_TOP)}
        self.failures, self.stats = [], collections.Counter()
        self._anchors = {}

    def fail(self, where, msg):
        self.failures.append(f"{where}: {msg}")

    # -- links --------------------------------------------------------------------------------------
    def links(self, doc, rel):
        fence = False
        with open(doc, encoding="utf-8") as f:
            lines = f.read().split("\n")
        for n, line in enumerate(lines, 1):
            if re.match(r"^\s*(```|~~~)", line):
                fence = not fence
            if fence:
                continue
            line = re.sub(r"`[^`]*`", "", line)  # a link inside a code span is text
            for m in LINK.finditer(line):
                self.link(f"{rel}:{n}", doc, m.group(1) or m.group(2))

    def link(self, where, doc, target):
        if re.match(r"^[a-z]+:", target) or target.startswith("/"):
            self.stats["links to URLs (not checked)"] += 1
            return
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
        if not os.path.exists(full):
            self.fail(where, f"link target {target} does not exist ({os.path.relpath(full, self.src)})")
            return
        self.stats["relative links checked"] += 1
        if anchor and full.endswith(".md"):
            if full not in self._anchors:
                self._anchors[full] = anchors(full)
            if anchor not in self._anchors[full]:
                self.fail(where, f"link {target}: no heading #{anchor} in {os.path.relpath(full, self.src)}")
            else:
                self.stats["link anchors checked"] += 1

    # -- code spans ---------------------------------------------------------------------------------
    def span(self, where, text):
        paths = where.split(":")[0] not in PATHS_NOT_CHECKED
        for word in text.split():
            word = word.strip("()[],;:'\"").rstrip(".")
            if not word:
                continue
            if "/" in word or word in self.top:
                if paths:
                    # `trace.h/.cpp`: both files
                    m = re.match(r"^(.*)(\.\w+)/(\.\w+)$", word)
                    for w in ([m.group(1) + m.group(2), m.group(1) + m.group(3)] if m else [word]):
                        self.path(where, w)
            else:
                self.ctest(where, word)

    def path(self, where, word):
        if word.startswith("./"):
            word = word[2:]
        head = word.split("/")[0]
        if head not in self.top or "=" in word:
            return
        if any(re.search(p, word) for p, _ in REPO_PATH_SKIP):
            self.stats["path-shaped words of built or generated files (REPO_PATH_SKIP)"] += 1
            return
        if PLACEHOLDER.search(word):
            self.stats["paths with a placeholder (not checked)"] += 1
            return
        full = os.path.join(self.src, word.split("#")[0].split(":")[0])
        if "*" in word or "?" in word:
            ok = bool(glob.glob(full))
        else:
            ok = os.path.exists(full)
        if not ok:
            self.fail(where, f"names {word}, which is not in the repository")
        else:
            self.stats["repository paths checked"] += 1

    def ctest(self, where, word):
        m = re.match(r"^([A-Za-z][\w-]*)\.([\w.*…-]+)$", word)
        if not m or m.group(1) not in self.prefixes or FILE_SUFFIX.search(word):
            return
        pattern = word.replace("…", "*")
        if any(fnmatch.fnmatchcase(t, pattern) for t in self.tests):
            self.stats["ctest names checked"] += 1
        elif m.group(1) in KEY_PREFIXES:
            self.stats["TOML keys shaped like test names (KEY_PREFIXES)"] += 1
        else:
            self.fail(where, f"cites the test {word}, which `ctest -N` does not list")
