"""Pieces every command group shares: logging through tqdm, progress bars, --param parsing,
the store options (``--store DIR | --endpoint URL``) and opening the store they name."""

from __future__ import annotations

import argparse
import logging
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Literal, TextIO

from ...core.errors import ConfigError

if TYPE_CHECKING:
    from ...store.local import AnnotationStore
    from ...store.remote import RemoteStore


class _TqdmHandler(logging.Handler):
    """Log lines written through tqdm so they do not tear the progress bar."""

    def emit(self, record: logging.LogRecord) -> None:
        from tqdm import tqdm

        tqdm.write(self.format(record), file=sys.stderr)


#: The logger of the start and end lines that stand for a progress bar off a terminal.
PROGRESS_LOGGER = "craftrdf.progress"


def setup_logging(verbose: int) -> None:
    """Route log records and warnings to stderr through tqdm; -v INFO, -vv DEBUG.

    The stage lines of :func:`progress_bar` (logger :data:`PROGRESS_LOGGER`) are shown without
    -v: off a terminal they are the progress bar (-q turns them off, as it does the bars).
    """
    handler = _TqdmHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if verbose > 1 else logging.INFO if verbose else logging.WARNING)
    logging.getLogger(PROGRESS_LOGGER).setLevel(logging.DEBUG if verbose > 1 else logging.INFO)
    # a data warning is one line naming the file and the place, not Python's source excerpt
    warnings.simplefilter("default")
    warnings.showwarning = lambda message, category, *_args, **_kw: logging.getLogger("craftrdf").warning("%s", message)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or file-like stream without a terminal
        return False


def progress_bar(
    disable: bool,
    *,
    name: str = "",
    unit: str = "batch",
    stream: TextIO | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Callable[[int, int, str], None]:
    """A progress callback ``(done, total, label)`` for one stage, for stderr (or ``stream``).

    When that stream is a terminal, a tqdm bar drawn on it. Elsewhere (a log file, a pipe,
    CI) an INFO record of :data:`PROGRESS_LOGGER` when the stage starts and one when it ends,
    instead of a carriage-return update per step: ``name`` (default: the first label) and
    ``unit`` word them. Nothing at all when ``disable``.
    """
    out = stream if stream is not None else sys.stderr
    if disable:
        return lambda done, total, label: None
    if not _is_terminal(out):
        return _stage_lines(name, unit, clock)
    from tqdm import tqdm

    bar = None

    def update(done: int, total: int, label: str) -> None:
        nonlocal bar
        if bar is None:
            bar = tqdm(total=total, initial=done, unit=unit, dynamic_ncols=True, file=out)
        bar.set_description(label[:40])
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    return update


def _count(n: int, unit: str) -> str:
    if n == 1:
        return f"1 {unit}"
    return f"{n:,} {unit}{'es' if unit.endswith(('s', 'x', 'ch', 'sh')) else 's'}"


def _stage_lines(name: str, unit: str, clock: Callable[[], float]) -> Callable[[int, int, str], None]:
    """The progress callback for a stream that is not a terminal: a start record and an end record."""
    log = logging.getLogger(PROGRESS_LOGGER)
    started: float | None = None
    finished = False
    stage = name

    def update(done: int, total: int, label: str) -> None:
        nonlocal started, finished, stage
        if started is None:
            started = clock()
            stage = stage or label
            already = f" ({done:,} already done)" if 0 < done < total else ""
            log.info("%s: started, %s%s", stage, _count(total, unit), already)
        if done >= total and not finished:
            finished = True
            log.info("%s: finished, %s in %.1f s", stage, _count(total, unit), clock() - started)

    return update


def index_progress(args: argparse.Namespace) -> Callable[[int, int, str], None]:
    """The progress callback of the view indexes a writing command makes at its end (``-q`` silences it)."""
    return progress_bar(args.quiet, name="view indexes", unit="index")


def parse_params(values: Sequence[str]) -> dict[str, str]:
    """``NAME=VALUE`` options as a mapping; ConfigError for anything else."""
    out = {}
    for v in values:
        name, sep, value = v.partition("=")
        if not sep or not name:
            raise ConfigError(f"--param expects NAME=VALUE, got {v!r}")
        out[name.lstrip("?$")] = value
    return out


def worker_count(option: str, value: int | None, default: int) -> int:
    """``value`` of a process-count option, or ``default`` when not given; ConfigError below 1."""
    if value is None:
        return default
    if value < 1:
        raise ConfigError(f"{option} needs a positive number, got {value}")
    return value


def add_store_options(
    parser: argparse.ArgumentParser, *, write: bool = False, create: bool = False, required: bool = True
) -> None:
    """Add ``--store DIR | --endpoint URL`` (one of them), ``--graph-store URL`` and ``--timeout S``.

    ``write``: the command writes (the help says so, and ``--graph-store`` is offered for
    remote writes); ``create``: it makes the store when the directory has none (build, load).
    Read commands get ``--graph-store`` too, for the indexes a view makes on a remote store
    whose indexes are stale. Pair with :func:`open_store`.
    """
    group = parser.add_mutually_exclusive_group(required=required)
    group.add_argument("--store", metavar="DIR", help="store directory" + (" (created if absent)" if create else ""))
    group.add_argument(
        "--endpoint",
        metavar="URL",
        help="a remote store's SPARQL 1.1 query endpoint instead of --store, "
        "e.g. http://127.0.0.1:7878/query (docs/remote.md)",
    )
    parser.add_argument(
        "--graph-store",
        metavar="URL",
        help="with --endpoint: its SPARQL 1.1 Graph Store Protocol URL, for writing "
        "(default for an Oxigraph server's .../query: .../store"
        + ("" if write else "; without it the remote store is read-only")
        + ")",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="with --endpoint: seconds to wait for each request (default 60)",
    )


@contextmanager
def open_store(
    args: argparse.Namespace, *, mode: Literal["read", "write"] = "read", create: bool = False
) -> Iterator[AnnotationStore | RemoteStore]:
    """The store the options of :func:`add_store_options` name, opened for ``mode``, closed afterwards.

    ``--store``: an :class:`~craftrdf.store.local.AnnotationStore` (``mode`` and ``create`` as in
    ``AnnotationStore.open``: only a command that makes stores passes ``create``, so a
    mistyped path is one error and nothing is created). ``--endpoint``: a
    :class:`~craftrdf.store.remote.RemoteStore`; in
    ``write`` mode it needs a Graph Store URL (``--graph-store``, or the one beside an Oxigraph
    ``/query`` endpoint), ConfigError otherwise; in ``read`` mode it writes only through an
    explicit ``--graph-store``.
    """
    endpoint = getattr(args, "endpoint", None)
    if endpoint:
        from ...store.remote import RemoteStore, default_graph_store

        graph_store = getattr(args, "graph_store", None)
        if mode == "write" and graph_store is None:
            graph_store = default_graph_store(endpoint)
            if graph_store is None:
                raise ConfigError(f"writing to {endpoint} needs its Graph Store Protocol URL: give --graph-store URL")
        timeout = getattr(args, "timeout", 60.0)
        if not timeout > 0:
            raise ConfigError(f"--timeout needs a positive number of seconds, got {timeout:g}")
        with RemoteStore(endpoint, graph_store=graph_store, timeout=timeout) as remote:
            yield remote
        return
    if getattr(args, "graph_store", None):
        raise ConfigError("--graph-store goes with --endpoint, not --store")
    from ...store.local import AnnotationStore

    with AnnotationStore.open(args.store, mode=mode, create=create) as store:
        yield store


def store_name(args: argparse.Namespace) -> str:
    """The store the options name, for messages: its directory or its endpoint URL."""
    return str(getattr(args, "endpoint", None) or args.store)
