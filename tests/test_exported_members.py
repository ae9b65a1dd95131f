"""The public API: exactly these names, each documented (the model is httpx's test of the same name)."""

from __future__ import annotations

import ast
import inspect
import types
from pathlib import Path

import pytest

import craftrdf

PACKAGE = Path(craftrdf.__file__).parent

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


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p != PACKAGE / "__init__.py")


def _rel(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def _reexported(source: str) -> list[str]:
    """Names a module imports at its top level and never uses: there only for others to import from it."""
    tree = ast.parse(source)
    imported = {
        (a.asname or a.name).split(".")[0]
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
        for a in node.names
        if not (isinstance(node, ast.ImportFrom) and node.module == "__future__")
    }
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    used |= {n.value.id for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    return sorted(imported - used)


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_only_the_package_declares_all(path):
    """``craftrdf.__all__`` is the public API; a module's names are public or ``_private`` by their spelling."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assigned = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    assert "__all__" not in assigned, f"{_rel(path)} declares __all__"


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*/__init__.py")), ids=_rel)
def test_subpackages_do_not_reexport(path):
    """A sub-package's ``__init__`` holds its docstring (and any code of its own), never names of its modules:
    callers import from the module that defines a name."""
    assert not _reexported(path.read_text(encoding="utf-8")), f"{_rel(path)} re-exports"


def test_the_reexport_rule_catches_a_reexport():
    assert _reexported("from .wang import WangIndex\n") == ["WangIndex"]
    assert _reexported("from __future__ import annotations\nfrom . import a\nX = a.f()\n") == []
