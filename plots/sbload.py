"""sbload.py — the one module that reads scalebench results for the plot scripts.

Reads the study file (`scalebench collect` → <study>/study.h5), the run files it points to
(<study>/runs/<run_id>.h5) and commbench JSON (`scalebench commbench --json`), as described in
docs/results-schema.md and docs/comm.md, into plain Python/numpy values: strings are decoded,
missing fields read as NaN / "" / absent (readers ignore unknown fields, per the schema's
compatibility rule), and every problem with an input file becomes one `InputError` whose message
names the file.

It deliberately does not: plot, write any file, import pandas, or derive metrics that `collect`
already derived (speedup, efficiency and baselines are taken from the study file as they are).
Every h5py call of the plot scripts is in this file.
"""
from __future__ import annotations

import glob
import json
import math
import os
from dataclasses import dataclass, field

import numpy as np

try:
    import h5py
except ImportError as e:  # pragma: no cover - a broken install, reported as one line by make_all
    raise ImportError("h5py is missing: install python3-h5py (Debian) for /usr/bin/python3") from e

SCHEMA_VERSION = 1  # the newest schema_version this reader understands


class InputError(Exception):
    """An input file is missing, unreadable, corrupt or of an unsupported kind (one-line message)."""


class NoData(Exception):
    """A plot has nothing to draw from these inputs (the message says why); not an error."""


# ---- value helpers ---------------------------------------------------------------------------------

def _py(v):
    """HDF5 attribute / table cell → plain Python value (bytes decoded, numpy scalars unwrapped)."""
    if isinstance(v, (bytes, np.bytes_)):
        return v.decode("utf-8", "replace")
    if isinstance(v, np.ndarray):
        if v.shape == ():
            return _py(v[()])
        return [_py(x) for x in v.tolist()]
    if isinstance(v, np.generic):
        return v.item()
    return v


def _attrs(obj) -> dict:
    return {k: _py(obj.attrs[k]) for k in obj.attrs.keys()}


def _table(ds) -> dict:
    """A 1-D compound dataset → {column: numpy array}; string columns become object arrays of str."""
    arr = ds[()]
    out = {}
    if arr.dtype.names is None:
        raise ValueError(f"{ds.name} is not a table")
    for name in arr.dtype.names:
        col = arr[name]
        if col.dtype.kind in ("O", "S", "U"):
            out[name] = np.array([_py(x) for x in col], dtype=object)
        else:
            out[name] = np.asarray(col)
    return out


def num(v, default=math.nan) -> float:
    """A field as float; None, "" or anything not numeric gives `default`."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return default
    return f


def finite(v) -> bool:
    return math.isfinite(num(v))


def _short(e: BaseException) -> str:
    s = str(e).strip().splitlines()
    return (s[0] if s else e.__class__.__name__)[:200]


def _open_h5(path: str):
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")
    if os.path.isdir(path):
        raise InputError(f"{path}: is a folder, expected an HDF5 file")
    try:
        return h5py.File(path, "r")
    except OSError as e:
        raise InputError(f"{path}: not a readable HDF5 file ({_short(e)})") from None


def _check_schema(path: str, root: dict):
    sv = root.get("schema_version")
    if sv is None:
        raise InputError(f"{path}: no schema_version attribute — not a scalebench result file")
    if num(sv) > SCHEMA_VERSION:
        raise InputError(f"{path}: schema_version {sv} is newer than this reader knows ({SCHEMA_VERSION}); "
                         "update plots/")


# ---- run files -------------------------------------------------------------------------------------

_EPOCH_COLS = ("epoch", "warmup", "wall_s", "images", "images_per_s", "lr", "train_loss", "val_loss",
               "val_miou", "val_accuracy")
_STEP_COLS = ("epoch", "step", "loss", "t_data", "t_fwd", "t_bwd", "t_comm_exposed", "t_update", "t_total")


@dataclass
class RunFile:
    """One run file. Tables are {column: array}; columns a file lacks are NaN-filled."""
    path: str
    root: dict
    config: dict
    context: dict
    summary: dict
    epochs: dict
    steps: dict
    iou: np.ndarray
    class_names: list

    @property
    def status(self) -> str:
        return str(self.root.get("status", ""))

    @property
    def run_id(self) -> str:
        return str(self.config.get("run_id", os.path.splitext(os.path.basename(self.path))[0]))

    def n_epochs(self) -> int:
        return len(self.epochs["epoch"])

    def measured_epoch_mask(self, table: str = "epochs") -> np.ndarray:
        """Rows of /epochs or /steps in the measured epochs (all but the warm-up one when ≥ 2 epochs,
        as docs/results-schema.md defines for /summary)."""
        ep = self.epochs
        warm = {int(e) for e, w in zip(ep["epoch"], ep["warmup"]) if finite(w) and int(w) == 1}
        all_epochs = [int(e) for e in ep["epoch"]]
        if len(all_epochs) < 2:
            warm = set()
        col = self.epochs["epoch"] if table == "epochs" else self.steps["epoch"]
        return np.array([int(e) not in warm for e in col], dtype=bool)


def _filled(tab: dict, cols, n=None) -> dict:
    n = len(next(iter(tab.values()))) if (n is None and tab) else (n or 0)
    out = dict(tab)
    for c in cols:
        if c not in out:
            out[c] = np.full(n, np.nan)
    return out


def load_run(path: str) -> RunFile:
    f = _open_h5(path)
    try:
        with f:
            root = _attrs(f)
            _check_schema(path, root)
            if root.get("kind") == "study" or "runs" in f:
                raise InputError(f"{path}: is a study file, expected a run file")
            if "config" not in f:
                raise InputError(f"{path}: no /config group — not a scalebench run file")
            config = _attrs(f["config"])
            context = _attrs(f["context"]) if "context" in f else {}
            summary = _attrs(f["summary"]) if "summary" in f else {}
            epochs = _filled(_table(f["epochs"]) if "epochs" in f else {}, _EPOCH_COLS)
            steps = _filled(_table(f["steps"]) if "steps" in f else {}, _STEP_COLS)
            iou = np.zeros((0, 0))
            class_names = []
            if "eval" in f and "iou" in f["eval"]:
                iou = np.asarray(f["eval/iou"][()], dtype=float)
                cn = _py(f["eval/iou"].attrs.get("class_names", ""))
                class_names = [c.strip() for c in str(cn).split(",") if c.strip()] if cn else []
    except InputError:
        raise
    except Exception as e:  # h5py raises KeyError/OSError/ValueError/TypeError on damaged content
        raise InputError(f"{path}: damaged run file ({_short(e)})") from None
    return RunFile(path, root, config, context, summary, epochs, steps, iou, class_names)


# ---- study files -----------------------------------------------------------------------------------

def resolve_study(path: str) -> str:
    """A study folder or file → the study.h5 path (InputError when there is none)."""
    if os.path.isdir(path):
        p = os.path.join(path, "study.h5")
        if os.path.exists(p):
            return p
        hint = " (run `scalebench collect " + path + "` first)" if os.path.isdir(os.path.join(path, "runs")) else ""
        raise InputError(f"{path}: no study.h5 in this folder{hint}")
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file or folder")
    return path


@dataclass
class Study:
    """A study file: its root attributes and its /runs table as a list of row dicts."""
    path: str
    attrs: dict
    rows: list
    _runs: dict = field(default_factory=dict, repr=False)
    # The study file's /metrics table (metrics.def as collect wrote it): name -> {unit, better,
    # tolerance, kind, source, definition}; empty for files written before it existed.
    metrics: dict = field(default_factory=dict)

    @property
    def dir(self) -> str:
        return os.path.dirname(os.path.abspath(self.path))

    @property
    def name(self) -> str:
        return str(self.attrs.get("study", "")) or os.path.basename(self.dir)

    def ok_rows(self) -> list:
        return [r for r in self.rows if r.get("status") == "ok"]

    def not_ok_rows(self) -> list:
        return [r for r in self.rows if r.get("status") != "ok"]

    def run_path(self, row: dict) -> str:
        rel = str(row.get("file", "")) or os.path.join("runs", str(row.get("run_id", "")) + ".h5")
        return rel if os.path.isabs(rel) else os.path.join(self.dir, rel)

    def run(self, row: dict):
        """The row's run file, or None when it is not there (a study copied without its runs/);
        InputError when it is there but unreadable."""
        p = self.run_path(row)
        if p not in self._runs:
            self._runs[p] = load_run(p) if os.path.exists(p) else None
        return self._runs[p]

    def missing_run_files(self, rows=None) -> list:
        """The rows (default: all) whose run file is not there."""
        return [r for r in (self.rows if rows is None else rows) if not os.path.exists(self.run_path(r))]

    def has_run_files(self) -> bool:
        return any(os.path.exists(self.run_path(r)) for r in self.rows)


def load_study(path_or_dir: str) -> Study:
    path = resolve_study(path_or_dir)
    f = _open_h5(path)
    try:
        with f:
            attrs = _attrs(f)
            _check_schema(path, attrs)
            if "runs" not in f:
                what = "a run file" if "config" in f else "not a scalebench study file"
                raise InputError(f"{path}: no /runs table — {what}, expected a study file (study.h5)")
            tab = _table(f["runs"])
            mtab = _table(f["metrics"]) if "metrics" in f else {}
    except InputError:
        raise
    except Exception as e:
        raise InputError(f"{path}: damaged study file ({_short(e)})") from None
    n = len(next(iter(tab.values()))) if tab else 0
    rows = [{k: _py(v[i]) for k, v in tab.items()} for i in range(n)]
    # The configuration columns that tell points apart, as collect wrote them (older files: None).
    point_fields = tuple(str(attrs["point_fields"]).split(",")) if attrs.get("point_fields") else None
    for r in rows:  # the fields every plot relies on
        for k in ("status", "model", "strategy", "scaling", "group_id", "point_id", "task", "error"):
            r.setdefault(k, "")
        r["_point_fields"] = point_fields
        r["world_size"] = int(num(r.get("world_size"), 0))
    metrics = {}
    for i in range(len(mtab.get("name", []))):
        metrics[str(mtab["name"][i])] = {k: _py(v[i]) for k, v in mtab.items() if k != "name"}
    return Study(path, attrs, rows, metrics=metrics)


# ---- commbench JSON --------------------------------------------------------------------------------

@dataclass
class CommbenchSet:
    """One commbench invocation (one transport at one rank count): header fields + result rows.
    rows: list of dicts with algo, bytes, time_us, algbw_GBps, busbw_GBps, max_abs_err."""
    path: str
    transport: str
    ranks: int
    nodes: int
    hostnames: list
    header: dict
    rows: list


_CB_ROW_KEYS = ("algo", "bytes", "busbw_GBps")


def load_commbench(path: str) -> list:
    """A commbench JSON file → [CommbenchSet]. Accepts the `scalebench commbench --json` object
    (docs/comm.md) and, for hand-made files, a plain list of rows that each carry transport and
    ranks themselves."""
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"{path}: not a readable JSON file ({_short(e)})") from None

    def rows_of(items, where):
        if not isinstance(items, list):
            raise InputError(f"{path}: {where} is not a list of result rows")
        out = []
        for i, r in enumerate(items):
            if not isinstance(r, dict) or any(k not in r for k in _CB_ROW_KEYS):
                raise InputError(f"{path}: {where} entry {i} lacks one of {', '.join(_CB_ROW_KEYS)}")
            row = dict(r)
            row["algo"] = str(row["algo"])
            row["bytes"] = int(num(row["bytes"], 0))
            for k in ("time_us", "algbw_GBps", "busbw_GBps", "max_abs_err"):
                row[k] = num(row.get(k, row.get("max_error") if k == "max_abs_err" else None))
            out.append(row)
        return out

    if isinstance(doc, dict):
        if "results" not in doc:
            raise InputError(f"{path}: no \"results\" list — not a commbench JSON file")
        hdr = {k: v for k, v in doc.items() if k != "results"}
        return [CommbenchSet(path, str(doc.get("transport", "?")), int(num(doc.get("ranks"), 0)),
                             int(num(doc.get("nodes"), 0)), list(doc.get("hostnames", []) or []), hdr,
                             rows_of(doc["results"], "results"))]
    rows = rows_of(doc, "row list")
    sets = {}
    for r in rows:
        key = (str(r.get("transport", "?")), int(num(r.get("ranks"), 0)))
        sets.setdefault(key, []).append(r)
    return [CommbenchSet(path, t, n, int(num(rs[0].get("nodes"), 0)), [], {}, rs) for (t, n), rs in sets.items()]


def find_commbench(path: str) -> list:
    """commbench JSON files that belong to a study: <dir>/commbench*.json and <dir>/commbench/*.json,
    where <dir> is the study folder (or the folder of a study file). A .json path is itself."""
    if path.endswith(".json"):
        return [path]
    d = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    found = sorted(glob.glob(os.path.join(d, "commbench*.json"))) + \
        sorted(glob.glob(os.path.join(d, "commbench", "*.json")))
    return found
