"""Where the full corpus and the full Gene Ontology are, for the tests that need them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from craftrdf.analysis.similarity.wang import WangIndex

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


#: The relations GO.db follows, which the GOSemSim comparisons weight alike.
GO_RELATIONS = ("is_a", "part_of", "regulates", "negatively_regulates", "positively_regulates")


def go_wang_index(go_obo: Path, weight: float = 0.7) -> WangIndex:
    """A WangIndex of the full Gene Ontology (not obsolete terms), every GO.db relation at ``weight``."""
    from craftrdf.analysis.similarity.definition import weighted_dag
    from craftrdf.analysis.similarity.wang import WangIndex
    from craftrdf.core.model import Term
    from craftrdf.ingest.obo import iter_obo

    nodes: list[str] = []
    edges: list[tuple[str, str, str]] = []
    for item in iter_obo(go_obo):
        if isinstance(item, Term) and not item.obsolete:
            nodes.append(item.id)
            edges.extend((item.id, "is_a", p) for p in item.is_a)
            edges.extend((item.id, rel, p) for rel, p in item.relationships)
    return WangIndex(weighted_dag(edges, dict.fromkeys(GO_RELATIONS, weight), nodes=nodes))
