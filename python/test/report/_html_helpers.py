"""Inputs for the HTML report tests: a pair whose names need escaping, and reading a page."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
from cuda.bench.results import DeviceSpec, Int64Axis, ResultBuilder, StringAxis

#: A benchmark name and string axis values that break a page which does not escape them.
HOSTILE_BENCHMARK = "</script><script>alert(\"x\")</script> & 'q' <!--"
HOSTILE_MODES = ('<b>"a"&amp;</b>', "</script>", "x' onmouseover='alert(1)")


def write_hostile_pair(directory: Path) -> tuple[Path, Path]:
    """Reference and compare runs: a ``plain`` benchmark of 8 states (``N=2`` ... 20 %
    slower, ``N=3`` 15 % faster in compare) and a benchmark with the hostile name whose
    ``N=2`` states are 20 % slower."""
    rng = np.random.default_rng(11)
    paths = []
    for side in ("ref", "cmp"):
        builder = ResultBuilder(devices=[DeviceSpec.h100(0)])
        plain = builder.benchmark("plain", axes=[Int64Axis("N", [1, 2, 3, 4, 5, 6, 7, 8])])
        for n in range(1, 9):
            factor = {2: 1.2, 3: 0.85}.get(n, 1.0) if side == "cmp" else 1.0
            plain.state(
                {"N": n},
                device=0,
                gpu_times=1e-6 * n * factor * rng.lognormal(0.0, 0.004, 300),
                frequencies=np.full(300, 1.7e9),
            )
        hostile = builder.benchmark(
            HOSTILE_BENCHMARK,
            axes=[StringAxis("Mode", list(HOSTILE_MODES)), Int64Axis("N", [1, 2])],
        )
        for mode in HOSTILE_MODES:
            for n in (1, 2):
                factor = 1.2 if side == "cmp" and n == 2 else 1.0
                hostile.state(
                    {"Mode": mode, "N": n},
                    device=0,
                    gpu_times=1e-5 * n * factor * rng.lognormal(0.0, 0.004, 300),
                    frequencies=np.full(300, 1.7e9),
                )
        path = directory / f"{side}.json"
        builder.write(path, jsonbin=True)
        paths.append(path)
    return paths[0], paths[1]


def page_blob(page: str) -> dict[str, Any]:
    """The JSON data embedded in a page."""
    match = re.search(r'<script type="application/json" id="nvbench-data">(.*?)</script>', page)
    assert match, "the page has no data element"
    data: dict[str, Any] = json.loads(match.group(1))
    return data
