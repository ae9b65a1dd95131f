"""Fixtures for the similarity tests: tiny ontologies in tests/data/similarity, loaded into stores."""

from __future__ import annotations

import pytest

from craftrdf.loader import load_files
from craftrdf.store import AnnotationStore
from tests.helpers.corpus import DATA as TESTS_DATA

SIM_DATA = TESTS_DATA / "similarity"
FIG1_OBO = SIM_DATA / "wang2007_fig1.obo"
TOY_OBO = SIM_DATA / "toy_extensions.obo"


@pytest.fixture
def toy_store() -> AnnotationStore:
    """An in-memory store holding Wang's Figure 1 DAG (graph ``wang2007_fig1``) and the toy
    anatomy with extension classes (graph ``toy_extensions``)."""
    store = AnnotationStore.memory()
    load_files(store, [FIG1_OBO, TOY_OBO])
    return store
