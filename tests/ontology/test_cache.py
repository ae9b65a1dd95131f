"""The default cache keeps its entries on the store objects; a cache of one's own keeps them itself."""

from __future__ import annotations

from craftrdf.building.loader import load_files
from craftrdf.ontology.cache import DEFAULT_CACHE, SimilarityCache
from craftrdf.ontology.store_model import read_store_model
from craftrdf.store.local import AnnotationStore
from tests.helpers.corpus import DATA

FIG1_OBO = DATA / "similarity" / "wang2007_fig1.obo"
TOY_OBO = DATA / "similarity" / "toy_extensions.obo"


def _store() -> AnnotationStore:
    store = AnnotationStore.memory()
    load_files(store, [FIG1_OBO])
    return store


def test_the_default_cache_keeps_each_stores_entries_on_that_store():
    a, b = _store(), _store()
    entries = DEFAULT_CACHE.entries(a)
    entries["x"] = 1
    assert DEFAULT_CACHE.entries(a) is a.derived.entries(a) is entries
    assert DEFAULT_CACHE.entries(b) == {}  # another store object with the same triples has its own
    DEFAULT_CACHE.clear()  # it holds nothing itself
    assert DEFAULT_CACHE.entries(a) == {"x": 1}


def test_entries_are_dropped_when_a_batch_is_loaded():
    store = _store()
    own = SimilarityCache()
    DEFAULT_CACHE.entries(store)["x"] = own.entries(store)["x"] = 1
    load_files(store, [TOY_OBO])
    assert DEFAULT_CACHE.entries(store) == {} == own.entries(store)


def test_the_model_is_read_once_per_store_object():
    store = _store()
    first = read_store_model(store)
    assert read_store_model(store) is first
    assert read_store_model(_store()) is not first
    assert read_store_model(store, cache=None) is not first


class _Bare:
    """A reader written elsewhere, without ``derived``: only what the cache needs of it."""

    def __init__(self, store: AnnotationStore) -> None:
        self.batches = store.batches


def test_a_store_without_derived_is_read_afresh():
    bare = _Bare(_store())
    DEFAULT_CACHE.entries(bare)["x"] = 1  # type: ignore[arg-type]
    assert DEFAULT_CACHE.entries(bare) == {}  # type: ignore[arg-type]
