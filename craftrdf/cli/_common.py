"""Pieces every command group shares: logging through tqdm, progress bars, --param parsing."""

from __future__ import annotations

import logging
import sys
import warnings
from collections.abc import Callable, Sequence

from ..errors import ConfigError

class _TqdmHandler(logging.Handler):
    """Log lines written through tqdm so they do not tear the progress bar."""

    def emit(self, record: logging.LogRecord) -> None:
        from tqdm import tqdm

        tqdm.write(self.format(record), file=sys.stderr)


def setup_logging(verbose: int) -> None:
    """Route log records and warnings to stderr through tqdm; -v INFO, -vv DEBUG."""
    handler = _TqdmHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if verbose > 1 else logging.INFO if verbose else logging.WARNING)
    # a data warning is one line naming the file and the place, not Python's source excerpt
    warnings.simplefilter("default")
    warnings.showwarning = lambda message, category, *_args, **_kw: logging.getLogger("craftrdf").warning(
        "%s", message)


def progress_bar(disable: bool) -> Callable[[int, int, str], None]:
    """A build-progress callback drawing a tqdm bar on stderr (nothing when ``disable``)."""
    from tqdm import tqdm

    bar = None

    def update(done: int, total: int, label: str) -> None:
        nonlocal bar
        if bar is None:
            bar = tqdm(total=total, unit="batch", disable=disable, dynamic_ncols=True, file=sys.stderr)
        bar.set_description(label[:40])
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    return update


def parse_params(values: Sequence[str]) -> dict[str, str]:
    """``NAME=VALUE`` options as a mapping; ConfigError for anything else."""
    out = {}
    for v in values:
        name, sep, value = v.partition("=")
        if not sep or not name:
            raise ConfigError(f"--param expects NAME=VALUE, got {v!r}")
        out[name.lstrip("?$")] = value
    return out


