"""Run the doctests of every module of the installed package."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import craftrdf

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(craftrdf.__path__, "craftrdf.")
    if not m.name.startswith(("craftrdf.sample", "craftrdf.querying.queries", "craftrdf.core"))
    and not m.name.endswith("__main__")
)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
