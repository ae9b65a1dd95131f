"""A similarity index kept on disk, keyed by the digests of the graphs it was built from.

Building a :class:`~craftrdf.analysis.similarity.wang.WangIndex` from a store means reading its
ontology graphs (13 s for every ontology of the full CRAFT store merged); a command that
computes one pair would spend all its time there. :func:`load_index` and :func:`save_index`
keep the built index in ``$XDG_CACHE_HOME/craftrdf/similarity`` under a key that hashes
what the index depends on: the digests of every ontology, mapping and inferred-placement
batch of the store (:func:`graph_fingerprint`: the graphs the similarity query reads; an
ontology's relations graph is written and replaced with its batch), the ontology named,
the relation weights, ``classify_extensions`` and the engine. A store whose ontologies
changed has another key, so a stale index is never read; loading annotation sets does not
touch it. The file holds its key too, and one that does not match, or does not read, is
rebuilt (with a logged warning), never trusted.

The entries are pickles: the cache is the user's own directory, as numba's compiled
kernels beside it are.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pickle
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from ...core.vocab import BASE
from ...store.local import ReadableStore
from .ic import ICIndex
from .wang import WangIndex

logger = logging.getLogger(__name__)

#: Bumped when the pickled index's layout changes: older entries are then ignored.
CACHE_VERSION = "1"

#: Batches whose graphs the similarity graph query reads.
_GRAPH_PREFIXES = tuple(BASE + kind + "/" for kind in ("ontology", "mappings", "inferred"))


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/craftrdf/similarity`` (``~/.cache/craftrdf/similarity``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "craftrdf" / "similarity"


def graph_fingerprint(store: ReadableStore) -> list[tuple[str, str]]:
    """``(graph, digest)`` of every ontology, mapping and inferred-placement batch of the store, sorted."""
    return sorted((b.graph, b.digest) for b in store.batches().values() if b.graph.startswith(_GRAPH_PREFIXES))


def index_key(
    store: ReadableStore,
    *,
    ontology: str | None,
    weights: Mapping[str, float],
    classify_extensions: bool,
    engine: str,
) -> str:
    """The hex digest that names an index of ``store`` built with these options."""
    what = {
        "version": CACHE_VERSION,
        "graphs": graph_fingerprint(store),
        "ontology": ontology,
        "weights": sorted(weights.items()),
        "classify_extensions": classify_extensions,
        "engine": engine,
    }
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode("utf-8")).hexdigest()


def ic_key(store: ReadableStore, *, index: str, source: Mapping[str, object], graphs: Iterable[str]) -> str | None:
    """The hex digest that names an IC index: the key of its Wang index (``index``), the IC's ``source``
    (intrinsic, or a set and splits) and the digests of the batches whose ``graphs`` the IC reads (the
    set's, the documents'). None when one of those graphs is no batch: no digest says it is unchanged."""
    batches = store.batches()
    digests = []
    for graph in sorted(set(graphs)):
        batch = batches.get(graph)
        if batch is None:
            return None
        digests.append((graph, batch.digest))
    what = {"version": CACHE_VERSION, "index": index, "source": dict(source), "graphs": digests}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode("utf-8")).hexdigest()


def _path(cache_dir: Path, key: str, kind: str = "wang") -> Path:
    return cache_dir / f"{kind}-{key}.pickle"


def _load(path: Path, key: str) -> object | None:
    """What was saved at ``path`` under ``key``, or None (absent, unreadable, or another key inside)."""
    try:
        with open(path, "rb") as fh:
            data = pickle.load(fh)  # the user's own cache directory (module docstring)
    except FileNotFoundError:
        return None
    except Exception as exc:  # a damaged entry is rebuilt, never trusted
        logger.warning("ignoring unreadable similarity index %s: %s", path, exc)
        return None
    if not (isinstance(data, dict) and data.get("key") == key):
        logger.warning("ignoring similarity index %s: not the index of its key", path)
        return None
    logger.info("similarity index from %s", path)
    return data.get("index")


def load_index(cache_dir: Path, key: str) -> WangIndex | None:
    """The index saved under ``key``, or None (absent, unreadable, or another key inside)."""
    index = _load(_path(cache_dir, key), key)
    return index if isinstance(index, WangIndex) else None


def load_ic(cache_dir: Path, key: str, ancestry: WangIndex) -> ICIndex | None:
    """The IC index saved under ``key`` (:func:`ic_key`) over ``ancestry``, or None."""
    state = _load(_path(cache_dir, key, "ic"), key)
    return ICIndex.over(ancestry, state) if isinstance(state, dict) else None


def save_index(cache_dir: Path, key: str, index: WangIndex | ICIndex) -> None:
    """Write ``index`` under ``key``, atomically (readers never see half a file); a failure is only logged.

    An :class:`ICIndex` is saved without its Wang index, which is kept under its own key.
    """
    kind, payload = ("ic", index.detached()) if isinstance(index, ICIndex) else ("wang", index)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache_dir, prefix=".tmp-", suffix=".pickle")
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump({"key": key, "index": payload}, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, _path(cache_dir, key, kind))
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        logger.warning("could not save the similarity index in %s: %s", cache_dir, exc)
