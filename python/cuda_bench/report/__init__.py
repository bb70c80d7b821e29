"""Renderers: NVBench-style result tables, wall-time reports and the shared text formatting.

* :mod:`cuda.bench.report.format`: one formatting helper per concept (summary cells by hint,
  axis values, durations, percentages, noise, wall-clock times);
* :mod:`cuda.bench.report.intervals`: timing-interval cells of the comparison tables;
* :mod:`cuda.bench.report.table`: the table renderer (GitHub pipe tables and NVBench's own
  layout);
* :mod:`cuda.bench.report.summary`: NVBench's ``# Benchmark Results`` markdown and CSV;
* :mod:`cuda.bench.report.walltime`: where the benchmark wall time went.

Import the submodules directly; this package imports nothing so that importing it stays cheap.
"""
