"""The package's layout: layer folders, small modules and functions, imports that point downstream only.

Read from the source with ``ast`` (nothing is imported). The layers are the README's Layout: each
folder of ``craftrdf/`` is one layer, lowest first (:data:`LAYERS`); a module imports from its own
folder or from a lower layer only. Over everything sit the few modules directly in ``craftrdf/``
(``__init__``, ``_api``, ``__main__``). A new folder must be given a layer here. A ``_name`` is private
to its module: no other module imports it.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
from pathlib import Path

import pytest

# the installed package's files (found, not imported): what users install is what is checked
_SPEC = importlib.util.find_spec("craftrdf")
assert _SPEC is not None and _SPEC.origin is not None, "craftrdf is not installed"
PACKAGE = Path(_SPEC.origin).resolve().parent
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80


#: At most this many parameters (self and cls not counted) outside the CLI layer, craftrdf/apps/cli: more
#: travel together as a frozen dataclass (an options or spec object) or the run context (core/context.py).
MAX_PARAMETERS = 8
#: Functions allowed over MAX_PARAMETERS, (module, function) -> why.
MANY_PARAMETERS: dict[tuple[str, str], str] = {
    # the public API: craftrdf.similarity_index keeps the keywords users call it with; inside, the library
    # takes them as one IndexSpec (analysis/similarity/graph.py wang_index)
    ("_api.py", "similarity_index"): "the public signature, unchanged for users",
}
#: The modules that may call ``load_registry``: the entry points (the public API, the apps: the command,
#: reproduce, the demo) and the run context's factory ``RunContext.create`` in core/context.py. Library
#: code takes the registry from the run context (or a ``registry`` argument) its entry point passes.
REGISTRY_LOADERS = ("_api.py", "apps/", "core/context.py")

#: The layers, lowest first, and the folders of each. A module may import from its own folder and from
#: the folders of lower layers; folders of one layer (the branches) do not import each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("core", "sample"),  # errors, vocabulary, records, IRIs and CURIEs, the registry; the bundled sample (data)
    ("ingest", "runtime"),  # readers of files into records; executors (neither needs more than the core)
    ("store",),  # the store contract, the local and the remote store
    ("querying",),  # the query library, sets, Web Annotation, view indexes
    ("building",),  # a CRAFT directory or loose files into a store
    ("ontology",),  # an ontology read back as axioms, extension classes, reasoners
    ("analysis",),  # views, rules, statistics, similarity, evaluation
    ("matching", "publishing"),  # the two branches: matcher, sweeps, training | exports, server, shapes
    ("apps",),  # the command, reproduce, the demo
)
#: The modules directly in craftrdf/, over every layer: the public API and ``python -m craftrdf``.
TOP_MODULES = {"__init__", "_api", "__main__"}
MAX_TOP_MODULES = 12

#: Imports that do not point downstream, each with its reason: (importing folder, imported folder or
#: top module) -> why.
ALLOWED_UPWARD = {
    ("apps", "__init__"): "the command prints craftrdf.__version__ (--version), which craftrdf/__init__ defines "
    "from the installed distribution's metadata",
}


@functools.cache
def _tree(path: Path) -> ast.Module:
    """The parsed module (parsed once for the checks that walk every module)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _parameter_count(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The parameters of ``fn``, ``*args`` and ``**kwargs`` included, a leading self or cls not."""
    a = fn.args
    names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)] + [p.arg for p in (a.vararg, a.kwarg) if p]
    return len(names) - (1 if names[:1] in (["self"], ["cls"]) else 0)


def _calls_of(tree: ast.AST, name: str) -> list[int]:
    """The lines where ``tree`` calls ``name`` (as ``name(...)`` or ``module.name(...)``)."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id == name)
            or (isinstance(node.func, ast.Attribute) and node.func.attr == name)
        )
    ]


def _rank(folder: str) -> int:
    for i, folders in enumerate(LAYERS):
        if folder in folders:
            return i
    if folder in TOP_MODULES:
        return len(LAYERS)
    pytest.fail(f"craftrdf/{folder} has no layer: add it to LAYERS in tests/test_layout.py")


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "sample" not in p.relative_to(PACKAGE).parts)


def _rel(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def _folder(parts: list[str]) -> str:
    """The folder (layer) of a module path inside the package: ``["analysis", "similarity", "wang"]`` ->
    ``analysis``; a module directly in craftrdf/ is its own unit (``_api``); ``[]`` is ``__init__``."""
    return parts[0] if parts else "__init__"


def _is_module(name: str) -> bool:
    return (PACKAGE / name).is_dir() or (PACKAGE / f"{name}.py").is_file()


def _private_names(imports: list[tuple[list[str], list[str]]]) -> list[str]:
    """The ``_names`` among ``imports`` that are not modules: a private name used outside its module."""
    return [
        f"{'.'.join(target)}.{name}"
        for target, names in imports
        for name in names
        if name.startswith("_") and not name.startswith("__") and not _is_module("/".join([*target, name]))
    ]


def _imports(path: Path) -> list[tuple[list[str], list[str]]]:
    """Every import of the package's own modules in ``path``: (target module path, names imported from it)."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    package = parts if path.name == "__init__.py" else parts[:-1]
    package = package[:-1] if path.name == "__init__.py" else package  # "__init__" is not a package part
    out: list[tuple[list[str], list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = base + (node.module.split(".") if node.module else [])
            elif node.module and node.module.split(".")[0] == "craftrdf":
                target = node.module.split(".")[1:]
            else:
                continue
            out.append((target, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out.extend((a.name.split(".")[1:], []) for a in node.names if a.name.split(".")[0] == "craftrdf")
    return out


def _imported_folders(path: Path) -> set[str]:
    """The folders (or top modules) of the package that ``path`` imports."""
    out: set[str] = set()
    for target, names in _imports(path):
        if not target:  # "from ... import x" at the top: x is a folder or top module, or a name of __init__
            out.update(n if _is_module(n) else "__init__" for n in names)
        else:
            out.add(_folder(target))
    return out


def _allowed(importer: str, imported: str) -> bool:
    """Whether a module of folder ``importer`` may import one of folder ``imported``."""
    if importer == imported or importer in TOP_MODULES or (importer, imported) in ALLOWED_UPWARD:
        return True
    return _rank(imported) < _rank(importer)


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_module_is_at_most_500_lines(path):
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_MODULE_LINES, f"{_rel(path)} has {n} lines: split it by idea"


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_functions_are_at_most_80_lines(path):
    long = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            n = (node.end_lineno or node.lineno) - node.lineno + 1
            if n > MAX_FUNCTION_LINES:
                long.append(f"{node.name} ({n} lines, line {node.lineno})")
    assert not long, f"{_rel(path)}: functions over {MAX_FUNCTION_LINES} lines: {', '.join(long)}"


@pytest.mark.parametrize("path", [p for p in _modules() if not _rel(p).startswith("apps/cli/")], ids=_rel)
def test_functions_outside_the_cli_take_at_most_8_parameters(path):
    many = [
        f"{node.name} ({_parameter_count(node)} parameters, line {node.lineno})"
        for node in ast.walk(_tree(path))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and _parameter_count(node) > MAX_PARAMETERS
        and (_rel(path), node.name) not in MANY_PARAMETERS
    ]
    assert not many, (
        f"{_rel(path)}: functions over {MAX_PARAMETERS} parameters: {', '.join(many)}; pass a frozen dataclass "
        "of the options that travel together, or the RunContext"
    )


@pytest.mark.parametrize(("where", "why"), sorted(MANY_PARAMETERS.items()))
def test_each_function_allowed_many_parameters_still_has_them(where, why):
    rel, name = where
    tree = ast.parse((PACKAGE / rel).read_text(encoding="utf-8"))
    counts = [_parameter_count(n) for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name]
    assert counts, f"{rel} has no function {name} any more: drop it from MANY_PARAMETERS"
    assert max(counts) > MAX_PARAMETERS, f"{rel} {name} takes at most {MAX_PARAMETERS} now: drop it ({why})"


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_only_entry_points_load_the_registry(path):
    if _rel(path).startswith(REGISTRY_LOADERS) or _rel(path) == "core/registry.py":
        return
    lines = _calls_of(_tree(path), "load_registry")
    assert not lines, (
        f"{_rel(path)} calls load_registry (line {', '.join(map(str, lines))}): take the registry from the "
        "RunContext, or a registry argument, that the entry point (craftrdf/_api.py, craftrdf/apps) passes"
    )


def test_the_run_context_factory_is_the_core_s_one_registry_loader():
    tree = ast.parse((PACKAGE / "core" / "context.py").read_text(encoding="utf-8"))
    create = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "create")
    assert _calls_of(create, "load_registry")
    assert len(_calls_of(tree, "load_registry")) == len(_calls_of(create, "load_registry"))


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_imports_point_downstream(path):
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    here = _folder(parts[:-1] if path.name == "__init__.py" else parts)
    bad = sorted(f for f in _imported_folders(path) if not _allowed(here, f))
    assert not bad, f"{_rel(path)} ({here}) imports {', '.join(bad)}, a layer above it or beside it"


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_no_private_name_is_imported_from_another_module(path):
    bad = _private_names(_imports(path))
    assert not bad, f"{_rel(path)} imports {', '.join(bad)}: give it a public name in its module or move it here"


@pytest.mark.parametrize("why", sorted(ALLOWED_UPWARD))
def test_each_allowed_upward_import_is_still_made(why):
    importer, imported = why
    assert any(imported in _imported_folders(p) for p in _modules() if _rel(p).split("/")[0] == importer), (
        f"no module of {importer}/ imports {imported} any more: drop it from ALLOWED_UPWARD"
    )


def test_every_folder_has_a_layer_and_few_modules_sit_on_top():
    folders = sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__")
    for folder in folders:
        _rank(folder)  # fails naming the folder
    top = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert set(top) <= TOP_MODULES, f"modules directly in craftrdf/ beyond {sorted(TOP_MODULES)}: {top}"
    assert len(top) + len([f for f in folders if f != "sample"]) <= MAX_TOP_MODULES + len(LAYERS)
    assert len(top) <= MAX_TOP_MODULES


def test_the_rules_catch_what_they_forbid():
    # the rule itself, on made-up pairs, so a loosened _allowed shows here
    assert not _allowed("store", "querying")  # the core upward
    assert not _allowed("ingest", "store")  # readers and executors need the core only
    assert not _allowed("runtime", "querying")
    assert not _allowed("ingest", "runtime")
    assert not _allowed("querying", "analysis")
    assert not _allowed("analysis", "matching")
    assert not _allowed("matching", "publishing")  # branch into branch
    assert not _allowed("publishing", "matching")
    assert not _allowed("core", "__init__")
    assert _allowed("matching", "analysis")
    assert _allowed("publishing", "querying")
    assert _allowed("apps", "publishing")
    assert _allowed("_api", "apps")
    assert _private_names([(["matching", "sweeps", "run"], ["_WorkerState", "sweep"])]) == [
        "matching.sweeps.run._WorkerState"
    ]
    assert not _private_names([(["analysis", "similarity"], ["_kernels"]), ([], ["__version__"])])
    made_up = ast.parse(
        "class C:\n    def m(self, a, b, *, c=1, **kw): load_registry()\n"
        "def f(a, /, b, *args, c, d, e, f, g, h): registry.load_registry(path)\n"
    )
    method, fn = sorted((n for n in ast.walk(made_up) if isinstance(n, ast.FunctionDef)), key=lambda n: n.lineno)
    assert (_parameter_count(method), _parameter_count(fn)) == (4, 9)
    assert sorted(_calls_of(made_up, "load_registry")) == [2, 3]
