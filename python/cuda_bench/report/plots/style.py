"""What every plot shares: matplotlib on demand, the style, status colours, time ticks."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, Literal

from ..._deps import require
from ...compare.model import Status
from ..format import DurationUnit, duration_unit

if TYPE_CHECKING:
    import contextlib

    from matplotlib.axis import Axis
    from matplotlib.figure import Figure
    from matplotlib.ticker import Formatter

__all__ = [
    "STATUS_PLOT_COLORS",
    "FigureFactory",
    "band_alpha",
    "below_legend",
    "decades",
    "duration_formatter",
    "duration_tick",
    "faint_color",
    "figure_factory",
    "foreground_color",
    "log_minor_formatter",
    "log_time_ticks",
    "plot_style",
    "require_matplotlib",
    "series_colors",
]

#: Plot colour per status: the terminal's colours (``colors.STATUS_ANSI``) in matplotlib's
#: "tab" palette, which reads on white and on black backgrounds alike.
STATUS_PLOT_COLORS: Final[Mapping[Status, str]] = MappingProxyType(
    {
        Status.SAME: "#1f77b4",  # blue
        Status.FAST: "#2ca02c",  # green
        Status.SLOW: "#d62728",  # red
        Status.AMBG: "#8c8c8c",  # grey
        Status.UNKNOWN: "#bcbd22",  # olive (the terminal's yellow is unreadable on white)
        Status.ADDED: "#17becf",  # cyan
        Status.REMOVED: "#9467bd",  # purple
    }
)

#: Makes an empty figure: ``matplotlib.figure.Figure`` (the default, no pyplot involved) or
#: ``matplotlib.pyplot.figure`` when the figures are to be shown in windows.
FigureFactory = Callable[..., "Figure"]

_PURPOSE = "plots"


def require_matplotlib() -> None:
    """matplotlib, or :class:`MissingDependencyError` with the install hint. Every public
    function that draws or saves calls this first; after it, plain (typed) imports work."""
    require("matplotlib", extra="plot", purpose=_PURPOSE)


def plot_style(dark: bool) -> contextlib.AbstractContextManager[None]:
    """matplotlib's default style (so a user's matplotlibrc cannot make images differ),
    with a black background for ``dark``, and no text parsed as mathtext. rcParams are
    read when artists are created, so drawing a whole figure inside this context fixes its
    look for good."""
    from matplotlib import style

    # Names from result files are text: "$...$" in one must not be typeset as mathtext
    # (which hides its characters), so no text in our plots is parsed as math.
    plain = {"text.parse_math": False}
    context: contextlib.AbstractContextManager[None] = style.context(
        ["default", "dark_background", plain] if dark else ["default", plain]
    )
    return context


def foreground_color(dark: bool) -> str:
    return "white" if dark else "black"


def faint_color(dark: bool) -> str:
    return "#5a5a5a" if dark else "#c8c8c8"


def band_alpha(dark: bool) -> float:
    """Shaded bands need more opacity to show on black than on white."""
    return 0.28 if dark else 0.10


def duration_tick(seconds: float, unit: DurationUnit | None = None, decimals: int = 3) -> str:
    """``2.5 us``; with ``unit`` None the unit follows the value (for log axes)."""
    if not (math.isfinite(seconds) and seconds > 0) and unit is None:
        return ""
    if unit is None:
        chosen = duration_unit(seconds, 2)
        return f"{chosen.convert(seconds):.3g} {chosen.symbol}"
    return f"{unit.convert(seconds):.{decimals}f} {unit.symbol}"


def _fixed_decimals(values: Sequence[float]) -> int:
    """The fewest decimals (up to 6) that write every tick value exactly."""
    for decimals in range(7):
        scale = 10.0**decimals
        if all(abs(v * scale - round(v * scale)) < 1e-6 * max(1.0, abs(v * scale)) for v in values):
            return decimals
    return 6


def duration_formatter(log: bool) -> Formatter:
    """Tick labels for seconds: per-tick units on log axes (``100 ns``, ``1 us``), one shared
    unit with just enough decimals on linear axes (``5.02 us``, ``5.04 us``)."""
    from matplotlib.ticker import Formatter

    class DurationFormatter(Formatter):
        def __call__(self, x: float, pos: int | None = None) -> str:
            if log:
                return duration_tick(x)
            return self.format_ticks([x])[0]

        def format_ticks(self, values: Sequence[float]) -> list[str]:
            if log:
                return [duration_tick(v) for v in values]
            finite = [float(v) for v in values if math.isfinite(v)]
            largest = max((abs(v) for v in finite), default=0.0)
            unit = duration_unit(largest, 2) if largest > 0 else DurationUnit.S
            shown = unit.convert(largest)
            if shown >= 1e6 or 0 < shown < 1e-3:
                # Past a million seconds or below a picosecond (a corrupt side file): fixed
                # decimals would write 39 digits, or 0.000000 for every tick.
                return [f"{unit.convert(v):.3g} {unit.symbol}" for v in values]
            decimals = _fixed_decimals([unit.convert(v) for v in finite])
            return [duration_tick(v, unit, decimals) for v in values]

    formatter: Formatter = DurationFormatter()
    return formatter


def log_minor_formatter(span_decades: float, labeller: Callable[[float], str]) -> Formatter:
    """Minor tick labels of a log axis: all of them within one decade (where there may be no
    major tick at all), 2 and 5 up to three decades, none beyond (they would collide)."""
    from matplotlib.ticker import FuncFormatter

    if span_decades < 1.0:
        wanted: tuple[int, ...] = (2, 3, 4, 5, 6, 7, 8, 9)
    elif span_decades <= 3.0:
        wanted = (2, 5)
    else:
        wanted = ()

    def label(x: float, pos: int | None = None) -> str:
        if not (x > 0 and math.isfinite(x)) or not wanted:
            return ""
        mantissa = x / 10.0 ** math.floor(math.log10(x) + 1e-9)
        return (
            labeller(x)
            if round(mantissa) in wanted and abs(mantissa - round(mantissa)) < 1e-6
            else ""
        )

    return FuncFormatter(label)


def decades(values: Iterable[float]) -> float:
    """How many decades the positive, finite ``values`` span (0 without any)."""
    positive = [v for v in values if v > 0 and math.isfinite(v)]
    if not positive:
        return 0.0
    return math.log10(max(positive) / min(positive))


def series_colors(count: int) -> list[Any]:
    """``count`` colours told apart: tab10, tab20, beyond that samples of turbo."""
    from matplotlib import colormaps

    if count <= 10:
        return [colormaps["tab10"](i) for i in range(count)]
    if count <= 20:
        return [colormaps["tab20"](i) for i in range(count)]
    cmap = colormaps["turbo"]
    return [cmap(i / max(count - 1, 1)) for i in range(count)]


def figure_factory(figure: FigureFactory | None) -> FigureFactory:
    """``figure``, or ``matplotlib.figure.Figure`` (no pyplot, no window) by default."""
    if figure is not None:
        return figure
    from matplotlib.figure import Figure

    return Figure


def log_time_ticks(axis: Axis, values: Iterable[float]) -> None:
    """Ticks and their labels on a log time axis (seconds) showing ``values``.

    Over a decade or more the log locator's decades carry the labels (``100 ns``, ``1 us``)
    and its minor ticks are labelled where they fit (:func:`log_minor_formatter`). Less than
    a decade may hold no decade and no more than one minor tick (3.1 to 3.3 us holds
    neither), which would leave the axis without a number: then the ticks are round values
    spaced as on a linear axis (over less than a decade a log axis is nearly linear),
    written with one shared unit.
    """
    from matplotlib.ticker import MaxNLocator, NullFormatter

    span = decades(values)
    if span >= 1.0:
        axis.set_major_formatter(duration_formatter(log=True))
        axis.set_minor_formatter(log_minor_formatter(span, duration_tick))
        return
    axis.set_major_locator(MaxNLocator(nbins=4, steps=[1, 2, 2.5, 5, 10]))
    axis.set_major_formatter(duration_formatter(log=False))
    axis.set_minor_formatter(NullFormatter())


def below_legend() -> Literal["outside lower center", "lower center"]:
    """The ``loc`` of a figure legend under the axes: ``outside lower center``, which
    constrained layout makes room for, from matplotlib 3.7 on (before, ``lower center``
    inside the figure)."""
    import matplotlib

    version = str(matplotlib.__version__).split(".")
    try:
        outside = (int(version[0]), int(version[1])) >= (3, 7)
    except (IndexError, ValueError):
        outside = True
    return "outside lower center" if outside else "lower center"
