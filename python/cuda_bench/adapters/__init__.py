"""Adapters that turn timings from other tools into NVBench results.

* :mod:`cuda.bench.adapters.samples`: plain lists of sample times from anything
  (``samples_to_result``; ``add_samples`` to compose with a ``ResultBuilder``).
* :mod:`cuda.bench.adapters.torch`: ``torch.utils.benchmark`` measurements
  (``measurements_to_result``); imports without torch, which only its functions need.

The files they write are NVBench ``--jsonbin`` results, so ``nvbench_compare`` and
:mod:`cuda.bench.results` use them like any NVBench run. Import the submodules directly;
this package imports nothing.
"""
