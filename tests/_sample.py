"""The bundled sample as a store, for tests that need it outside a fixture (import as ``_sample``)."""

from __future__ import annotations


def sample_store_factory():
    """A new in-memory store holding the bundled sample (each test module gets its own)."""
    import warnings

    from craftrdf.build import build_store
    from craftrdf.demo import sample_dir
    from craftrdf.errors import DataWarning
    from craftrdf.registry import load_registry
    from craftrdf.store import AnnotationStore

    store = AnnotationStore.memory()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        build_store(sample_dir(), store, registry=load_registry())
    return store
