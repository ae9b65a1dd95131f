"""What the README says of docs/guide.md: its notebook session calls each function the README lists."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def notebook_cells() -> list[str]:
    """The Python cells tools/make_guide.py runs and writes into the guide."""
    spec = importlib.util.spec_from_file_location("make_guide", ROOT / "tools" / "make_guide.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [cell for _, cell in module.NOTEBOOK]


def craftrdf_names(cell: str) -> set[str]:
    """Every ``craftrdf.NAME`` the cell uses (called, or passed on as ``target=craftrdf.serve``)."""
    return {
        node.attr
        for node in ast.walk(ast.parse(cell))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "craftrdf"
    }


def test_the_guide_notebook_uses_every_function_the_readme_lists():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"^(`craftrdf\.\w+`[^;]*) do what the commands of the same\s+name do; (.*?)\n\n", readme, re.M | re.S)
    assert m, "the README's sentence about the Python functions and the guide"
    listed = re.findall(r"`(?:craftrdf\.)?(\w+)`", m.group(1))
    assert len(listed) >= 7 and "docs/guide.md" in m.group(2) and "notebook" in m.group(2)
    cells = notebook_cells()
    used = set().union(*(craftrdf_names(c) for c in cells))
    assert set(listed) <= used, set(listed) - used
    # the page holds those cells, each followed by output (make_guide.py --check compares the output too)
    guide = (ROOT / "docs" / "guide.md").read_text(encoding="utf-8")
    section = guide[guide.index("## From Python: a notebook session") :]
    for cell in cells:
        assert f"```python\n{cell}\n```\n" in section, cell.splitlines()[0]
