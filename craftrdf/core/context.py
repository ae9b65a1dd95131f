"""The run context: what every step of one command shares, built once by the entry point and passed down.

The public API (``craftrdf._api``) and the CLI build one :class:`RunContext` per call or command
(:meth:`RunContext.create` is the only place that loads the registry for a run); library functions take
it as one argument instead of the registry, CURIE map, cache directory, executor and progress callback
one by one, and never load the registry themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .curie import CurieMap
from .registry import Registry, load_registry

#: Called as ``progress(done, total, what)`` while a long step runs (the view indexes, say).
ProgressCallback = Callable[[int, int, str], None]


@dataclass(frozen=True, slots=True)
class RunContext:
    """The registry, CURIE map, cache directory, executor and progress callback of one run.

    ``curies`` is one map for the whole run: its answers are pure functions of the argument (the
    :class:`~craftrdf.core.curie.CurieMap` contract), so sharing it changes no output. ``executor`` is a
    :mod:`craftrdf.runtime.executors` executor (or a :class:`concurrent.futures.Executor` where a step
    splits sentences), typed loosely because the core sits below the runtime layer; ``None`` runs in this
    process. Use :meth:`with_` for a changed copy.
    """

    registry: Registry
    curies: CurieMap = field(default_factory=CurieMap)
    cache_dir: Path | None = None
    executor: Any = None
    progress: ProgressCallback | None = None

    @classmethod
    def create(
        cls,
        *,
        cache_dir: Path | None = None,
        executor: Any = None,
        progress: ProgressCallback | None = None,
        registry: Registry | None = None,
    ) -> RunContext:
        """A context for one command: the installed registry (unless ``registry`` is given) and a new CURIE map."""
        return cls(registry or load_registry(), CurieMap(), cache_dir, executor, progress)

    def with_(self, **changes: Any) -> RunContext:
        """A copy with ``changes`` (field names as keywords), e.g. ``ctx.with_(executor=None)``."""
        return replace(self, **changes)
