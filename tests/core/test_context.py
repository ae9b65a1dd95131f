from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from craftrdf.core.context import RunContext
from craftrdf.core.registry import load_registry


def test_create_loads_the_installed_registry_and_a_fresh_curie_map(tmp_path):
    a = RunContext.create(cache_dir=tmp_path)
    b = RunContext.create()
    assert a.registry == load_registry() and a.cache_dir == tmp_path and b.cache_dir is None
    assert a.curies is not b.curies  # one map per run (its memo lives as long as the run)
    assert a.executor is None and a.progress is None


def test_the_context_is_frozen_and_with_changes_a_copy(tmp_path):
    ctx = RunContext(load_registry(), cache_dir=tmp_path, executor="pool")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.cache_dir = Path("elsewhere")  # type: ignore[misc]
    inline = ctx.with_(executor=None)
    assert inline.executor is None and ctx.executor == "pool"
    assert inline.registry is ctx.registry and inline.curies is ctx.curies and inline.cache_dir == tmp_path
