"""Usage and resource errors are one line and exit 2. A mistyped option is named in the
usage error, with the option it was probably meant to be: abbreviations are off, so the
words must be spelt out, and argparse alone named the required option a typo left missing
("required: --archive" for ``--archiv``) or nothing near the word it did not know."""

from __future__ import annotations

from pathlib import Path

import pytest
from _cli_helpers import assert_usage_error, run_main
from cuda.bench.cli import compare, history, json_summary


def test_a_required_option_mistyped_is_named_with_the_option_meant(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    result = run_main(history.main, capsys, "trend", "--archiv", tmp_path)
    assert_usage_error(
        result, "required: --archive", "--archiv is no option; did you mean --archive?"
    )


def test_an_unknown_option_after_a_subcommand_is_matched_against_its_options(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The top parser reports it, and knows none of ``gate``'s options itself."""
    args = ("gate", "--archive", tmp_path, "--jsn", tmp_path / "g.json", tmp_path / "r.json")
    result = run_main(history.main, capsys, *args)
    assert_usage_error(result, "unrecognized arguments: --jsn", "did you mean --json?")


def test_an_option_begun_but_not_finished_names_the_one_it_begins(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    result = run_main(compare.main, capsys, "--threshold", "3", tmp_path, tmp_path)
    assert_usage_error(result, "did you mean --threshold-diff?")


@pytest.mark.parametrize("word", ["--zzqq", "-x"])
def test_a_word_near_no_option_gets_no_guess(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, word: str
) -> None:
    result = run_main(json_summary.main, capsys, word, tmp_path)
    assert_usage_error(result, f"unrecognized arguments: {word}")
    assert "did you mean" not in result.err and "is no option" not in result.err


def test_words_after_a_double_dash_and_negative_numbers_are_no_options(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Only the required option is named: ``-- --archiv`` is a value, and so is ``-5``."""
    result = run_main(history.main, capsys, "trend", "-5", "--", "--archiv")
    assert_usage_error(result, "required: --archive")
    assert "no option" not in result.err


def test_a_control_character_in_the_mistyped_word_is_shown_inert(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    result = run_main(history.main, capsys, "trend", "--arch\x1b[2Jiv", tmp_path)
    assert "\x1b" not in result.err
    assert_usage_error(result, "required: --archive", "is no option")


def test_running_out_of_memory_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A crafted size under a memory limit (a 4 GiB sparse JSON file; a side file recorded
    with 2^31 values) ended in a MemoryError traceback and exit 1, which CI reads as a
    failed --fail-on check."""
    from cuda.bench.cli._common import run

    def main(argv: object) -> int:
        raise MemoryError

    assert run(main, [], "nvbench_compare") == 2
    err = capsys.readouterr().err
    assert err.startswith("nvbench_compare: error: out of memory") and err.count("\n") == 1


def test_a_short_option_with_its_value_attached_is_no_unknown_option(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``-bNAME`` is ``-b NAME`` to argparse: it was called "no option", and the scan then
    stopped there, so a typo after it got no suggestion."""
    result = run_main(history.main, capsys, "trend", "-breduce", "--archiv", tmp_path)
    assert_usage_error(result, "--archiv is no option; did you mean --archive?")
    assert "-breduce" not in result.err


def test_argparses_own_words_in_a_usage_error_are_shown_inert(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """argparse quotes the word it did not take: an escape sequence or a right-to-left
    override in it reached the terminal raw (the hint after it was escaped)."""
    for word in ("--fail-on\x1b[31m", "-\u202eb"):
        result = run_main(compare.main, capsys, word, "slow", tmp_path, tmp_path)
        assert result.code == 2
        assert "\x1b" not in result.err and "\u202e" not in result.err, result.err


def test_a_word_that_only_begins_with_dashes_is_shown_as_typed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--=x`` was named as the option ``--``."""
    result = run_main(history.main, capsys, "--=x")
    assert_usage_error(result, "(--=x is no option)")


def test_options_before_the_command_get_the_line_that_would_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``--archive A trend`` (global options first, as git takes them) was only "invalid
    choice: 'A'"; the line now shows the command first, with a typo among the moved options
    mended."""
    archive = tmp_path / "a b"
    result = run_main(history.main, capsys, "--archiv", archive, "trend", "-b", "x")
    moved = f"nvbench-history trend --archive '{archive}' -b x"
    assert_usage_error(
        result, "invalid choice", f"(the command comes first, then its options: {moved})"
    )
    result = run_main(history.main, capsys, "baseline", "--max-rsd", "5", "check")
    assert_usage_error(result, "nvbench-history baseline check --max-rsd 5)")
    # ``baseline check`` takes no --archive: that line would be refused in turn.
    result = run_main(history.main, capsys, "baseline", "--archive", archive, "check")
    assert_usage_error(result, "invalid choice")
    assert "comes first" not in result.err, result.err


@pytest.mark.parametrize(
    "words", [("trend2", "--archive", "A"), ("--archive", "A"), ("--archive", "A", "--", "trend")]
)
def test_an_invalid_command_with_no_command_later_gets_no_reordering(
    capsys: pytest.CaptureFixture[str], words: tuple[str, ...]
) -> None:
    result = run_main(history.main, capsys, *words)
    assert_usage_error(result, "invalid choice")
    assert "comes first" not in result.err


def test_options_before_a_command_that_holds_commands_go_after_all_of_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``--max-rsd 5 baseline check ...`` was told to run ``baseline --max-rsd 5 check``,
    which is refused in turn; and a control character in a moved word was quoted twice."""
    result = run_main(history.main, capsys, "--max-rsd", "5", "baseline", "check", "a.json")
    assert_usage_error(result, "nvbench-history baseline check --max-rsd 5 a.json)")
    result = run_main(history.main, capsys, "--archive", "a\x1bb", "trend")
    assert_usage_error(result, "nvbench-history trend --archive 'a\\x1bb')")


def test_an_option_with_its_value_before_the_command_gets_the_line_that_would_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--archive=A trend``: the outer parser keeps ``--archive=A`` and the command's parser
    says only that --archive is required; it now shows the line that would run (also two
    commands down, where the option is the command's)."""
    result = run_main(history.main, capsys, "--archive=A", "trend")
    assert_usage_error(
        result,
        "the following arguments are required: --archive",
        "(the command comes first, then its options: nvbench-history trend --archive=A)",
    )
    result = run_main(history.main, capsys, "--max-rsd=5", "baseline", "check")
    assert_usage_error(result, "nvbench-history baseline check --max-rsd=5)")


def test_an_option_the_command_does_not_have_is_not_moved_after_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``baseline check`` takes no --archive, and no command takes --bogus: moving them after
    the command gave a line that is refused in turn."""
    result = run_main(history.main, capsys, "--archive=A", "baseline", "check")
    assert_usage_error(result, "required: RUN.json (--archive is no option)")
    for words in (("--bogus", "A", "trend"), ("--archive=A", "baseline", "check", "r.json")):
        result = run_main(history.main, capsys, *words)
        assert result.code == 2, result.err
        assert "comes first" not in result.err, result.err


def test_an_option_of_every_command_before_no_command_is_not_called_no_option(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``nvbench-history --archive=A`` was told "--archive is no option" (the re-trial):
    with no command named, every command's options are options."""
    result = run_main(history.main, capsys, "--archive=A")
    assert_usage_error(result, "required: COMMAND")
    assert "no option" not in result.err, result.err
    result = run_main(history.main, capsys, "--bogus")
    assert_usage_error(result, "(--bogus is no option)")
