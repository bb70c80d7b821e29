"""``--fail-on`` and ``--gate`` for an N-way comparison: which candidates set the exit status.

Each candidate's pairwise comparison is judged by the pairwise policy
(:func:`~.exit_policy.evaluate`), so a condition means the same rows whether a candidate is
compared alone or beside others. By default every candidate gates; ``gate`` names the ones
that do (the others are still judged and reported, they just cannot fail the run)::

    from cuda.bench.compare.many_gate import evaluate_many

    outcome = evaluate_many(many, "slow", gate=["new_kernel"])
    outcome.exit_status          # 1 when new_kernel has a SLOW state
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec

from .errors import ConfigError
from .exit_policy import EXIT_FAILED, EXIT_OK, FailOn, PolicyOutcome, evaluate, normalize_conditions
from .many import MultiComparison

__all__ = ["CandidateOutcome", "ManyOutcome", "evaluate_many", "parse_gate"]


class CandidateOutcome(msgspec.Struct, frozen=True):
    """The policy's verdict on one candidate, and whether that candidate gates."""

    name: str
    gates: bool
    outcome: PolicyOutcome

    @property
    def failed(self) -> bool:
        """A condition holds for this candidate (whether or not it gates)."""
        return self.outcome.failed


class ManyOutcome(msgspec.Struct, frozen=True):
    """The verdicts on every candidate, in candidate order."""

    conditions: tuple[FailOn, ...]
    candidates: tuple[CandidateOutcome, ...]

    @property
    def gate(self) -> tuple[str, ...]:
        """The candidates that set the exit status."""
        return tuple(item.name for item in self.candidates if item.gates)

    @property
    def failing(self) -> tuple[CandidateOutcome, ...]:
        """Gating candidates for which some condition holds."""
        return tuple(item for item in self.candidates if item.gates and item.failed)

    @property
    def failed(self) -> bool:
        return bool(self.failing)

    @property
    def exit_status(self) -> int:
        """``1`` when a condition holds for a gating candidate, else ``0``."""
        return EXIT_FAILED if self.failing else EXIT_OK


def parse_gate(text: str | Iterable[str], names: Sequence[str]) -> tuple[str, ...]:
    """Candidate names from ``"a,b"`` (or several such strings), checked against ``names``.

    Repeats are dropped, order kept. An empty or unknown name raises
    :class:`~.errors.ConfigError` listing the candidates.
    """
    items = [text] if isinstance(text, str) else list(text)
    chosen: dict[str, None] = {}
    for item in items:
        for part in item.split(","):
            name = part.strip()
            if name not in names:
                shown = repr(name) if name else "an empty name"
                raise ConfigError(
                    f"--gate: unknown candidate {shown}; the candidates are {', '.join(names)}"
                )
            chosen[name] = None
    return tuple(chosen)


def evaluate_many(
    many: MultiComparison,
    conditions: str | Iterable[FailOn | str],
    *,
    gate: str | Iterable[str] | None = None,
) -> ManyOutcome:
    """Judge every candidate with the pairwise policy; ``gate`` (default: all) names the
    candidates whose failures set :attr:`ManyOutcome.exit_status`."""
    chosen = normalize_conditions(conditions)
    gating = set(many.names if gate is None else parse_gate(gate, many.names))
    return ManyOutcome(
        chosen,
        tuple(
            CandidateOutcome(
                candidate.name,
                candidate.name in gating,
                evaluate(candidate.comparison, chosen),
            )
            for candidate in many.candidates
        ),
    )
