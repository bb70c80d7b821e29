"""Command-line front ends: argument parsing, library calls, renderers, exit codes."""
