"""The official CRAFT Shared Task score of one document, rule for rule.

What :func:`score_official` does, in the order the official code does it (the source
of each rule is cited in ``docs/evaluation.md``):

1. **Parallel classes** (``CraftConceptEvaluationUtil.translateExtensionToBaseNamespace``,
   ``+extensions`` sets other than ``GO_MF_EXT``): a class matching ``[A-Z]+_EXT:\\d+``
   loses ``_EXT`` (``SO_EXT:0000704`` -> ``SO:0000704``; ``NCBITaxon_EXT:1`` has lower-case
   letters and is kept), and so does one matching the PR pattern (see :func:`official_class`).
2. **One annotation per T id**: the BioNLP reader keeps annotations in a map by T id, so a
   repeated id keeps the last line. Nothing else is merged: each annotation carries its T id,
   so two lines with the same span and class stay two annotations.
3. **Unknown classes** (``BossyMetric.populate*IdToAnnotMap``): annotations whose class the
   ontology does not declare are dropped from both sides, with a warning.
4. **Candidates** (``SloppySpanComparator``): a reference and a prediction pair up when one
   span of each overlap: ``[a, b)`` and ``[c, d)`` with ``b > a`` and ``d > c`` overlap when they
   share a character; a zero-length span ``[p, p)`` overlaps ``[c, d)`` when ``c <= p <= d``;
   two zero-length spans never overlap.
5. **Pair score** = boundary x Wang similarity, each rounded half-up to 10 decimals, the
   product exact (``BossyMetric.computeAnnotationSimilarity``). JACCARD counts characters
   (zero-length spans have none), so an overlap through a zero-length span scores 0.
6. **Pairing** (``BossyMetric.finalizeScoredMatches``): pairs sorted by score, highest
   first, with a stable sort of the list built by iterating a Java ``HashMap`` from
   ``"test_<i>"`` to a ``HashSet`` of ``"ref_<j>"``; a pair is kept when neither side is
   taken. Ties therefore follow Java's hash order of those strings (:func:`java_hash_order`),
   reproduced here. A kept pair scoring 0 is still a pair: a substitution, not a deletion
   plus an insertion.
7. **Counts and rates** (``SlotErrorRate``): M = sum of kept scores (exact), I and D the
   unpaired sides, N and P the counts after the ontology filter; SER, precision, recall and
   F1 divided to 10 decimals half-up (F1 from the rounded P and R), and written to 4
   decimals half-up (:attr:`~.scores.Scores.rates`, :func:`official_row`).

The counts are a :class:`~.scores.Scores`, the one record that ``craftrdf evaluate``'s
files and table, the sweeps and training read.
"""

from __future__ import annotations

import re
import warnings
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal, localcontext
from functools import lru_cache
from typing import Literal

from ...core.errors import DataWarning
from ...core.model import Annotation, Span
from .official_graph import OfficialGraph, OfficialWang
from .scores import Scores, total, written

Boundary = Literal["exact", "jaccard"]

_EXT_DIGITS = re.compile(r"[A-Z]+_EXT:[0-9]+")
# As written in CraftConceptEvaluationUtil: the alternation binds loosest, so the second
# branch is a bare UniProt accession (which has no "_EXT" to remove).
_PR_EXT = re.compile(r"PR_EXT:[OPQ][0-9][A-Z0-9]{3}[0-9]-?[0-9]*|[A-NR-Z][0-9]([A-Z][A-Z0-9]{2}[0-9]){1,2}-?[0-9]*")


def renames_parallel(set_key: str | None) -> bool:
    """Whether the official scorer renames parallel-hierarchy classes in set ``set_key``.

    True for ``+extensions`` sets (key ending in ``_EXT``, any case) other than ``GO_MF_EXT``.

    >>> renames_parallel("SO_EXT"), renames_parallel("GO_MF_EXT"), renames_parallel("SO")
    (True, False, False)
    """
    key = (set_key or "").upper()
    return key.endswith("_EXT") and key != "GO_MF_EXT"


def official_class(class_id: str, set_key: str | None) -> str:
    """The class id the official scorer compares, for set ``set_key`` (its parallel-class renaming).

    >>> official_class("SO_EXT:0000704", "SO_EXT"), official_class("SO_EXT:0000704", "SO")
    ('SO:0000704', 'SO_EXT:0000704')
    >>> official_class("GO_EXT:0000001", "GO_MF_EXT"), official_class("NCBITaxon_EXT:9606", "NCBITAXON_EXT")
    ('GO_EXT:0000001', 'NCBITaxon_EXT:9606')
    >>> official_class("PR_EXT:P12345", "PR_EXT"), official_class("PR_EXT:A0A123B4C5", "PR_EXT")
    ('PR:P12345', 'PR_EXT:A0A123B4C5')
    """
    if not renames_parallel(set_key):
        return class_id
    if _EXT_DIGITS.fullmatch(class_id):
        class_id = class_id.replace("_EXT", "")
    if _PR_EXT.fullmatch(class_id):
        class_id = class_id.replace("_EXT", "")
    return class_id


# -- Java's hash order --------------------------------------------------------------------------


def java_string_hash(text: str) -> int:
    """``String.hashCode()`` as an unsigned 32-bit int (UTF-16 code units).

    >>> java_string_hash("test_0"), java_string_hash("")
    (3417797571, 0)
    """
    h = 0
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h


@lru_cache(maxsize=1 << 14)
def _key_hash(key: str) -> int:
    """``java_string_hash`` of a ``test_<i>``/``ref_<j>`` key, remembered (a sweep asks for the same few thousand)."""
    return java_string_hash(key)


def java_hash_order(keys: Sequence[str], *, table_size: int = 0) -> list[str]:
    """The iteration order of a default ``java.util.HashMap``/``HashSet`` given insertion order.

    The table starts at 16 buckets and doubles while the size exceeds 3/4 of it; a key's
    bucket is ``(h ^ (h >>> 16)) & (buckets - 1)``; a bucket lists its keys in insertion
    order (a resize keeps that order). Buckets that would turn into trees (8 or more keys
    in one bucket) are not modelled. Repeated keys count once, at their first insertion.
    ``table_size`` is the size of the whole map when ``keys`` are only some of its keys
    (the table size decides the buckets).

    >>> java_hash_order(["ref_0", "ref_7", "ref_14"])  # what a JVM prints for this HashSet
    ['ref_0', 'ref_14', 'ref_7']
    """
    unique = list(dict.fromkeys(keys))
    if len(unique) < 2:  # most candidate lists: nothing to order
        return unique
    buckets = 16
    while max(len(unique), table_size) > buckets * 3 // 4:
        buckets *= 2

    def bucket(item: tuple[int, str]) -> tuple[int, int]:
        h = _key_hash(item[1])
        return ((h ^ (h >> 16)) & (buckets - 1), item[0])

    return [k for _, k in sorted(enumerate(unique), key=bucket)]


# -- spans --------------------------------------------------------------------------------------


def spans_overlap(a: Span, b: Span) -> bool:
    """``SpanComparator.overlaps(Span, Span) == 0``: the official overlap test of two spans.

    >>> spans_overlap(Span(0, 5), Span(5, 9)), spans_overlap(Span(5, 5), Span(0, 5))
    (False, True)
    >>> spans_overlap(Span(2, 2), Span(2, 2))
    False
    """
    s0, e0, s1, e1 = a.start, a.end, b.start, b.end
    return (
        (s1 <= s0 < e1) or (s1 < e0 <= e1) or (s0 <= s1 and e0 > s1) or (e0 >= e1 and s0 < e1)
    )  # fmt: skip


def _overlap(a: Sequence[Span], b: Sequence[Span]) -> bool:
    return any(spans_overlap(x, y) for x in a for y in b)


def _chars(spans: Iterable[Span]) -> set[int]:
    return {i for s in spans for i in range(s.start, s.end)}


def _boundary(ref: Annotation, pred: Annotation, boundary: Boundary) -> Decimal:
    if boundary == "exact":
        return Decimal(1) if sorted(ref.spans) == sorted(pred.spans) else Decimal(0)
    if len(ref.spans) == 1 and len(pred.spans) == 1:  # the usual case, without building character sets
        (a,), (b,) = ref.spans, pred.spans
        common = max(0, min(a.end, b.end) - max(a.start, b.start))
        size_r, size_p = max(0, a.end - a.start), max(0, b.end - b.start)
    else:
        r, p = _chars(ref.spans), _chars(pred.spans)
        common, size_r, size_p = len(r & p), len(r), len(p)
    union = size_r + size_p - common
    # round_half_up(Fraction(common, union)) in integers (common >= 0): the same Decimal, no Fraction
    return Decimal((2 * common * 10**10 + union) // (2 * union)).scaleb(-10)


def _aggregate(a: Annotation) -> tuple[int, int]:
    spans = a.spans
    if len(spans) == 1:
        return spans[0].start, spans[0].end
    return (min(s.start for s in spans), max(s.end for s in spans)) if spans else (0, 0)


# -- one document -------------------------------------------------------------------------------


def prepare_official(
    annotations: Sequence[Annotation], wang: OfficialWang, set_key: str | None, unknown: set[str] | None = None
) -> list[Annotation]:
    """One side of a document as the official scorer compares it (rules 1-3), sorted by aggregate span (stable).

    Classes renamed (:func:`official_class`), one annotation per id (the last), classes
    ``wang``'s graph does not declare left out (added to ``unknown`` when given). A side
    prepared once can be scored many times with :func:`score_prepared`.
    """
    by_id: dict[str, Annotation] = {}
    for a in annotations:
        c = official_class(a.class_id, set_key)
        by_id.pop(a.id, None)  # a repeated id takes the place of the last line, as a HashMap put
        by_id[a.id] = a if c == a.class_id else Annotation(a.id, a.document, c, a.spans, a.text, a.annotator)
    kept = []
    for a in by_id.values():
        if a.class_id in wang.graph:
            kept.append(a)
        elif unknown is not None:
            unknown.add(a.class_id)
    return sorted(kept, key=_aggregate)


def _candidates(refs: Sequence[Annotation], preds: Sequence[Annotation]) -> list[tuple[int, int]]:
    """(ref, pred) positions that overlap, refs in order, preds in Java's order for each ref."""
    agg = [_aggregate(p) for p in preds]
    starts = [a[0] for a in agg]
    reach = max((e - s for s, e in agg), default=0)
    # the prediction list the scorer walks: sorted by aggregate span, ties in hash order of test_<i>
    groups: dict[tuple[int, int], list[int]] = {}
    for j in range(len(preds)):
        groups.setdefault(agg[j], []).append(j)
    walk: list[int] = []
    for span in sorted(groups):
        js = groups[span]
        if len(js) == 1:  # most spans: no tie to order
            walk.append(js[0])
            continue
        walk.extend(int(k[5:]) for k in java_hash_order([f"test_{j}" for j in js], table_size=len(preds)))
    rank = {j: n for n, j in enumerate(walk)}
    out: list[tuple[int, int]] = []
    for i, r in enumerate(refs):
        rs, re_ = _aggregate(r)
        lo, hi = bisect_left(starts, rs - reach), bisect_right(starts, re_)
        hits = [j for j in range(lo, hi) if agg[j][1] >= rs and _overlap(r.spans, preds[j].spans)]
        out.extend((i, j) for j in sorted(hits, key=rank.__getitem__))
    return out


def score_official(
    refs: Sequence[Annotation],
    preds: Sequence[Annotation],
    wang: OfficialWang,
    *,
    boundary: Boundary = "jaccard",
    set_key: str | None = None,
) -> Scores:
    """The official :class:`Scores` of one document.

    ``wang`` holds the set's :class:`~craftrdf.analysis.evaluation.official_graph.OfficialGraph`;
    annotations of classes it does not declare are dropped with one DataWarning.
    """
    if boundary not in ("exact", "jaccard"):
        raise ValueError(f"unknown boundary {boundary!r}: expected 'exact' or 'jaccard'")
    unknown: set[str] = set()
    r, p = prepare_official(refs, wang, set_key, unknown), prepare_official(preds, wang, set_key, unknown)
    if unknown:
        doc = next((a.document for a in (*refs, *preds)), "?")
        warnings.warn(
            f"document {doc}: left out annotations of {len(unknown)} class(es) the ontology does not declare: "
            f"{', '.join(sorted(unknown))}",
            DataWarning,
            stacklevel=2,
        )
    return score_prepared(r, p, wang, boundary=boundary)


def score_prepared(
    refs: Sequence[Annotation], preds: Sequence[Annotation], wang: OfficialWang, *, boundary: Boundary = "jaccard"
) -> Scores:
    """:func:`score_official` of two sides already through :func:`prepare_official` (rules 4-7)."""
    r, p = refs, preds
    per_test: dict[int, list[int]] = {}
    for i, j in _candidates(r, p):
        per_test.setdefault(j, []).append(i)
    scored: list[tuple[Decimal, int, int]] = []
    with localcontext() as ctx:
        ctx.prec = 80
        for tkey in java_hash_order([f"test_{j}" for j in per_test]):
            j = int(tkey[5:])
            candidates = per_test[j]
            if len(candidates) > 1:
                candidates = [int(k[4:]) for k in java_hash_order([f"ref_{i}" for i in candidates])]
            for i in candidates:
                b = _boundary(r[i], p[j], boundary)
                score = b * wang.similarity(r[i].class_id, p[j].class_id) if b else Decimal(0)
                scored.append((score, i, j))
        scored.sort(key=lambda x: x[0], reverse=True)  # stable, as Collections.sort
        used_r: set[int] = set()
        used_p: set[int] = set()
        m = Decimal(0)
        for score, i, j in scored:
            if i not in used_r and j not in used_p:
                used_r.add(i)
                used_p.add(j)
                m += score
    kept = len(used_r)
    return Scores(float(m), len(p) - kept, len(r) - kept, len(r), len(p), m)


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
    for doc in sorted(gold):
        r = prepare_official(gold[doc], wang, set_key)
        per_doc.append(score_prepared(r, prepare_official(predictions.get(doc, ()), wang, set_key), wang))
    return total(per_doc)


def exact_wang(classes: Iterable[str], set_key: str) -> OfficialWang:
    """A scorer that declares ``classes`` (as the set's scorer renames them) with no edge: exact classes only.

    >>> w = exact_wang(["PR:1", "PR:2"], "PR")
    >>> w.similarity("PR:1", "PR:1"), w.similarity("PR:1", "PR:2"), "PR:3" in w.graph
    (Decimal('1.0000000000'), Decimal('0E-10'), False)
    """
    declared = frozenset(official_class(c, set_key) for c in classes)
    return OfficialWang(OfficialGraph(declared, {}, "exact classes"))


# -- the report row ------------------------------------------------------------------------------


def official_row(name: str, s: Scores) -> str:
    """One ``<key>_results.tsv`` row as ``CraftConceptEvaluationUtil.writeSlotErrorRate`` writes it.

    >>> official_row("TOTAL", Scores(2.65, 0, 0, 3, 3, Decimal("2.65")))
    'TOTAL\\t0.3500\\t0\\t0\\t2.6500\\t3\\t3\\t0.1167\\t0.8833\\t0.8833\\t0.8833'
    """
    r = s.rates
    cols = [
        name, written(r.substitutions), s.insertions, s.deletions, written(s.exact), s.ref_count, s.pred_count,
        written(r.ser), written(r.precision), written(r.recall), written(r.f1),
    ]  # fmt: skip
    return "\t".join(str(c) for c in cols)
