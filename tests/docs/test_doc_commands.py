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
     OTHER_TOOLS) or is one of the few ALLOWED_FOREIGN options, each naming its tool;
  3. checks the references (doc_refs.py): every repository path in a code span of README.md and
     docs/*.md exists, every relative link of those and of the notebook (results/notes/*.md) and
     the results READMEs resolves (with its #anchor), and every ctest name cited is one `ctest -N`
     lists (ctest from $SB_CTEST, run in $SB_BUILD_DIR; by default `ctest` in SCALEBENCH's folder).

The rules that turn a doc line into an argv, all explicit and counted in the summary:
  - `[--opt value]` brackets are dropped (the option is checked); `a|b|c` inside a word is a choice:
    the line is parsed once per choice, choosing the i-th alternative of every choice in the i-th run;
  - `…` / `...` mark an elided part and are dropped; a line or span with one, and every inline span,
    is a fragment: when the CLI says a required argument is missing, FILL supplies it and the line
    is parsed again; an inline span that ends in an option without its value only names the option;
  - PLACEHOLDERS (`<spec>`, `N`, `DIR`, ...) get a sensible value; any other `<...>` is an error;
  - a fenced block that draws with box characters (docs/design.md's flow) is a diagram: its lines
    are prose; NOT_BUILT subcommands (none now) are skipped, not parsed;
  - `--backend cuda` lines in a build without CUDA stop at "this build has no CUDA backend" after
    CLI11 accepted every option and value: counted as parsed, not as validated.
The summary prints how many command lines, parse runs and option mentions were checked.
The rules are tables in doc_rules.py, the reading is doc_extract.py, the checking doc_checker.py;
this file holds the tests and sets the binary and source folder they run on.
"""
from __future__ import annotations

import glob
import os
import sys
import tempfile
import unittest

from doc_checker import Checker
from doc_extract import cli_options, doc_files, read_all
from doc_refs import RefChecker, ctest_names
from doc_rules import EXPECTED_SUBCOMMANDS, HIDDEN_SUBCOMMANDS, ALLOWED_FOREIGN

SCALEBENCH = ""
SOURCE_DIR = ""


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


def link_files(source_dir):
    """Files whose links are checked: the docs, the notebook and the results READMEs."""
    return doc_files(source_dir) + sorted(glob.glob(os.path.join(source_dir, "results", "*", "*.md")))


def ref_checker(source_dir, files=None):
    tests = ctest_names(os.environ.get("SB_CTEST", "ctest"),
                        os.environ.get("SB_BUILD_DIR", os.path.dirname(SCALEBENCH)))
    c = RefChecker(source_dir, tests)
    items, _ = read_all(source_dir, files)
    for it in items:
        if it.kind == "span":
            c.span(f"{it.file}:{it.line}", it.text)
    for f in files or link_files(source_dir):
        c.links(f, os.path.relpath(f, source_dir))
    return c


class DocReferences(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.checker = ref_checker(SOURCE_DIR)
        print(f"\ndocs.commands references: {len(link_files(SOURCE_DIR))} files for links, "
              f"{len(cls.checker.tests)} ctest names known")
        print("\n".join(f"  {v:5d}  {k}" for k, v in sorted(cls.checker.stats.items())))
        sys.stdout.flush()

    def test_every_path_link_and_test_name_exists(self):
        self.assertEqual(self.checker.failures, [], "\n" + "\n".join(self.checker.failures))

    def test_checked_something(self):
        self.assertGreaterEqual(self.checker.stats["repository paths checked"], 50)
        self.assertGreaterEqual(self.checker.stats["relative links checked"], 50)
        self.assertGreaterEqual(self.checker.stats["ctest names checked"], 10)


class RefCheckerCatchesDrift(unittest.TestCase):
    """The reference checker on a made-up doc inside a copy of the top level: it must report each."""

    def test_missing_path_link_anchor_and_test(self):
        with tempfile.TemporaryDirectory() as d:
            for top in ("docs", "tools", "tests"):
                os.mkdir(os.path.join(d, top))
            files = {"tools/real.sh": "", "docs/other.md": "# Other page\n\n## A section\n"}
            for name, text in files.items():
                with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                    f.write(text)
            doc = os.path.join(d, "docs", "x.md")
            with open(doc, "w", encoding="utf-8") as f:
                f.write("Run `tools/real.sh` and `tools/gone.sh`; see [other](other.md#a-section),\n"
                        "[missing](nowhere.md), [bad anchor](other.md#no-such-section) and ctest `cli.no_such_test`,\n"
                        "`cli.bad_inputs`, `tools/<placeholder>.sh`, `results/my-study/study.h5`.\n")
            c = ref_checker(d, [doc])
        self.assertEqual(len(c.failures), 4, c.failures)
        for needle in ("tools/gone.sh", "nowhere.md", "#no-such-section", "cli.no_such_test"):
            self.assertTrue(any(needle in f for f in c.failures), (needle, c.failures))
        self.assertEqual(c.stats["repository paths checked"], 1)
        self.assertEqual(c.stats["ctest names checked"], 1)


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
