"""The slot error rate training selects by and reports: the official Shared Task scorer's, as ``craftrdf evaluate``.

Every document is scored by :func:`~craftrdf.evaluation.official.score_official` (Jaccard
boundaries, the official pairing and class renaming) with the Wang similarity over the
official scorer's class graph (:class:`~craftrdf.evaluation.official_graph.OfficialWang`),
read from the OWL axioms of the set's ontology graph in the store
(:func:`~craftrdf.evaluation.official_graph.store_official_graph`): ``is_a``, the genus of
an intersection, equivalences and unions, as owltools walks them. This is what
``craftrdf evaluate --store S`` computes, so a cross-validated score and a test score are
the numbers a user gets from the BioNLP files.

A set whose ontology the store does not hold is scored with exact class matches only: the
same scorer over a graph that declares every class seen and has no edge
(:func:`exact_wang`), so a class is similar to itself (1) and to nothing else (0).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from urllib.parse import unquote

from ..errors import DataWarning
from ..evaluation.bossy import Scores, total
from ..evaluation.official import official_class, score_official
from ..evaluation.official_graph import OfficialGraph, OfficialWang, store_official_graph
from ..iris import ontology_graph
from ..model import Annotation
from ..store import ReadableStore

__all__ = ["exact_wang", "official_scores", "store_wang"]


def store_wang(store: ReadableStore, ontology: str) -> OfficialWang:
    """The official scorer's Wang similarity over the ontology graph ``ontology`` (an IRI) of the store."""
    prefix = ontology_graph("")
    name = unquote(ontology[len(prefix) :]) if ontology.startswith(prefix) else ontology
    return OfficialWang(store_official_graph(store, name))


def exact_wang(classes: Iterable[str], set_key: str) -> OfficialWang:
    """A scorer that declares ``classes`` (as the set's scorer renames them) with no edge: exact classes only.

    >>> w = exact_wang(["PR:1", "PR:2"], "PR")
    >>> w.similarity("PR:1", "PR:1"), w.similarity("PR:1", "PR:2"), "PR:3" in w.graph
    (Decimal('1.0000000000'), Decimal('0E-10'), False)
    """
    declared = frozenset(official_class(c, set_key) for c in classes)
    return OfficialWang(OfficialGraph(declared, {}, "exact classes"))


def official_scores(
    set_key: str,
    gold: Mapping[str, Sequence[Annotation]],
    predictions: Mapping[str, Sequence[Annotation]],
    wang: OfficialWang | None,
) -> Scores:
    """Totals over the documents of ``gold`` (a document with no prediction has none), scored officially.

    ``wang`` None: exact classes only (:func:`exact_wang` over the classes of both sides).
    Annotations of classes the ontology does not declare are left out, as the official
    scorer does (its warnings are not repeated here: ``craftrdf evaluate`` shows them).
    """
    if wang is None:
        seen = {a.class_id for side in (gold, predictions) for d in gold for a in side.get(d, ())}
        wang = exact_wang(seen, set_key)
    per_doc = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        for doc in sorted(gold):
            per_doc.append(score_official(gold[doc], predictions.get(doc, ()), wang, set_key=set_key))
    return total(per_doc)
