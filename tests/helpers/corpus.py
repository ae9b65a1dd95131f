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


def find_w3c_protocol_dir() -> Path | None:
    """W3C_PROTOCOL_DIR if set, else w3c-sparql11-protocol beside the corpus or the repository, else None.

    The folder of the W3C SPARQL 1.1 Protocol test suite: its manifest.ttl and data files.
    """
    env = os.environ.get("W3C_PROTOCOL_DIR")
    craft = find_craft_dir()
    roots = [craft.parent] if craft else []
    candidates = [Path(env)] if env else [r / "w3c-sparql11-protocol" for r in [*roots, REPO.parent / "shared"]]
    return next((c for c in candidates if (c / "manifest.ttl").is_file()), None)


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


#: The OBO files of the CRAFT distribution, relative to concept-annotation/.
CRAFT_OBO_FILES = [
    "CL/CL/CL.obo.zip",
    "CL/CL+extensions/CL+extensions.obo.zip",
    "GO_MF/GO_MF/GO_MF_stub.obo.zip",
    "GO_MF/GO_MF+extensions/GO_MF_stub+GO_MF_extensions.obo.zip",
    "MOP/MOP/MOP.obo.zip",
    "MOP/MOP+extensions/MOP+extensions.obo.zip",
    "SO/SO/SO.obo.zip",
    "SO/SO+extensions/SO+extensions.obo.zip",
    "UBERON/UBERON/UBERON.obo.zip",
    "UBERON/UBERON+extensions/UBERON+extensions.obo.zip",
]
