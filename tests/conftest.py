"""Shared fixtures: where the real CRAFT corpus is, and the tiny fixtures in tests/data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from craftrdf.store import AnnotationStore
from tests.helpers.corpus import DATA, find_craft_dir, find_go_obo
from tests.helpers.sample import sample_store as build_sample


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the ``long`` tests, saying how to run them, unless CRAFTRDF_LONG_TESTS=1."""
    if os.environ.get("CRAFTRDF_LONG_TESTS") == "1":
        return
    default = "a whole-corpus verification of minutes"
    for item in items:
        marker = item.get_closest_marker("long")
        if marker is not None:  # ``@pytest.mark.long("why")`` says why in the skip reason
            why = marker.args[0] if marker.args else default
            item.add_marker(pytest.mark.skip(reason=f"{why}: run with CRAFTRDF_LONG_TESTS=1"))


@pytest.fixture(scope="session")
def craft_dir() -> Path:
    d = find_craft_dir()
    if d is None:
        pytest.skip("full CRAFT corpus not found: set CRAFT_DIR or put it at ../shared/craft")
    return d


@pytest.fixture(scope="session")
def go_obo() -> Path:
    p = find_go_obo()
    if p is None:
        pytest.skip("go-2022-07-01.obo.gz not found beside the corpus (../shared/ontologies)")
    return p


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def corpus_store(craft_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store built once per test session from the full corpus; open it with mode="read".

    For development only, CRAFTRDF_CORPUS_STORE names an already built store to reuse
    (CI leaves it unset, so the suite always builds from the raw files there).
    """
    prebuilt = os.environ.get("CRAFTRDF_CORPUS_STORE")
    if prebuilt and Path(prebuilt).is_dir():
        return Path(prebuilt)
    import warnings

    from craftrdf.builder import build_store
    from craftrdf.errors import DataWarning
    from craftrdf.registry import load_registry
    from craftrdf.store import AnnotationStore

    path = tmp_path_factory.mktemp("corpus") / "craft.store"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        with AnnotationStore.open(path) as store:
            build_store(craft_dir, store, registry=load_registry())
    return path


@pytest.fixture(scope="module")
def sample_store() -> AnnotationStore:
    """The bundled sample in memory, built once per test module (modules may add sets to it)."""
    return build_sample()


@pytest.fixture(scope="module")
def sample_store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled sample as an on-disk store (closed), built once per test module, for commands and servers."""
    from tests.helpers.sample import sample_store_path

    return sample_store_path(tmp_path_factory.mktemp("sample") / "sample.store")
