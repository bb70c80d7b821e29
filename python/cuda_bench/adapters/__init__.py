"""Adapters that turn timings from other tools into NVBench results."""
