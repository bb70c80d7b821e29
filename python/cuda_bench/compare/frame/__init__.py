"""Former name of :mod:`cuda.bench.compare.records` (the report schema), which earlier
documentation named for ``comparison_frame``; kept so that imports of it keep working."""

from ..records import *  # noqa: F403 (every name the records module exports)
from ..records import __all__ as __all__
