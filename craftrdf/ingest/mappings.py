"""The corpus's three kinds of mapping files, read and turned into quads.

- ``X_extension_classes_and_related_X_classes.txt``: extension class, then its related
  OBO classes (at least one; order kept, the first is recorded separately);
- ``unused_classes_for_X_annotations.txt``: one class per line, never used in set X;
- ``unused_classes_and_substitute_extension_classes_for_X+extensions_annotations.txt``:
  an unused class, then zero, one or several extension classes used instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..core.curie import CurieMap
from ..core.errors import InputError
from ..core.rdf import iri, quad
from ..core.vocab import CRAFT, RDF

MappingKind = Literal["related", "unused", "substitute"]


@dataclass(frozen=True, slots=True)
class MappingRow:
    """One line of a mapping file: a class and the classes it maps to, in file order."""

    cls: str
    targets: tuple[str, ...]
    line: int


def read_mapping_file(path: Path, kind: MappingKind, *, curies: CurieMap) -> list[MappingRow]:
    """Read one mapping file; InputError naming file and line for a malformed line.

    Blank lines are skipped. ``related`` lines need at least one target, ``unused``
    lines exactly none.
    """
    rows: list[MappingRow] = []
    with open(path, encoding="utf-8") as fh:
        for n, raw in enumerate(fh, 1):
            line = raw.rstrip("\r\n")
            if not line.strip():
                continue
            fields = [f.strip() for f in line.split("\t") if f.strip()]
            for f in fields:
                if not curies.is_curie(f):
                    raise InputError(f"malformed class id {f!r}", source=str(path), line=n)
            if kind == "related" and len(fields) < 2:
                raise InputError("extension class without any related class", source=str(path), line=n)
            if kind == "unused" and len(fields) != 1:
                raise InputError(f"expected one class id, found {len(fields)}", source=str(path), line=n)
            rows.append(MappingRow(fields[0], tuple(fields[1:]), n))
    return rows


def mapping_nquads(
    rows: list[MappingRow], kind: MappingKind, *, set_iri: str, graph: str, curies: CurieMap
) -> Iterator[str]:
    """Quads for one mapping file in ``graph`` (see docs/rdf-model.md for the terms)."""
    g = iri(graph)
    s = iri(set_iri)
    for row in rows:
        c = iri(curies.expand(row.cls))
        if kind == "related":
            yield quad(c, iri(RDF.type), iri(CRAFT.ExtensionClass), g)
            yield quad(c, iri(CRAFT.firstRelatedClass), iri(curies.expand(row.targets[0])), g)
            for t in row.targets:
                yield quad(c, iri(CRAFT.relatedClass), iri(curies.expand(t)), g)
        else:
            yield quad(s, iri(CRAFT.unusedClass), c, g)
            for t in row.targets:
                yield quad(c, iri(CRAFT.substituteClass), iri(curies.expand(t)), g)
