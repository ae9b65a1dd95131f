"""The public API: exactly these names, each documented (the model is httpx's test of the same name)."""

from __future__ import annotations

import inspect
import types

import craftrdf

PUBLIC = [
    "Annotation",
    "AnnotationStore",
    "CraftrdfError",
    "Document",
    "MatcherConfig",
    "QueryResult",
    "ReadableStore",
    "RemoteStore",
    "SetRef",
    "Span",
    "WangIndex",
    "WritableStore",
    "__version__",
    "annotate",
    "build",
    "evaluate",
    "export",
    "index",
    "load",
    "open",
    "query",
    "serve",
    "similarity_index",
    "sweep",
    "train",
    "view",
]


def test_all_is_pinned_and_sorted():
    assert craftrdf.__all__ == PUBLIC
    assert sorted(PUBLIC, key=str.casefold) == sorted(craftrdf.__all__, key=str.casefold)


def test_every_public_name_exists_and_is_documented():
    for name in PUBLIC:
        obj = getattr(craftrdf, name)
        if name != "__version__":
            assert inspect.getdoc(obj), name


def test_nothing_else_public_but_subpackages():
    """Names without an underscore that are not in __all__ must be modules (subpackages of craftrdf)."""
    extra = {n for n in vars(craftrdf) if not n.startswith("_")} - set(PUBLIC)
    assert all(isinstance(getattr(craftrdf, n), types.ModuleType) for n in extra), sorted(extra)


def test_functions_do_not_shadow_modules():
    """``craftrdf.build`` is the function and ``craftrdf.building.builder`` the module: no public function
    takes the name of a submodule (``import craftrdf.x`` and ``mock.patch('craftrdf.x.y')`` keep working)."""
    import pkgutil

    modules = {m.name for m in pkgutil.iter_modules(craftrdf.__path__)}
    assert not modules & set(PUBLIC)
