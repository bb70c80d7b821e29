"""nvbench-tools: read, compare and summarize NVBench results."""

__version__ = "0.1.0"
