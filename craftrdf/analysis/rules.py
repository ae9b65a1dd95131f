"""CRAFT's post-processing rules (concept-annotation/README.md), as pure operations on annotations.

1. ``unused``: drop annotations whose class is listed in
   ``unused_classes_for_X_annotations.txt`` (proper-OBO sets);
2. ``substitute``: for +extensions sets, replace a class listed in
   ``unused_classes_and_substitute_extension_classes_for_X+extensions_annotations.txt``
   by its single mapped extension class; delete the annotation when the class has no
   mapping or several, and when an annotation with the mapped class already exists on the
   same spans (no duplicate is created);
3. ``related``: replace extension classes by their related OBO classes from
   ``X_extension_classes_and_related_X_classes.txt`` ("possible, not recommended"); when
   several are mapped, ``pick`` decides: the ``first`` listed, ``all`` (one annotation
   each), or ``drop`` the annotation.

Each returns the new annotation list and a :class:`RuleReport` of what it changed. The
mapping data comes from the store (:func:`set_mappings`) or is given directly.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from ..core.curie import CurieMap
from ..core.errors import ConfigError, QueryError
from ..core.iris import check_set_key, set_iri
from ..core.model import Annotation
from ..core.rdf import iri, literal, quad
from ..core.vocab import CRAFT
from ..querying.indexes import Progress, write_set_batch
from ..querying.library import resolve_query, run_query
from ..querying.webanno import annotation_nquads, fetch_annotations, set_nquads
from ..store.local import ReadableStore, WritableStore

Pick = Literal["first", "all", "drop"]
RULES = ("unused", "substitute", "related")


@dataclass(frozen=True, slots=True)
class Mappings:
    """A set's mapping-file data: unused classes, substitutes (possibly none), related classes in file order."""

    unused: frozenset[str] = frozenset()
    substitutes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    related: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RuleReport:
    """What one rule did: annotations in, annotations out, and counts per kind of change."""

    rule: str
    before: int
    after: int
    dropped: int = 0
    replaced: int = 0
    duplicates: int = 0
    added: int = 0


def _bound(value: str | None) -> str:
    if value is None:  # the query binds cls and target in every branch that reads them
        raise QueryError("set-mappings answered a row without its class")
    return value


def set_mappings(store: ReadableStore, key: str, *, curies: CurieMap | None = None) -> Mappings:
    """The mapping data the store holds for set ``key`` (empty when it has none), classes as CURIEs."""
    curies = curies or CurieMap()
    result = run_query(store, resolve_query("set-mappings"), {"set": key}, curies=curies)
    unused: set[str] = set()
    subs: dict[str, list[str]] = {}
    related: dict[str, list[tuple[bool, str]]] = {}
    for kind, cls, target, first in result.optional_strings("kind", "cls", "target", "first"):
        c = curies.compress(_bound(cls))
        if kind == "unused":
            unused.add(c)
            subs.setdefault(c, [])
        elif kind == "substitute":
            subs.setdefault(c, []).append(curies.compress(_bound(target)))
        else:
            related.setdefault(c, []).append((first != "true", curies.compress(_bound(target))))
    return Mappings(
        frozenset(unused),
        {c: tuple(sorted(t)) for c, t in subs.items()},
        {c: tuple(t for _, t in sorted(ts)) for c, ts in related.items()},
    )


def drop_unused(
    annotations: Sequence[Annotation], unused: frozenset[str] | set[str]
) -> tuple[list[Annotation], RuleReport]:
    """Rule 1: drop every annotation whose class is unused."""
    kept = [a for a in annotations if a.class_id not in unused]
    return kept, RuleReport("unused", len(annotations), len(kept), dropped=len(annotations) - len(kept))


def substitute_unused(
    annotations: Sequence[Annotation], substitutes: Mapping[str, tuple[str, ...]]
) -> tuple[list[Annotation], RuleReport]:
    """Rule 2: unused class -> its single extension class; delete when none, several, or a duplicate.

    A duplicate is an annotation of the same document with the same spans that already
    has the extension class (in the input, or created earlier by this rule).
    """
    existing = {(a.document, a.spans, a.class_id) for a in annotations if a.class_id not in substitutes}
    out: list[Annotation] = []
    dropped = replaced = duplicates = 0
    for a in annotations:
        targets = substitutes.get(a.class_id)
        if targets is None:
            out.append(a)
            continue
        if len(targets) != 1:
            dropped += 1
            continue
        key = (a.document, a.spans, targets[0])
        if key in existing:
            duplicates += 1
            continue
        existing.add(key)
        out.append(replace(a, class_id=targets[0]))
        replaced += 1
    return out, RuleReport(
        "substitute", len(annotations), len(out), dropped=dropped, replaced=replaced, duplicates=duplicates
    )


def replace_related(
    annotations: Sequence[Annotation], related: Mapping[str, tuple[str, ...]], *, pick: Pick = "first"
) -> tuple[list[Annotation], RuleReport]:
    """Rule 3: extension class -> related OBO class(es); ``pick`` decides when several are mapped.

    With ``all``, the copies get ids ``<id>#1``, ``<id>#2``... Duplicates (same document,
    spans and class) are not created.
    """
    if pick not in ("first", "all", "drop"):
        raise ConfigError(f"pick {pick!r}: use first, all or drop")
    seen = {(a.document, a.spans, a.class_id) for a in annotations if a.class_id not in related}
    out: list[Annotation] = []
    dropped = replaced = duplicates = added = 0
    for a in annotations:
        targets = related.get(a.class_id)
        if not targets:
            out.append(a)
            continue
        if len(targets) > 1 and pick == "drop":
            dropped += 1
            continue
        chosen = targets if pick == "all" else targets[:1]
        for i, t in enumerate(chosen):
            key = (a.document, a.spans, t)
            if key in seen:
                duplicates += 1
                continue
            seen.add(key)
            out.append(replace(a, class_id=t, id=a.id if i == 0 else f"{a.id}#{i}"))
            if i == 0:
                replaced += 1
            else:
                added += 1
    return out, RuleReport(
        "related", len(annotations), len(out), dropped=dropped, replaced=replaced, duplicates=duplicates, added=added
    )


def craft_rules(set_key: str, variant: str | None = None) -> tuple[str, ...]:
    """The rules the corpus README asks system builders to apply to a set's output.

    Proper-OBO sets drop unused classes; ``+extensions`` sets substitute them by their
    extension class. The third rule (related OBO classes) is "not recommended" there, so
    it is never chosen here. ``variant`` is the set's (:attr:`craftrdf.querying.sets.SetRef.variant`);
    without it the key decides (``_EXT`` at the end).

    >>> craft_rules("UBERON"), craft_rules("uberon_ext"), craft_rules("MINE", "extensions")
    (('unused',), ('substitute',), ('substitute',))
    """
    if variant is None:
        variant = "extensions" if set_key.upper().endswith("_EXT") else "proper"
    return ("substitute",) if variant == "extensions" else ("unused",)


def apply_rules(
    annotations: Sequence[Annotation], rules: Sequence[str], mappings: Mappings, *, pick: Pick = "first"
) -> tuple[list[Annotation], list[RuleReport]]:
    """Apply rules in the order given; returns the result and one report per rule."""
    reports = []
    current = list(annotations)
    for rule in rules:
        if rule == "unused":
            current, r = drop_unused(current, mappings.unused)
        elif rule == "substitute":
            current, r = substitute_unused(current, mappings.substitutes)
        elif rule == "related":
            current, r = replace_related(current, mappings.related, pick=pick)
        else:
            raise ConfigError(f"unknown rule {rule!r}: use {', '.join(RULES)}")
        reports.append(r)
    return current, reports


def postprocess_set(
    store: WritableStore,
    key: str,
    rules: Sequence[str],
    *,
    into: str,
    mappings: str | None = None,
    pick: Pick = "first",
    curies: CurieMap,
    progress: Progress | None = None,
) -> tuple[int, list[RuleReport]]:
    """Apply rules to set ``key`` with the mapping data of set ``mappings`` (default ``key``); store as ``into``.

    Returns the number of annotations stored and one report per rule. The new set
    records its source, the rules and the mapping set; the view indexes are brought up to
    date afterwards (:func:`craftrdf.querying.indexes.write_set_batch`, reporting to ``progress``).
    """
    check_set_key(into)
    if into == key:
        raise ConfigError("postprocess writes a new set: give --into a key other than the source set")
    anns = fetch_annotations(store, key, curies=curies)
    result, reports = apply_rules(anns, rules, set_mappings(store, mappings or key, curies=curies), pick=pick)
    s = iri(set_iri(into))
    lines = [
        *set_nquads(into, module=None, variant=None, ontology=None, mappings=None),
        quad(s, iri(CRAFT.derivedFrom), iri(set_iri(key)), s),
        *(quad(s, iri(CRAFT.appliedRule), literal(r), s) for r in rules),
        *annotation_nquads(result, set_key=into, curies=curies),
    ]
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    write_set_batch(store, into, lines, result, digest=digest, curies=curies, progress=progress)
    return len(result), reports
