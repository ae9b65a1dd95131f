"""What is read from a store's ontology graphs, cached per store and dropped when its batches change."""

from __future__ import annotations

import threading
import weakref

from ..store.local import ReadableStore


class SimilarityCache:
    """Models, term graphs and indexes per store, weakly keyed by the store object.

    A store's entries are dropped when its batches change (their digests are the
    fingerprint), so a cache never serves a graph the store no longer holds. The ontology
    model (:mod:`craftrdf.ontology.store_model`), similarity's graphs and indexes and the
    official scorer's graphs all keep their entries here.
    """

    def __init__(self) -> None:
        self._stores: weakref.WeakKeyDictionary[
            ReadableStore, tuple[frozenset[tuple[str, str]], dict[object, object]]
        ] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def entries(self, store: ReadableStore) -> dict[object, object]:
        """The cache dictionary of ``store``, emptied first if its batches changed."""
        fingerprint = frozenset((b.graph, b.digest) for b in store.batches().values())
        with self._lock:
            held = self._stores.get(store)
            if held is None or held[0] != fingerprint:
                held = (fingerprint, {})
                self._stores[store] = held
            return held[1]

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._stores.clear()


#: The cache used when none is passed.
DEFAULT_CACHE = SimilarityCache()
