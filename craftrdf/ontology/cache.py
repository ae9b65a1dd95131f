"""What is read from a store's ontology graphs, cached per store and dropped when its batches change."""

from __future__ import annotations

import threading
import weakref
from typing import Final

from ..store.local import DerivedCache, ReadableStore


class SimilarityCache:
    """Models, term graphs and indexes per store, dropped when the store's batches change.

    The ontology model (:mod:`craftrdf.ontology.store_model`), similarity's graphs and indexes and
    the official scorer's graphs keep their entries in one. :data:`DEFAULT_CACHE` keeps them on the
    store objects themselves (each store's ``derived``, :class:`~craftrdf.store.local.DerivedCache`),
    so they go with the store and no module holds any; a ``SimilarityCache()`` of one's own keeps them
    in itself, weakly keyed by the store object (a build that must not share, a test that counts
    reads). A store without ``derived`` (a reader written elsewhere) is read afresh each time.
    """

    def __init__(self, *, on_stores: bool = False) -> None:
        self._stores: (
            weakref.WeakKeyDictionary[ReadableStore, tuple[frozenset[tuple[str, str]], dict[object, object]]] | None
        ) = None if on_stores else weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def entries(self, store: ReadableStore) -> dict[object, object]:
        """The cache dictionary of ``store``, emptied first if its batches changed."""
        if self._stores is None:
            derived = getattr(store, "derived", None)
            return derived.entries(store) if isinstance(derived, DerivedCache) else {}
        fingerprint = frozenset((b.graph, b.digest) for b in store.batches().values())
        with self._lock:
            held = self._stores.get(store)
            if held is None or held[0] != fingerprint:
                held = (fingerprint, {})
                self._stores[store] = held
            return held[1]

    def clear(self) -> None:
        """Forget everything this cache holds (with ``on_stores``, nothing: the entries go with their stores)."""
        if self._stores is not None:
            with self._lock:
                self._stores.clear()


#: The cache used when none is passed: each store object's own (it holds nothing itself).
DEFAULT_CACHE: Final = SimilarityCache(on_stores=True)
