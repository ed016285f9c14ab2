"""mcpr for Python: the ``mcpr`` command, and the way to find it from Python code.

The wheel carries the ``mcpr`` binary as a script, so installing it puts ``mcpr`` on PATH.
``find_mcpr_bin()`` returns that binary's path for code that wants to run it.
"""

from ._find import find_mcpr_bin

__all__ = ["find_mcpr_bin"]
