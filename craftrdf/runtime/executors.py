"""Where a sweep's tasks run: this process, a local process pool, or a Dask cluster.

An executor is any object with ``share``, ``submit`` and ``as_completed``
(:class:`SweepExecutor`); the work is passed the executor, never looks one up.
``share`` ships a picklable payload (with a ``token`` naming it) to the workers once:
:class:`InlineExecutor` hands it over as it is, :class:`LocalPool` installs it in each
worker process at its start (tasks then receive the token and call :func:`installed`),
:class:`DaskExecutor` scatters it to every worker (tasks receive it as a future that Dask
resolves to the payload).
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import as_completed as _futures_completed
from typing import Any, Protocol


class Shared(Protocol):
    """A payload shared with the workers once: picklable, named by ``token``."""

    @property
    def token(self) -> str: ...


# The payload a LocalPool installed in this worker process, by token. A pool's worker lives
# for the whole sweep and receives the payload once, through the pool's initializer, so it
# must be kept at module level in the worker; only the newest one is kept.
_INSTALLED: dict[str, Any] = {}


def install(payload: Shared) -> None:
    """(In a pool worker, at its start) keep ``payload`` for the tasks that name its token."""
    _INSTALLED.clear()
    _INSTALLED[payload.token] = payload


def install_pickled(blob: bytes) -> None:
    """:func:`install` of a payload the parent pickled once for all its workers."""
    install(pickle.loads(blob))


def installed(token: str) -> Any:
    """The payload :func:`install` kept under ``token`` in this process; KeyError if none."""
    return _INSTALLED[token]


class SweepExecutor(Protocol):
    """What :func:`run_sweep` needs of an executor."""

    def share(self, inputs: Shared) -> object:
        """Make ``inputs`` available to the workers once; returns what tasks receive in its place."""
        ...

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Any:
        """Start ``fn(*args)``; returns a future (``result()``)."""
        ...

    def as_completed(self, futures: Sequence[Any]) -> Iterable[Any]:
        """The futures, as they finish."""
        ...


class _Deferred:
    """A task of :class:`InlineExecutor`: run when its turn comes in ``as_completed``."""

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self._call = (fn, args)
        self._future: Future[Any] = Future()

    def run(self) -> None:
        fn, args = self._call
        try:
            self._future.set_result(fn(*args))
        except Exception as exc:  # a future carries the error to result(), as a pool's does
            self._future.set_exception(exc)

    def result(self) -> Any:
        """The task's value (or its exception, raised)."""
        return self._future.result(timeout=0)


class InlineExecutor:
    """Runs every task in this process, one at a time as results are asked for (tests, the sample).

    Tasks run inside :meth:`as_completed`, so each group's rows are written before the next
    group starts: an interrupt loses only the group in flight, as with a pool.
    """

    def share(self, inputs: Shared) -> object:
        """The inputs themselves."""
        return inputs

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Any:
        """A task to run when :meth:`as_completed` reaches it."""
        return _Deferred(fn, args)

    def as_completed(self, futures: Sequence[Any]) -> Iterable[Any]:
        """Run the tasks in order, yielding each once it has finished."""
        for f in futures:
            f.run()
            yield f


class LocalPool:
    """A process pool over this machine's cores; the inputs go to each worker once, at its start.

    Workers start with the ``forkserver`` method (they must not inherit an open store).
    Use as a context manager, or call :meth:`close`.
    """

    def __init__(
        self, workers: int | None = None, *, preload: Sequence[str] = ("craftrdf.matching.sweeps.run",)
    ) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.preload = tuple(preload)
        self._pool: ProcessPoolExecutor | None = None
        self._token: str | None = None

    def share(self, inputs: Shared) -> object:
        """Start the pool with ``inputs`` installed in every worker; tasks receive the token."""
        if self._pool is None or self._token != inputs.token:
            import multiprocessing

            self.close()
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(list(self.preload))
            # pickled here once: a pool pickles its initargs again for every worker it starts (seconds of
            # this process's time for the training's dictionaries), bytes cost a copy
            blob = pickle.dumps(inputs, protocol=pickle.HIGHEST_PROTOCOL)
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=context, initializer=install_pickled, initargs=(blob,)
            )
            self._token = inputs.token
        return inputs.token

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Future[Any]:
        """Submit to the pool (after :meth:`share`)."""
        if self._pool is None:
            raise RuntimeError("LocalPool.share must be called before submit")
        return self._pool.submit(fn, *args)

    def as_completed(self, futures: Sequence[Any]) -> Iterable[Any]:
        """concurrent.futures.as_completed."""
        return _futures_completed(futures)

    def close(self) -> None:
        """Stop the workers, cancelling tasks not started."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> LocalPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class DaskExecutor:
    """A Dask ``distributed.Client``: the inputs are scattered to every worker once (broadcast)."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def share(self, inputs: Shared) -> object:
        """``client.scatter(inputs, broadcast=True)``: a future tasks receive as the inputs themselves."""
        return self.client.scatter(inputs, broadcast=True, hash=False)

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Any:
        """``client.submit(fn, *args, pure=False)``."""
        return self.client.submit(fn, *args, pure=False)

    def as_completed(self, futures: Sequence[Any]) -> Iterable[Any]:
        """``distributed.as_completed``."""
        from distributed import as_completed

        return as_completed(futures)
