# local.py — a ReFrame 4.x site configuration for this host: one system, one partition that runs
# tests as local processes (scheduler "local", launcher "local"), no module system. What CI uses to
# run reframe/scalebench_check.py (tests/reframe/reframe_test.sh). A cluster's own configuration adds
# a partition with scheduler "slurm" and its access options instead (docs/reframe.md).
site_configuration = {
    'systems': [
        {
            'name': 'scalebench-local',
            'descr': 'this host, tests run as local processes',
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
                },
            ],
        },
    ],
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
