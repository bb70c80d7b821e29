"""The archive's Parquet schemas: one row per run, per state, per state's samples.

Built on first use from ``pyarrow`` (passed in: an optional dependency, imported by
:mod:`.archive` only when it writes or checks a run).
"""

from __future__ import annotations

from typing import Any

__all__ = ["runs_schema", "samples_schema", "states_schema"]


def _axes_type(pa: Any) -> Any:
    return pa.list_(
        pa.struct(
            [
                ("name", pa.string()),
                ("type", pa.string()),
                ("value", pa.string()),
                ("int_value", pa.int64()),
                ("float_value", pa.float64()),
            ]
        )
    )


def states_schema(pa: Any) -> Any:
    return pa.schema(
        [
            ("run", pa.string()),
            ("benchmark", pa.string()),
            ("device", pa.int64()),
            ("state_name", pa.string()),
            ("axes", _axes_type(pa)),
            ("skipped", pa.bool_()),
            ("median", pa.float64()),
            ("median_lo", pa.float64()),
            ("median_hi", pa.float64()),
            ("mean", pa.float64()),
            ("noise", pa.float64()),
            ("samples", pa.int64()),
            ("sm_clock", pa.float64()),
            ("cycles_median", pa.float64()),
        ]
    )


def samples_schema(pa: Any) -> Any:
    return pa.schema(
        [
            ("run", pa.string()),
            ("benchmark", pa.string()),
            ("device", pa.int64()),
            ("state_name", pa.string()),
            ("count", pa.int64()),
            ("times", pa.list_(pa.float32())),
            ("clocks", pa.list_(pa.float32())),
        ]
    )


def runs_schema(pa: Any) -> Any:
    return pa.schema(
        [
            ("run", pa.string()),
            ("commit", pa.string()),
            ("date", pa.timestamp("us", tz="UTC")),
            ("order", pa.int64()),
            ("branch", pa.string()),
            ("tags", pa.map_(pa.string(), pa.string())),
            ("machine", pa.string()),
            ("devices", pa.string()),
            ("nvbench_version", pa.string()),
            ("source", pa.string()),
            ("states", pa.int64()),
        ]
    )
