# local.py — a ReFrame 4.x site configuration for this host, one system with two partitions:
#   default  tests run as local processes (scheduler "local", launcher "local"); what CI uses
#            (tests/reframe/reframe_test.sh); MPI strategies are skipped there (no MPI launcher)
#   slurm    a throw-away one-node Slurm (slurm/local-cluster/local_cluster.sh; SLURM_CONF from its
#            env.sh must be set before ReFrame starts): sbatch jobs, srun as the launcher
#            (tests/reframe/reframe_slurm_cgroup.sh)
# Each partition names its baseline (extras scalebench_baseline: a scalebench study file), which
# reframe/scalebench_check.py turns into that system:partition's references. A cluster's own
# configuration: docs/reframe.md.
import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

site_configuration = {
    'systems': [
        {
            'name': 'scalebench-local',
            'descr': 'this host',
            'hostnames': ['.*'],
            'modules_system': 'nomod',
            'partitions': [
                {
                    'name': 'default',
                    'descr': 'local processes, one test at a time',
                    'scheduler': 'local',
                    'launcher': 'local',
                    'environs': ['builtin'],
                    'max_jobs': 1,
                    'extras': {'scalebench_baseline': os.path.join(REPO, 'results', 'baselines', 'cpu-demo.h5')},
                },
                {
                    'name': 'slurm',
                    'descr': 'the local one-node Slurm, partition debug',
                    # squeue, not slurm: the local cluster keeps no accounting (sacct), which ReFrame's
                    # "slurm" scheduler polls; a cluster with slurmdbd uses "slurm"
                    'scheduler': 'squeue',
                    'launcher': 'srun',
                    'access': ['--partition=debug'],
                    'environs': ['builtin'],
                    'max_jobs': 1,
                    # the local cluster's srun talks to Open MPI through PMIx (MpiDefault=none there)
                    'env_vars': [['SLURM_MPI_TYPE', 'pmix']],
                    'extras': {'scalebench_baseline': os.path.join(REPO, 'results', 'baselines', 'cpu-demo.h5')},
                },
            ],
        },
    ],
    # Poll jobs at least twice a second: ReFrame's default slows down to once in 10 s (poll_rate_min
    # 0.1), which on this host's seconds-long jobs is most of a test's time. Not for a real cluster's
    # squeue, which a site polls sparingly.
    'general': [{'poll_rate_min': 2}],
    # Log to the terminal and, for performance, one file per test under <prefix>/perflogs/<system>/<partition>/:
    # a line per run with each variable, its value, unit, reference and bounds (ReFrame's own record over time).
    'logging': [
        {
            'level': 'debug',
            'handlers': [
                {'type': 'stream', 'name': 'stdout', 'level': 'info', 'format': '%(message)s'},
            ],
            'handlers_perflog': [
                {
                    'type': 'filelog',
                    'prefix': '%(check_system)s/%(check_partition)s',
                    'level': 'info',
                    'format': '%(check_job_completion_time)s|reframe %(version)s|%(check_info)s|%(check_perfvalues)s',
                    'format_perfvars': ('%(check_perf_var)s=%(check_perf_value)s %(check_perf_unit)s '
                                        'ref=%(check_perf_ref)s lower=%(check_perf_lower_thres)s '
                                        'upper=%(check_perf_upper_thres)s|'),
                    'append': True,
                },
            ],
        },
    ],
}
