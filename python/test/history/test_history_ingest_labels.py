"""``ingest`` refuses a ``--commit``, ``--branch`` or ``--tag`` holding a control character
(C0, DEL, C1, a line or paragraph separator, a bidirectional control): the archive keeps
its labels for good, and a newline or an escape sequence in one was stored and shown
escaped on every later page and report. One line naming the option, exit 2.

Real input: ``nvbench-format-examples/gpu``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import run_history
from _ingest_refusal import archive_files
from cuda.bench.history.archive import ArchiveError, ingest, query


@pytest.mark.parametrize(
    ("option", "value", "shown", "char"),
    [
        ("--commit", "abc\x1b[31m", "abc\\x1b[31m", "\\x1b"),
        ("--commit", "abc\ndef", "abc\\ndef", "\\n"),
        ("--branch", "main\r", "main\\r", "\\r"),
        ("--branch", "ma\x7fin", "ma\\x7fin", "\\x7f"),
        ("--branch", "ma\x85in", "ma\\x85in", "\\x85"),
        ("--tag", "driver=580\u2028", "driver=580\\u2028", "\\u2028"),
        ("--tag", "dri\u202ever=580", "dri\\u202ever=580", "\\u202e"),
        ("--tag", "driver=5\u206680", "driver=5\\u206680", "\\u2066"),
        ("--tag", "driver=5\x0080", "driver=5\\x0080", "\\x00"),
    ],
)
def test_ingest_refuses_a_label_with_a_control_character(
    tmp_path: Path,
    gpu_dir: Path,
    capsys: pytest.CaptureFixture[str],
    option: str,
    value: str,
    shown: str,
    char: str,
) -> None:
    archive = tmp_path / "archive"
    head = ["ingest", "--archive", str(archive)]
    run = gpu_dir / "gpu_ref.json"
    assert run_history(capsys, *head, "--commit", "c0", "--order", "0", run)[0] == 0
    before = archive_files(archive)
    labels = {"--commit": "c1", option: value}
    argv = [*head, "--order", "1", *(part for item in labels.items() for part in item)]
    for runs in (
        (gpu_dir / "gpu_cmp.json",),
        (gpu_dir / "gpu_cmp.json", gpu_dir / "gpu_ref_nosidecar.json"),
    ):
        code, out, err = run_history(capsys, *argv, *runs)
        assert (code, out, len(err.splitlines())) == (2, "", 1), (code, out, err)
        assert err == (
            f"nvbench-history: error: {option} '{shown}': holds a control character ({char}), "
            "which the archive would keep for good; give the value without it; nothing "
            "written\n"
        )
        assert archive_files(archive) == before
    # The library refuses the same value, whichever way it is called.
    labels = {"commit": "c1", "branch": None, "tags": {}}
    key = option.removeprefix("--")
    if key == "tag":
        name, _, tag = value.partition("=")
        labels["tags"] = {name: tag}
    else:
        labels[key] = value
    # Named by its parameter there (the command line keeps its option's name).
    parameter = {"--commit": "commit", "--branch": "branch", "--tag": "tags"}[option]
    with pytest.raises(ArchiveError, match=f"^{parameter} '.*holds a control character"):
        ingest(archive, gpu_dir / "gpu_cmp.json", order=1, **labels)  # type: ignore[arg-type]
    assert archive_files(archive) == before


@pytest.mark.parametrize(
    ("option", "value", "shown"),
    [
        ("--commit", "c\udcff", "c\\udcff"),
        ("--branch", "b\udcff", "b\\udcff"),
        ("--tag", "k=\udcff", "k=\\udcff"),
    ],
)
def test_ingest_refuses_a_label_that_is_no_utf8(
    tmp_path: Path,
    gpu_dir: Path,
    capsys: pytest.CaptureFixture[str],
    option: str,
    value: str,
    shown: str,
) -> None:
    """A byte of the command line that is no UTF-8 (``--commit $'c\\xff'``; Python keeps
    it as a surrogate) stopped ingest with pyarrow's UnicodeEncodeError traceback, exit 1
    (a failed gate to CI). One line and exit 2 now, nothing written."""
    archive = tmp_path / "archive"
    labels = {"--commit": "c1", option: value}
    argv = ["ingest", "--archive", str(archive), *(p for item in labels.items() for p in item)]
    code, out, err = run_history(capsys, *argv, gpu_dir / "gpu_cmp.json")
    assert (code, out) == (2, ""), err
    assert err == (
        f"nvbench-history: error: {option} '{shown}': holds a byte that is no UTF-8 text, "
        "which the archive cannot store; give the value as UTF-8; nothing written\n"
    )
    assert "Traceback" not in err and not archive_files(archive)


def test_ingest_takes_labels_without_control_characters(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The commit is stored without the white space around it (a newline that ``$(cat
    file)`` or a here-string leaves): nothing of it is kept, so nothing is refused. Nor are
    letters of any script, spaces or an emoji with its variation selector and joiner."""
    archive = tmp_path / "archive"
    labels = ["--branch", "feat/naïve täg", "--tag", "note=\u2764\ufe0f\u200d\U0001f525 ok"]
    argv = ["ingest", "--archive", archive, "--commit", "\tc0\n", *labels]
    assert run_history(capsys, *argv, gpu_dir / "gpu_ref.json")[0] == 0
    # The map's keys and values as lists: DuckDB 1.0 gives a map to Python as its two lists.
    sql = "SELECT commit, branch, map_keys(tags), map_values(tags) FROM runs"
    stored = query(archive).execute(sql).fetchall()
    assert stored == [("c0", "feat/naïve täg", ["note"], ["\u2764\ufe0f\u200d\U0001f525 ok"])]


def test_ingest_refuses_a_tag_given_twice_with_two_values(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """'--tag driver=580 --tag driver=575' kept the last value for good and dropped the
    other without a word; the same value twice is one tag."""
    archive = tmp_path / "archive"
    head = ["ingest", "--archive", archive, "--commit", "c0"]
    twice = ["--tag", "driver=580", "--tag", "driver=575"]
    code, out, err = run_history(capsys, *head, *twice, gpu_dir / "gpu_ref.json")
    assert (code, out, len(err.splitlines())) == (2, "", 1), (code, out, err)
    assert "--tag driver" in err and "'580'" in err and "'575'" in err, err
    assert not archive.exists()
    same = ["--tag", "driver=580", "--tag", "driver=580"]
    assert run_history(capsys, *head, *same, gpu_dir / "gpu_ref.json")[0] == 0
    stored = query(archive).execute("SELECT map_keys(tags), map_values(tags) FROM runs").fetchall()
    assert stored == [(["driver"], ["580"])]


@pytest.mark.parametrize(
    ("commit", "shown"),
    [
        ("0123456789abcdef0123456789abcdef01234567", "0123456789ab"),
        ("0123456789ABCDEF", "0123456789AB"),
        ("fix perf regression", "fix perf regression"),
        ("v1.2.3-rc1", "v1.2.3-rc1"),
        ("20261130020000", "20261130020000"),
        ("0123456789012345678901234567890123456789", "0123456789012345678901234567890123456789"),
        ("nightly-build-" + "x" * 30 + "-1234", "nightly-build-xxxxx…xxxxxxxxxxxxxxx-1234"),
    ],
)
def test_a_commit_label_is_shortened_only_where_it_is_a_hash(commit: str, shown: str) -> None:
    # Every label was cut at 12 characters: "fix perf reg", and two labels sharing their
    # first 12 characters read as one commit in trend, the gate and the site.
    from cuda.bench.history._names import short_commit

    assert short_commit(commit) == shown


def test_trend_tells_two_labels_that_share_their_first_12_characters(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "archive"
    for order, (commit, run) in enumerate(
        [("nightly 2026-11-29", "gpu_ref.json"), ("nightly 2026-11-30", "gpu_cmp.json")]
    ):
        argv = ["ingest", "--archive", archive, "--commit", commit, "--order", order]
        assert run_history(capsys, *argv, gpu_dir / run)[0] == 0
    code, table, _ = run_history(capsys, "trend", "--archive", archive)
    assert code == 0 and "| nightly 2026-11-30 |" in table and "nightly 2026-1 " not in table
