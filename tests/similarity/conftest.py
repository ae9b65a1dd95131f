"""Fixtures for the similarity tests: tiny ontologies in tests/data/similarity, loaded into stores."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from craftrdf.load import load_files
from craftrdf.store import AnnotationStore

SIM_DATA = Path(__file__).resolve().parent.parent / "data" / "similarity"
FIG1_OBO = SIM_DATA / "wang2007_fig1.obo"
TOY_OBO = SIM_DATA / "toy_extensions.obo"


@pytest.fixture()
def toy_store() -> AnnotationStore:
    """An in-memory store holding Wang's Figure 1 DAG (graph ``wang2007_fig1``) and the toy
    anatomy with extension classes (graph ``toy_extensions``)."""
    store = AnnotationStore.memory()
    load_files(store, [FIG1_OBO, TOY_OBO])
    return store


@pytest.fixture(scope="module")
def sample_store() -> AnnotationStore:
    """The bundled CRAFT sample, built in memory (about a second)."""
    from craftrdf.build import build_store
    from craftrdf.demo import sample_dir
    from craftrdf.registry import load_registry

    store = AnnotationStore.memory()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        build_store(sample_dir(), store, registry=load_registry())
    return store
