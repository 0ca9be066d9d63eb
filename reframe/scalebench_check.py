# scalebench_check.py — ReFrame tests (reframe-hpc 4.x) for scalebench scaling points, one test per
# (strategy, N): ReFrame asks the scheduler for the point's resources and its launcher (srun on a
# Slurm partition, mpirun or local elsewhere) starts `scalebench train` for the point, once per
# repetition; `scalebench collect` and `scalebench report --format json` then give the median and
# 95 % interval, checked against the baseline of the partition the test ran on.
#
# The point's command line is the one `scalebench sweep SPEC --dry-run` prints (no second copy of
# the train options here); only its launcher prefix (`mpirun -np R …`) is replaced by ReFrame's.
# Performance variables, from the point at N (docs/reframe.md):
#   images_per_s  median over the repetitions; images_per_s_ci_lo/_hi its 95 % interval (logged only)
#   efficiency    N > 1 only: against the same strategy's N = 1 test (a dependency), as collect does
# References per system:partition, bounds on by default: reference = the baseline's median for the
# point; the lower bound the wider of the metric's tolerance in harness/study/analysis/metrics.def
# and the baseline's own 95 % interval (a run inside the baseline's spread is no regression).
# The baseline of a partition: its `extras: {'scalebench_baseline': '<study.h5>'}` in the ReFrame
# configuration, or `-S baseline=<study.h5>` for one run. A partition without one fails in setup.
# Not here: the job's nodes/GPUs binding (the partition's Slurm and launcher options), plots.
import json
import os
import shlex
import shutil
import subprocess

import reframe as rfm
import reframe.utility.sanity as sn
import reframe.utility.typecheck as typ
from reframe.core.builtins import parameter, run_after, run_before, sanity_function, variable

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def scalebench_out(argv):
    """stdout of a scalebench command; raises with scalebench's own error line."""
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ValueError(f'{shlex.join(argv)}: {proc.stderr.strip() or proc.stdout.strip()}')
    return proc.stdout


_baseline_reports = {}  # path -> report JSON: every test of a partition reads the same baseline


def baseline_report(scalebench, path):
    if path not in _baseline_reports:
        _baseline_reports[path] = json.loads(scalebench_out([scalebench, 'report', path, '--format', 'json']))
    return _baseline_reports[path]


def metric_rules(metrics_def):
    """{metric: (better, tolerance text)} from the SB_METRIC lines of metrics.def."""
    rules = {}
    with open(metrics_def) as f:
        for line in f:
            if not line.startswith('SB_METRIC('):
                continue
            words = [w.strip().strip('"') for w in line[len('SB_METRIC('):].split(',', 4)[:4]]
            rules[words[0]] = (words[2], words[3])
    if not rules:
        raise ValueError(f'{metrics_def}: no SB_METRIC lines')
    return rules


def tolerance_fraction(tolerance, better, reference, where):
    """A metrics.def tolerance ("-10%", "+0.05", "off") as ReFrame's relative bound, or None."""
    if tolerance == 'off':
        return None
    if tolerance.endswith('%'):
        value = float(tolerance[:-1]) / 100
    else:
        if not reference:
            return None
        value = float(tolerance) / abs(reference)
    if (better == 'higher') != (value < 0):
        raise ValueError(f'{where}: tolerance {tolerance} points the wrong way for a {better}-is-better metric')
    return value


def bound(metric, point, rules, where):
    """(lower, upper) relative bounds for a baseline point's metric: the wider of the tolerance and
    the baseline's interval, on the side that is worse."""
    better, tolerance = rules[metric]
    ref = point[metric]
    candidates = []
    tol = tolerance_fraction(tolerance, better, ref, where)
    if tol is not None:
        candidates.append(tol)
    side = point.get(f'{metric}_ci_lo' if better == 'higher' else f'{metric}_ci_hi')
    if side is not None and ref:
        candidates.append((side - ref) / ref)
    if not candidates:
        return None, None
    return (min(candidates), None) if better == 'higher' else (None, max(candidates))


def find_point(report, model, strategy, devices, where):
    """The report's one point for (model, strategy, N); raises naming what is missing or ambiguous."""
    found = [p for t in report['tables'] if t['model'] == model and t['strategy'] == strategy
             for p in t['points'] if p['devices'] == devices]
    if len(found) != 1:
        raise ValueError(f'{where}: {len(found)} points {model} {strategy} N={devices}, expected one '
                         f'(a baseline with this point: -S baseline=<study.h5> or the partition extras)')
    return found[0]


def dry_run_point(scalebench, spec, sets, strategy, devices, repetitions, output):
    """The point's runs as `sweep --dry-run` prints them: [(ranks, train argv)] in repetition order.
    ranks: the MPI ranks the local launcher would start (mpirun -np R); 0 for a one-process strategy."""
    argv = [scalebench, 'sweep', spec, '--dry-run', '--launcher', 'local', '--output', output,
            '--repetitions', str(repetitions),
            '--set', f'sweep.strategies=["{strategy}"]', '--set', f'sweep.devices=[{devices}]']
    for s in sets:
        argv += ['--set', s]
    runs = []
    for line in scalebench_out(argv).splitlines():
        if not line.startswith('[') or ' run ' not in line:
            continue
        words = shlex.split(line.split(': ', 1)[1])
        i = words.index('train')
        prefix = words[:i - 1]
        ranks = int(prefix[prefix.index('-np') + 1]) if '-np' in prefix else 0
        runs.append((ranks, words[i:]))
    if len(runs) != repetitions:
        raise ValueError(f'{spec}: the dry run gave {len(runs)} runs for {strategy} N={devices}, '
                         f'expected {repetitions} (is {strategy} in the spec\'s strategies, N in its devices?)')
    return runs


def dataset_argv(scalebench, spec, train_argv):
    """`scalebench datagen` for the spec's [dataset] recipe when the run's --data file is missing.
    The recipe is read from the spec file itself, so a `-S sets=dataset.…` override is refused."""
    data = train_argv[train_argv.index('--data') + 1]
    if os.path.exists(data):
        return None
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    with open(spec, 'rb') as f:
        ds = tomllib.load(f).get('dataset', {})
    if 'path' in ds:
        raise ValueError(f'{spec}: dataset.path {ds["path"]} is missing')
    return [scalebench, 'datagen', '--task', str(ds.get('task', 'segmentation')), '--n', str(ds.get('n', 2000)),
            '--size', str(ds.get('size', 128)), '--seed', str(ds.get('seed', 1)), '-o', data]


@rfm.simple_test
class ScalebenchPoint(rfm.RunOnlyRegressionTest):
    descr = 'scalebench: one scaling point through the partition\'s launcher, against its baseline'
    valid_systems = ['*']
    valid_prog_environs = ['*']
    tags = {'scalebench', 'benchmark'}

    # -P strategy=ring,mirrored -P devices=1,2,4 (ReFrame's --parameterize) changes the points.
    strategy = parameter(['mirrored', 'ring'], type=str)
    devices = parameter([1, 2], type=int)

    scalebench = variable(str, value='scalebench')   # the binary: a name on PATH or a path
    spec = variable(str, value=os.path.join(REPO, 'studies', 'cpu-demo.toml'))
    sets = variable(typ.List[str], value=[])         # extra `sweep --set key=value`, e.g. train.epochs=2
    # 6: the fewest runs whose median has a 95 % interval (docs/metrics.md)
    repetitions = variable(int, value=6)
    baseline = variable(str, value='')               # '' = the partition's extras scalebench_baseline
    bounds = variable(str, value='on')               # on | off: references logged, never judged; no
                                                     # baseline needed (how to record one: docs/reframe.md)
    backend = variable(str, value='')                # '' = cuda where the partition has GPUs, else cpu
    metrics_def = variable(str, value=os.path.join(REPO, 'harness', 'study', 'analysis', 'metrics.def'))

    executable = 'true'  # replaced in setup; ReFrame wants one at class level

    @run_after('init')
    def needs_n1(self):
        self.skip_if(self.strategy == 'single' and self.devices != 1, 'single runs at N = 1 only')
        self.n1_test = None
        if self.devices != 1:
            nums = type(self).get_variant_nums(strategy=self.strategy, devices=1)
            if nums:  # efficiency needs the N = 1 runs; without an N = 1 variant it is not reported
                self.n1_test = type(self).variant_name(nums[0])
                self.depends_on(self.n1_test)

    @run_after('setup')
    def plan(self):
        if self.bounds not in ('on', 'off'):
            raise ValueError(f'-S bounds={self.bounds}: expected on or off')
        part = self.current_partition
        gpus = sum(d.num_devices for d in part.select_devices('gpu'))
        backend = self.backend or ('cuda' if gpus else 'cpu')
        study = os.path.join(self.stagedir, 'study')
        for s in self.sets:
            if s.startswith('dataset.'):
                raise ValueError(f'-S sets={s}: the dataset comes from the spec\'s [dataset]; edit the spec instead')
        sets = [*self.sets, f'train.backend="{backend}"']
        self.runs = dry_run_point(self.scalebench, self.spec, sets, self.strategy, self.devices, self.repetitions, study)
        ranks, first = self.runs[0]
        launcher = part.extras.get('launcher', '')
        self.skip_if(ranks and launcher == 'local',
                     f'{self.strategy} starts {ranks} MPI ranks; partition {part.fullname} has the local launcher')
        self.model = first[first.index('--model') + 1]
        if launcher == 'srun':
            # what scalebench's own Slurm steps carry: the ranks take srun's task count as the world
            # size and check SLURM_PROCID/SLURM_NTASKS against MPI's (harness/train/launch_env.h)
            self.env_vars['SCALEBENCH_LAUNCHER'] = 'srun'
        threads = int(first[first.index('--threads') + 1]) if '--threads' in first else 1
        if not ranks:  # one process drives all N devices
            self.num_tasks, self.num_tasks_per_node = 1, 1
            if backend == 'cuda':
                self.num_gpus_per_node, self.num_cpus_per_task = self.devices, threads * self.devices
            else:
                self.num_cpus_per_task = threads * self.devices
        else:  # MPI: one rank per device (plus any extra ranks the strategy adds)
            self.num_tasks = ranks
            self.num_cpus_per_task = threads
            if backend == 'cuda':
                self.num_tasks_per_node = min(ranks, gpus)
                self.num_gpus_per_node = min(ranks, gpus)
        self.datagen = dataset_argv(self.scalebench, self.spec, first)
        self.set_references()

    def set_references(self):
        """reference[system:partition] from the partition's baseline study file."""
        part = self.current_partition
        path = self.baseline or part.extras.get('scalebench_baseline', '')
        if not path and self.bounds == 'off':  # recording a baseline: values logged, nothing compared
            return
        if not path:
            raise ValueError(f'no baseline for {part.fullname}: add extras scalebench_baseline to the partition '
                             f'or pass -S baseline=<study.h5>')
        try:
            point = find_point(baseline_report(self.scalebench, path), self.model, self.strategy, self.devices, path)
        except ValueError:
            if self.bounds == 'off':  # recording a baseline: nothing to compare with yet
                return
            raise
        rules = metric_rules(self.metrics_def)
        ref = {}
        for metric, unit in self.checked_metrics():
            lo, hi = bound(metric, point, rules, self.metrics_def) if self.bounds == 'on' else (None, None)
            ref[metric] = (point[metric], lo, hi, unit)
        self.reference = {part.fullname: ref}

    def checked_metrics(self):
        return [('images_per_s', 'images/s')] + ([('efficiency', 'fraction')] if self.n1_test else [])

    @run_before('run')
    def commands(self):
        study = os.path.join(self.stagedir, 'study')
        os.makedirs(os.path.join(study, 'runs'), exist_ok=True)
        if self.n1_test:  # the N = 1 runs of the same strategy, for collect's efficiency
            n1 = os.path.join(self.getdep(self.n1_test).stagedir, 'study', 'runs')
            for f in os.listdir(n1):
                if f.endswith('.h5'):
                    shutil.copy2(os.path.join(n1, f), os.path.join(study, 'runs', f))
        # ReFrame sets these on the job just before it writes the script; the launcher's command for the
        # earlier repetitions (mpirun -np, srun --cpus-per-task) reads them now.
        self.job.num_tasks, self.job.num_cpus_per_task = self.num_tasks, self.num_cpus_per_task
        launch = self.job.launcher.run_command(self.job)
        sb = shlex.quote(self.scalebench)
        self.prerun_cmds = [shlex.join(self.datagen)] if self.datagen else []
        self.prerun_cmds += [f'{launch} {sb} {shlex.join(argv)}' for _, argv in self.runs[:-1]]
        self.executable = sb
        self.executable_opts = [shlex.quote(w) for w in self.runs[-1][1]]
        self.postrun_cmds = [f'{sb} collect {shlex.quote(study)} >&2',
                             f'{sb} report {shlex.quote(os.path.join(study, "study.h5"))} --format json > report.json']

    @sn.deferrable
    def point(self):
        with open(os.path.join(self.stagedir, 'report.json')) as f:
            return find_point(json.load(f), self.model, self.strategy, self.devices, 'report.json')

    @sanity_function
    def point_ok(self):
        p = self.point()
        return sn.all([
            sn.assert_eq(p['status'], 'ok', msg=f'{self.strategy} N={self.devices}: status {{0}}, not ok'),
            sn.assert_eq(p['runs_ok'], self.repetitions, msg='{0} of {1} repetitions ok'),
        ])

    @run_before('performance')
    def perf_vars(self):
        with open(os.path.join(self.stagedir, 'report.json')) as f:
            p = find_point(json.load(f), self.model, self.strategy, self.devices, 'report.json')
        units = {m: u for m, u in self.checked_metrics()}
        # the interval is logged where the report has one (it needs enough repetitions)
        names = [*units, *(n for n in ('images_per_s_ci_lo', 'images_per_s_ci_hi') if p.get(n) is not None)]
        self.perf_variables = {n: sn.make_performance_function(float, units.get(n, 'images/s'), p[n]) for n in names}
