"""The ``craftrdf`` command run as a user runs it: a child process, quiet, its output captured."""

from __future__ import annotations

import subprocess
import sys


def craftrdf(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``craftrdf -q ARGS...`` in a child process (``python -m craftrdf``); never raises on exit status."""
    return subprocess.run(
        [sys.executable, "-m", "craftrdf", "-q", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )
