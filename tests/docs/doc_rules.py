#!/usr/bin/python3
"""docs.commands, the rules: which subcommands exist, what stands for a value, which other tools'
commands and options a doc may name. Tables only; test_doc_commands.py's docstring explains them.
Not here: reading the docs (doc_extract.py) or checking them (doc_checker.py).
"""
from __future__ import annotations

import re

# Subcommands whose --help is read. slurm-point and slurm-sweep are hidden from `scalebench --help`
# (the generated sbatch scripts run them) but docs/slurm.md names them.
EXPECTED_SUBCOMMANDS = ("datagen", "train", "sweep", "status", "collect", "report", "compare", "ab", "commbench", "trace")
HIDDEN_SUBCOMMANDS = ("slurm-point", "slurm-sweep")
# Subcommands of the design (docs/design.md, a copy of shared/DESIGN.md) that this tree does not have;
# README.md would say so. Lines using them are skipped and counted.
NOT_BUILT = {}

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
    "--trace": ["--trace", "t.json"], "--batch": ["--batch", "8"],
}
# Inline spans that hold `scalebench` but are not commands.
NOT_COMMANDS = {"scalebench <version>": "the `writer` attribute of a run file (docs/results-schema.md)"}

# Launchers: the command they start is the first `scalebench` word after them; their own options
# before it are theirs. Without a `scalebench` word, a launcher line is that tool's own -- except
# that words after a `…` continue an elided `scalebench train` (docs/strategies.md's launch column).
LAUNCHERS = {"mpirun": "Open MPI", "mpiexec": "MPI", "srun": "Slurm", "time": "time", "/usr/bin/time": "time",
             "tools/cluster/mpirun.sh": "the emulated cluster (tools/cluster)"}
# Other tools: a command (code line or span) whose first word is one of these is not scalebench's,
# and its options are that tool's. Scripts and binaries of this repository are recognised by path.
OTHER_TOOLS = {
    "sbatch": "Slurm", "scontrol": "Slurm", "squeue": "Slurm", "sacct": "Slurm", "cmake": "CMake",
    "ctest": "CTest", "make": "make", "git": "git", "python3": "python3 (plots/, tools/, tests/ scripts)",
    "/usr/bin/python3": "python3 (plots/, tools/, tests/ scripts)", "pip": "pip", "less": "less",
    "source": "shell", "cd": "shell", "for": "shell", "do": "shell", "done": "shell",
    "sb_bench_gpu_model": "the GPU model benchmark (models/bench)", "sb_bench_kernels": "Google Benchmark",
    "sb_fuzz": "the fuzzer (tests/fuzz)", "spack": "Spack (docs/install.md)", "module": "Environment Modules / Lmod",
    "reframe": "ReFrame (docs/reframe.md)",
}
# Tool names that are also English words: in prose they do not name the tool ("a value for --x").
ENGLISH_WORDS = {"time", "for", "do", "done", "source", "make", "less", "cd"}
REPO_PATH_PREFIXES = ("tools/", "plots/", "tests/", "build/", "./build/", "slurm/", "/tmp/sb/bin/", ".gpu/")
REPO_SCRIPT_SUFFIXES = (".py", ".sh")
# Options named in prose or in bare `--option` spans that belong to another tool the prose is
# talking about: (option, tool, files where it may appear). Keep it short; an entry nothing uses
# fails the test.
ALLOWED_FOREIGN = [
    ("--oversubscribe", "mpirun (more ranks than cores)", ["docs/troubleshooting.md", "README.md"]),
    ("--allow-run-as-root", "mpirun (added by the local launcher as root)",
     ["docs/sweep-spec.md", "docs/troubleshooting.md", "README.md"]),
    ("--mpi", "srun (--mpi=none: the wrong PMI plugin)", ["docs/slurm.md"]),
    ("--array", "sbatch (job arrays for repetitions)", ["docs/slurm.md"]),
    ("--dependency", "sbatch (the collect job)", ["docs/slurm.md", "docs/testing.md"]),
    ("--exclusive", "sbatch (profile sbatch_args example)", ["docs/slurm.md", "docs/testing.md"]),
    ("--constraint", "sbatch (profile sbatch_args example)", ["docs/slurm.md"]),
    ("--signal", "sbatch (profile signal_seconds)", ["docs/slurm.md", "docs/results-schema.md"]),
    ("--requeue", "sbatch (profile requeue)", ["docs/slurm.md"]),
    ("--gpus-per-node", "sbatch (profile gpu_request; a ReFrame partition's _rfm_gpu resource)",
     ["docs/slurm.md", "docs/testing.md", "docs/reframe.md"]),
    ("--partition", "sbatch (a ReFrame partition's access options)", ["docs/reframe.md"]),
    ("--account", "sbatch (a ReFrame partition's access options)", ["docs/reframe.md"]),
    ("--ntasks", "sbatch (the job script ReFrame writes)", ["docs/reframe.md"]),
    ("--ntasks-per-node", "sbatch (the job script ReFrame writes)", ["docs/reframe.md"]),
    ("--cpus-per-task", "sbatch and srun (the job script ReFrame writes)", ["docs/reframe.md"]),
    ("--gres", "sbatch (profile gpu_request)", ["docs/slurm.md", "docs/testing.md"]),
    ("--export", "srun (scalebench's own --export and a profile's srun_args)", ["docs/slurm.md", "docs/testing.md"]),
    ("--layers", "sb_bench_gpu_model (per-layer timings)", ["docs/gpu.md"]),
    ("--all", "tools/torch_reference.py (the whole matrix)", ["docs/gpu.md"]),
    ("--reps", "sb_bench_gpu_model (repetitions, median)", ["docs/gpu.md"]),
    ("--expect-params", "tools/torch_reference.py (the parameter count checked)", ["docs/gpu.md"]),
    ("--compile", "tools/torch_reference.py (torch.compile modes)", ["docs/gpu.md"]),
    ("--traceback", "plots/make_all.py", ["docs/plots.md"]),
    ("--replay-only", "sb_fuzz (tests/fuzz: the corpus alone)", ["docs/testing.md"]),
    ("--input-timeout", "sb_fuzz (tests/fuzz: the hang limit)", ["docs/testing.md"]),
    ("--mca", "mpirun (the MCA parameters tools/cluster/mpirun.sh sets)", ["docs/cluster-emulation.md"]),
    ("--projection", "plots/make_all.py (the projection plot)", ["docs/plots.md"]),
    ("--overlay", "plots/make_all.py, plots/projection.py (points overlaid)", ["docs/plots.md"]),
    ("--with", "plots/make_all.py (the overlay of two studies)", ["docs/plots.md"]),
    ("--label", "plots/overlay.py (a study's name in the legend)", ["docs/plots.md"]),
    ("--paper", "plots/make_all.py, plots/*.py (paper mode)", ["docs/plots.md"]),
    ("--layers", "tools/synthetic_trace.py (equal backward layers)", ["docs/projection.md"]),
    ("--step-ms", "tools/synthetic_trace.py (compute per step)", ["docs/projection.md"]),
    ("--params", "tools/synthetic_trace.py (gradient elements)", ["docs/projection.md"]),
    ("--check", "tools/score_anchors.py (ctest study.published_tables)", ["docs/projection.md", "docs/testing.md"]),
    ("--points", "tools/score_anchors.py (calibrated on K points)", ["docs/projection.md"]),
    ("--bind-to", "mpirun (tools/cluster/mpirun.sh passes --bind-to none)", ["docs/cluster-emulation.md"]),
    ("--cpu-share", "tools/cluster/up.sh (nodes of a share of a core)", ["docs/limitations.md"]),
] + [(o, "tools/cluster/up.sh or mpirun.sh (the emulated cluster)", ["docs/cluster-emulation.md"])
     for o in ("--rate", "--latency", "--subnet", "--ppn", "--preset", "--cpus-per-node", "--cpu-share", "--node-share")]

# Repository references (doc_refs.py). Top-level entries of a checkout that are not the repository's
# (build trees, generated data: .gitignore), so a word starting with them is not checked as a path.
NOT_REPO_TOP = ("build", "data")
# Words that start like a repository path but name something built or generated: (regex, why).
REPO_PATH_SKIP = [
    (r"^results/(?!samples/|baselines/|anchors/|notes/)", "a study's output folder, written by a sweep (.gitignore)"),
    (r"(^|/)sb_[a-z0-9_]+$", "a built test or benchmark program, named by its path in the build tree"),
    (r"^slurm/(?!profiles/|local-cluster/)", "a study's slurm/ folder (results/<study>/slurm/), written by sweep --launcher slurm"),
]
# Docs whose code spans are not checked as repository paths: (file, why). Their links still are.
PATHS_NOT_CHECKED = {"docs/design.md": "a copy of the project design: its layout is the plan, not the tree"}
# ctest name prefixes that are also TOML tables: `cluster.partition` is a profile key, `study.name` a
# spec key. A word with such a prefix that no test matches is counted as a key, not a failure.
KEY_PREFIXES = {"cluster": "[cluster] of a Slurm profile (docs/slurm.md)",
                "study": "[study] of a sweep spec (docs/sweep-spec.md)"}

BOX_CHARS = re.compile("[\u2500-\u257f\u25b2-\u25bc\u25b6]")  # box drawing, ▲▼▶
SHELL_INFO = {"", "sh", "bash", "shell", "console"}
OPTION_IN_TEXT = re.compile(r"(?<![\w-])(--[A-Za-z][A-Za-z0-9_-]*)")
ELLIPSES = {"…", "..."}
SEPARATORS = {"|", "||", "&&", ";"}


# ---- the CLI's options, from --help ------------------------------------------------------------------
