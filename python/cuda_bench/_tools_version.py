"""nvbench-tools' version, in a module NVIDIA's cuda-bench does not ship.

``cuda/bench/__init__.py`` is a file both distributions write (docs/coinstall.md); the
package's own code reads its version from here so that it is ours whichever file is there.
"""

__version__ = "0.1.0"
