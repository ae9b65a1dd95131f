"""A set's extension-class mappings as SSSOM TSV (Simple Standard for Sharing Ontological Mappings).

CRAFT's ``X_extension_classes_and_related_X_classes.txt`` files pair each extension class
with the OBO classes it is related to; the build stores them in the set's mapping graph
(``craft:relatedClass``, docs/rdf-model.md). :func:`export_sssom` writes them as one SSSOM
mapping set (SSSOM 0.15 specification, https://mapping-commons.github.io/sssom/): a YAML
metadata block on ``#`` lines (``curie_map``, ``mapping_set_id``, ``license``, ...), then one
TSV row per (extension class, related class) with ``predicate_id skos:relatedMatch`` (the
files say "related", no more: not an exact or narrower match) and ``mapping_justification
semapv:ManualMappingCuration`` (CRAFT's curators wrote them). Labels come from the store's
ontology graphs where a class has one. ``sssom validate`` (sssom-py, the ``sssom`` extra)
accepts the file; a test runs it.
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from ...core.curie import CurieMap
from ...core.errors import ConfigError, InputError
from ...core.vocab import CRAFT, RDFS
from ...querying.sets import resolve_set
from ...store.local import ReadableStore

#: The columns written, in order (SSSOM's names).
COLUMNS = (
    "subject_id",
    "subject_label",
    "predicate_id",
    "object_id",
    "object_label",
    "mapping_justification",
    "comment",
)
#: CRAFT's license for its annotations and mapping files (the corpus's LICENSE.txt).
LICENSE = "http://creativecommons.org/licenses/by/3.0/"
_STANDARD_PREFIXES = {
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "semapv": "https://w3id.org/semapv/vocab/",
}


@dataclass(frozen=True, slots=True)
class SSSOMReport:
    """What :func:`export_sssom` wrote: the set, the file, the mappings and the extension classes."""

    set_key: str
    out: Path
    mappings: int
    classes: int


def sssom_rows(store: ReadableStore, set_key: str, *, curies: CurieMap | None = None) -> list[dict[str, str]]:
    """The SSSOM rows of set ``set_key``'s extension-class mappings, sorted by subject then object.

    ConfigError for an unknown set, or one whose mapping graph holds no extension class
    (a set without extensions, or built without its mapping files).
    """
    ref = resolve_set(store, set_key)
    if ref.mappings is None:
        raise ConfigError(f"set {ref.key!r} has no mapping graph in this store (craft:mappings)")
    cm = curies or CurieMap()
    graph = ox.NamedNode(ref.mappings)
    first = {
        q.subject: q.object for q in store.quads_for_pattern(None, ox.NamedNode(CRAFT.firstRelatedClass), None, graph)
    }
    pairs = sorted(
        (q.subject.value, q.object.value)
        for q in store.quads_for_pattern(None, ox.NamedNode(CRAFT.relatedClass), None, graph)
        if isinstance(q.subject, ox.NamedNode) and isinstance(q.object, ox.NamedNode)
    )
    if not pairs:
        raise ConfigError(
            f"set {ref.key!r} has no extension-class mappings "
            "(only the +extensions sets have them: X_extension_classes_and_related_X_classes.txt)"
        )
    labels: dict[str, str] = {}

    def label(iri: str) -> str:
        hit = labels.get(iri)
        if hit is None:
            found = [
                q.object.value
                for q in store.quads_for_pattern(ox.NamedNode(iri), ox.NamedNode(RDFS.label), None)
                if isinstance(q.object, ox.Literal)
            ]
            hit = labels[iri] = min(found) if found else ""  # min: one label, the same on every run
        return hit

    rows = []
    for s, o in pairs:
        is_first = first.get(ox.NamedNode(s)) == ox.NamedNode(o)
        rows.append(
            {
                "subject_id": cm.compress(s),
                "subject_label": label(s),
                "predicate_id": "skos:relatedMatch",
                "object_id": cm.compress(o),
                "object_label": label(o),
                "mapping_justification": "semapv:ManualMappingCuration",
                "comment": "first related class in the CRAFT mapping file" if is_first else "",
            }
        )
    return rows


def _curie_map(rows: list[dict[str, str]], cm: CurieMap) -> dict[str, str]:
    """Every prefix the rows use, with its IRI base (as CurieMap expands it), plus skos and semapv."""
    out = dict(_STANDARD_PREFIXES)
    for r in rows:
        for field in ("subject_id", "object_id"):
            prefix = r[field].split(":", 1)[0]
            if prefix not in out:
                probe = cm.expand(f"{prefix}:x")
                out[prefix] = probe[:-1]
    return dict(sorted(out.items()))


def _header(ref_key: str, mapping_graph: str, curie_map: dict[str, str]) -> str:
    """The metadata block, as ``#`` lines of YAML (every value a plain scalar: no quoting needed)."""
    lines = ["curie_map:"]
    lines += [f"  {p}: {base}" for p, base in curie_map.items()]
    lines += [
        f"mapping_set_id: {mapping_graph}",
        f"mapping_set_title: CRAFT {ref_key} extension classes and their related classes",
        f"mapping_set_description: From the CRAFT corpus's {ref_key.removesuffix('_EXT')}_extension_classes_and_"
        f"related_{ref_key.removesuffix('_EXT')}_classes.txt, as stored by craftrdf",
        f"license: {LICENSE}",
        "mapping_tool: craftrdf",
    ]
    return "".join(f"#{line}\n" for line in lines)


def export_sssom(store: ReadableStore, set_key: str, out: str | Path, *, curies: CurieMap | None = None) -> SSSOMReport:
    """Write set ``set_key``'s extension-class mappings to ``out`` as SSSOM TSV, whole or not at all."""
    cm = curies or CurieMap()
    ref = resolve_set(store, set_key)
    rows = sssom_rows(store, ref.key, curies=cm)
    body = io.StringIO()
    writer = csv.DictWriter(body, COLUMNS, delimiter="\t", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    text = _header(ref.key, ref.mappings or "", _curie_map(rows, cm)) + body.getvalue()
    target = Path(out)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".tsv")
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except OSError as exc:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise InputError(f"cannot write: {exc.strerror}", source=str(out)) from None
    return SSSOMReport(ref.key, target, len(rows), len({r["subject_id"] for r in rows}))
