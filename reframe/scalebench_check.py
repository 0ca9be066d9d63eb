# scalebench_check.py — a ReFrame test (reframe-hpc 4.x) that runs one small scalebench scaling
# point on a ReFrame-configured system and reports images/s and scaling efficiency as performance
# variables, against references read from a scalebench study file (a baseline).
#
# What it runs, in the test's stage folder: `scalebench sweep` of a generated two-point study (the
# strategy at N = 1 and N = devices, two epochs, the first excluded from the summaries as warm-up),
# `scalebench collect`, then `scalebench report --format json`, whose point at N = devices gives
#   images_per_s  the median images/s                       (reference: the baseline's, same point)
#   efficiency    images/s over devices x images/s at N = 1  (reference: the baseline's)
# The baseline is a scalebench study file (`-S baseline=...`, default results/baselines/cpu-demo.h5,
# recorded on this repository's CI host) that holds the same model, strategy and N; a baseline
# without that point fails the test naming the point. References hold no bounds unless asked:
# `-S ref_lower=-0.1` (and/or ref_upper) makes ReFrame fail a run more than 10 % below the baseline;
# without them ReFrame only logs the values beside the references (this repository's CI runs it so:
# timings on a shared CI host are no pass/fail criterion).
# Not here: Slurm submission (a ReFrame partition with scheduler "slurm" runs the same test as a job;
# docs/reframe.md), GPU points (`-S backend=cuda` on a GPU partition; not exercised by CI).
import json
import os
import subprocess

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import performance_function, run_before, sanity_function, variable

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def report_json(scalebench, study_file):
    """`scalebench report <study_file> --format json`, parsed; raises with scalebench's own message."""
    proc = subprocess.run([scalebench, 'report', study_file, '--format', 'json'], capture_output=True, text=True)
    if proc.returncode != 0:
        raise ValueError(f'{study_file}: scalebench report failed: {proc.stderr.strip() or proc.stdout.strip()}')
    return json.loads(proc.stdout)


def find_point(report, model, strategy, devices, where):
    """The report's point for (model, strategy, N); raises naming what is missing."""
    for table in report['tables']:
        if table['model'] == model and table['strategy'] == strategy:
            for p in table['points']:
                if p['devices'] == devices:
                    return p
    raise ValueError(f'{where}: no point {model} {strategy} N={devices} '
                     f'(pass a baseline that holds it: -S baseline=<study.h5>)')


@sn.deferrable
def point_value(stdout_path, model, strategy, devices, key):
    with open(stdout_path) as f:
        return find_point(json.load(f), model, strategy, devices, stdout_path)[key]


@rfm.simple_test
class ScalebenchScalingPoint(rfm.RunOnlyRegressionTest):
    descr = 'scalebench: one data-parallel scaling point, images/s and efficiency against a baseline study'
    valid_systems = ['*']
    valid_prog_environs = ['*']
    tags = {'scalebench', 'benchmark'}

    scalebench = variable(str, value='scalebench')   # the binary: a name on PATH or a path
    baseline = variable(str, value=os.path.join(REPO, 'results', 'baselines', 'cpu-demo.h5'))
    model = variable(str, value='unet:depth=3,base=8')
    strategy = variable(str, value='mirrored')      # one process: no MPI launcher needed
    devices = variable(int, value=2)
    batch = variable(int, value=8)                   # per device (weak scaling), as in the baseline
    threads = variable(int, value=1)
    backend = variable(str, value='cpu')
    ref_lower = variable(float, type(None), value=None)  # e.g. -0.1: fail 10 % below the reference
    ref_upper = variable(float, type(None), value=None)

    executable = 'true'  # replaced below; set here because ReFrame requires it at class level

    # Before the performance stage, not at load time: a baseline without the point then fails this
    # test naming the point, instead of keeping ReFrame from loading the file.
    @run_before('performance')
    def set_references(self):
        point = find_point(report_json(self.scalebench, self.baseline), self.model, self.strategy, self.devices,
                           self.baseline)
        self.reference = {'*': {
            'images_per_s': (point['images_per_s'], self.ref_lower, self.ref_upper, 'images/s'),
            'efficiency': (point['efficiency'], self.ref_lower, self.ref_upper, 'fraction'),
        }}

    @run_before('run')
    def write_study(self):
        spec = f'''[study]
name = "reframe-point"
output = "study"
repetitions = 1
[dataset]
task = "segmentation"
n = 288
size = 64
seed = 1
[sweep]
models = ["{self.model}"]
strategies = ["{self.strategy}"]
devices = [1, {self.devices}]
scaling = "weak"
batch = {self.batch}
[train]
epochs = 2
lr = 0.05
lr_scaling = "linear"
optimizer = "sgd"
backend = "{self.backend}"
threads = {self.threads}
'''
        with open(os.path.join(self.stagedir, 'point.toml'), 'w') as f:
            f.write(spec)
        sb = self.scalebench
        self.prerun_cmds = [f'{sb} sweep point.toml >&2', f'{sb} collect study >&2']
        self.executable = sb
        self.executable_opts = ['report', 'study/study.h5', '--format', 'json']

    @sanity_function
    def point_ok(self):
        status = point_value(self.stdout, self.model, self.strategy, self.devices, 'status')
        return sn.assert_eq(status, 'ok', msg='the point at N={0} ended {1}, not ok'.format(self.devices, status))

    @performance_function('images/s')
    def images_per_s(self):
        return point_value(self.stdout, self.model, self.strategy, self.devices, 'images_per_s')

    @performance_function('fraction')
    def efficiency(self):
        return point_value(self.stdout, self.model, self.strategy, self.devices, 'efficiency')
