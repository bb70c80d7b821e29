"""NVIDIA's script module names, ``python -m cuda.bench.scripts.<tool>``, on nvbench-tools.

cuda-bench ships its command-line tools as modules of this package; these thin modules run
ours under the same names (docs/coinstall.md): ``nvbench_compare`` (NVIDIA's legacy
comparison, :mod:`cuda.bench.cli.compare_legacy`), ``nvbench_compare_robust``,
``nvbench_plot_bwutil``, ``nvbench_histogram``, ``nvbench_json_summary`` and
``nvbench_walltime``. Where cuda-bench was installed after nvbench-tools these files are
NVIDIA's, and so are the tools they run.
"""
