"""What a user installs is what is tested: the installed package, its files and its dependencies.

``.ci/run`` installs the project as a user would (``pip install '.[test]'``, not editable) and
sets CRAFTRDF_TEST_INSTALLED=1; pytest's importlib import mode leaves the checkout off
``sys.path``, so ``import craftrdf`` here is the installed copy (docs/testing.md). The files of
that install are the wheel's (its RECORD), compared with the source tree; every module the
package imports is compared with the distribution's base dependencies and extras.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import subprocess
import sys
import sysconfig
from importlib.metadata import Distribution, distribution, packages_distributions
from pathlib import Path, PurePosixPath

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import craftrdf
from craftrdf.core._extras import EXTRA_OF_MODULE
from tests.helpers.corpus import REPO

SOURCE = REPO / "craftrdf"
INSTALLED = os.environ.get("CRAFTRDF_TEST_INSTALLED") == "1"
#: extras that are not for users of the package: what they add is never imported by it
NOT_RUNTIME_EXTRAS = {"test", "dev", "bench"}


def _dist() -> Distribution:
    return distribution("craftrdf")


def _editable(dist: Distribution) -> bool:
    """PEP 610: an editable install's direct_url.json says so."""
    text = dist.read_text("direct_url.json")
    return bool(text and json.loads(text).get("dir_info", {}).get("editable"))


def _installed_files(dist: Distribution) -> set[PurePosixPath]:
    """The package's files as the install's RECORD lists them (the wheel's), relative to craftrdf/."""
    return {
        PurePosixPath(*f.parts[1:])
        for f in dist.files or ()
        if f.parts[0] == "craftrdf" and "__pycache__" not in f.parts
    }


def _source_files() -> set[PurePosixPath]:
    return {
        PurePosixPath(p.relative_to(SOURCE).as_posix())
        for p in SOURCE.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }


def test_craftrdf_is_imported_from_where_pip_installed_it():
    here = Path(craftrdf.__file__).resolve().parent
    dist = _dist()
    if _editable(dist):
        assert not INSTALLED, "CRAFTRDF_TEST_INSTALLED=1, but craftrdf is installed editable: pip install '.[test]'"
        assert here == SOURCE
        return
    site = Path(sysconfig.get_path("purelib")).resolve()
    assert here == site / "craftrdf", (
        f"the tests import {here}, but pip installed craftrdf in {site}: run `pytest` "
        "(or `python -P -m pytest`), so that the checkout does not shadow the install"
    )
    if INSTALLED:
        assert here != SOURCE


def test_a_child_python_imports_the_same_craftrdf():
    # conftest's PYTHONSAFEPATH=1: `python -m craftrdf` from the checkout runs the install too
    out = subprocess.run(
        [sys.executable, "-c", "import craftrdf; print(craftrdf.__file__)"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(out.stdout.strip()).resolve() == Path(craftrdf.__file__).resolve()


def test_the_wheel_holds_every_package_folder_and_data_file_of_the_tree():
    dist = _dist()
    if _editable(dist):
        pytest.skip("craftrdf is installed editable: the wheel's files are checked on `pip install .` (.ci/run)")
    installed, source = _installed_files(dist), _source_files()
    packages = sorted(str(f.parent) for f in source if f.name == "__init__.py")
    missing_packages = [p for p in packages if PurePosixPath(p, "__init__.py") not in installed]
    assert not missing_packages, f"package folders missing from the wheel: {missing_packages}"
    missing = sorted(map(str, source - installed))
    assert not missing, f"{len(missing)} files of craftrdf/ missing from the wheel, e.g. {missing[:10]}"
    stale = sorted(map(str, installed - source))  # deleted from the tree, but left in build/ or the egg-info
    assert not stale, (
        f"the wheel holds files the tree does not: {stale[:10]} (rm -rf build craftrdf.egg-info; reinstall)"
    )


# -- dependencies ----------------------------------------------------------------------


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(tree: ast.AST) -> set[str]:
    """Top-level names of the absolute imports in ``tree``, but those under ``if TYPE_CHECKING:``."""
    out: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if _is_type_checking(node):
            stack.extend(node.orelse)  # type: ignore[attr-defined]
            continue
        if isinstance(node, ast.Import):
            out.update(a.name.partition(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.partition(".")[0])
        stack.extend(ast.iter_child_nodes(node))
    return out


@functools.cache
def _runtime_imports() -> dict[str, list[str]]:
    """Every third-party top-level module the package imports at run time -> the files importing it."""
    found: dict[str, list[str]] = {}
    package = Path(craftrdf.__file__).parent
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package)
        if rel.parts[0] == "sample":
            continue
        for name in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if name not in sys.stdlib_module_names and name != "craftrdf":
                found.setdefault(name, []).append(str(rel))
    return found


def _brings(req: Requirement) -> set[str]:
    """The distributions a requirement installs: its own, and those of the extras it asks for (``dask[distributed]``)."""
    names = {canonicalize_name(req.name)}
    for line in distribution(req.name).requires or () if req.extras else ():
        sub = Requirement(line)
        if sub.marker is not None and any(sub.marker.evaluate({"extra": e}) for e in req.extras):
            names.add(canonicalize_name(sub.name))
    return names


def _requirements() -> tuple[set[str], dict[str, set[str]]]:
    """(base distributions, extra -> its distributions), from the installed craftrdf's metadata."""
    dist = _dist()
    base: set[str] = set()
    extras: dict[str, set[str]] = {e: set() for e in dist.metadata.get_all("Provides-Extra") or ()}
    for line in dist.requires or ():
        req = Requirement(line)
        if canonicalize_name(req.name) == "craftrdf":  # craftrdf[...] inside the test extra
            continue
        if req.marker is None:
            base |= _brings(req)
        for extra, names in extras.items():
            if req.marker is not None and req.marker.evaluate({"extra": extra}):
                names |= _brings(req)
    return base, extras


def test_the_imports_of_the_package_are_found():
    # the walk sees what a reader sees: remote's httpx, the server's starlette, a TYPE_CHECKING import not
    found = _runtime_imports()
    assert {"pyoxigraph", "httpx", "starlette", "numpy"} <= found.keys()
    assert "store/remote.py" in found["httpx"]
    assert "_typeshed" not in found  # _nquads_stream imports it for the type checker only
    assert _imports(ast.parse("import a.b\nfrom c.d import e\nfrom . import f\nif TYPE_CHECKING:\n    import g")) == {
        "a",
        "c",
    }


def test_every_run_time_import_is_a_base_dependency_or_names_its_extra():
    base, extras = _requirements()
    dists = packages_distributions()
    wrong = []
    for module, files in sorted(_runtime_imports().items()):
        provided = {canonicalize_name(d) for d in dists.get(module, ())}
        if not provided:
            wrong.append(f"{module} (imported by {files[0]}) is not installed here: which distribution brings it?")
            continue
        if provided & base:
            if module in EXTRA_OF_MODULE:
                wrong.append(
                    f"{module} is a base dependency, but craftrdf.core._extras names the extra {EXTRA_OF_MODULE[module]}"
                )
            continue
        extra = EXTRA_OF_MODULE.get(module)
        if extra is None or extra in NOT_RUNTIME_EXTRAS or not provided & extras.get(extra, set()):
            in_extras = sorted(e for e, names in extras.items() if provided & names)
            wrong.append(
                f"{module} (imported by {files[0]}) comes from {sorted(provided)}: not a base dependency, and "
                f"craftrdf.core._extras names {extra!r} while the extras that list it are {in_extras}"
            )
    assert not wrong, "\n".join(wrong)


def test_the_extras_table_names_only_modules_the_package_imports():
    assert set(EXTRA_OF_MODULE) <= _runtime_imports().keys()
