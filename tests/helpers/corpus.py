"""Where the full corpus and the full Gene Ontology are, for the tests that need them."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"


def find_craft_dir() -> Path | None:
    """CRAFT_DIR if set, else ../shared/craft beside the repository, else None."""
    env = os.environ.get("CRAFT_DIR")
    candidates = [Path(env)] if env else [REPO.parent / "shared" / "craft"]
    for c in candidates:
        if (c / "concept-annotation").is_dir() and (c / "articles" / "txt").is_dir():
            return c
    return None


def find_go_obo() -> Path | None:
    """The full Gene Ontology beside the corpus (../shared/ontologies), else None."""
    craft = find_craft_dir()
    roots = [craft.parent] if craft else []
    roots.append(REPO.parent / "shared")
    for r in roots:
        p = r / "ontologies" / "go-2022-07-01.obo.gz"
        if p.is_file():
            return p
    return None


def find_published() -> Path | None:
    """The Uberon paper's Tables 3-4 beside the corpus (../shared/published), else None."""
    craft = find_craft_dir()
    roots = [craft.parent] if craft else []
    roots.append(REPO.parent / "shared")
    for r in roots:
        p = r / "published" / "bada2017-tables-3-4.csv"
        if p.is_file():
            return p
    return None
