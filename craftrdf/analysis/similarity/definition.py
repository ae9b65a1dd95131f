"""Wang et al. (2007) semantic similarity, as the paper defines it: one term or pair at a time.

The definitions (S-values, semantic value, similarity) are in :mod:`.wang`'s docstring;
:class:`~craftrdf.analysis.similarity.wang.WangIndex` computes the same numbers for many pairs at
once. The weights, the error types and the weighted DAG built from edges live here too.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping
from typing import Literal

import numpy as np
import numpy.typing as npt

from ...core.errors import CraftrdfError, DataWarning, InputError

#: child -> {parent: weight of the edge child -> parent}
WeightedDag = Mapping[str, Mapping[str, float]]

#: The paper's weights (Wang et al. 2007, section 2.2): is_a 0.8, part_of 0.6.
DEFAULT_WEIGHTS: Mapping[str, float] = {"is_a": 0.8, "part_of": 0.6}
#: The weight of a relation that is followed but given no weight of its own: the
#: paper's only non-is_a weight (part_of), which goatools also uses for ``regulates``.
DEFAULT_RELATION_WEIGHT = 0.6
#: The CRAFT Shared Task variant (Bossy et al. 2013, as in the CRAFT evaluation):
#: is_a only, one weight 0.65, so S_A(t) = 0.65 ** (shortest is_a distance from A to t).
BOSSY_WEIGHTS: Mapping[str, float] = {"is_a": 0.65}

Combine = Literal["max", "avg", "rcmax", "bma"]
Missing = Literal["raise", "nan"]
#: How :meth:`WangIndex.pairs` computes: compiled kernels if possible, always, or never.
Engine = Literal["auto", "numba", "numpy"]


class UnknownTermError(CraftrdfError, LookupError):
    """A term that is not in the ontology graph similarity is computed on."""

    def __init__(self, term: str, where: str = "the ontology graph") -> None:
        self.term = term
        super().__init__(f"unknown term {term!r}: not in {where}")


class CycleError(InputError):
    """The chosen relations form a cycle, so there is no DAG to compute S-values on."""


class SimilarityWarning(DataWarning):
    """A similarity that is defined but probably not what the caller meant (no common ancestor)."""


def weighted_dag(
    edges: Iterable[tuple[str, str, str]],
    weights: Mapping[str, float],
    *,
    nodes: Iterable[str] = (),
) -> dict[str, dict[str, float]]:
    """A :data:`WeightedDag` from ``(child, relation, parent)`` triples.

    Only relations named in ``weights`` are kept; when two relations join the same
    child and parent, the larger weight wins (it gives the larger S-values). Every
    term of ``nodes`` is present, with no parents if it has none.

    >>> weighted_dag([("b", "is_a", "a"), ("b", "part_of", "a"), ("c", "has_part", "b")],
    ...              {"is_a": 0.8, "part_of": 0.6}, nodes=["c"])
    {'c': {}, 'b': {'a': 0.8}, 'a': {}}
    """
    dag: dict[str, dict[str, float]] = {n: {} for n in nodes}
    for child, rel, parent in edges:
        w = weights.get(rel)
        if w is None:
            continue
        parents = dag.setdefault(child, {})
        dag.setdefault(parent, {})
        if child == parent:
            continue
        if w > parents.get(parent, -1.0):
            parents[parent] = w
    return dag


def semantic_values(dag: WeightedDag, term: str) -> dict[str, float]:
    """The S-values of every term in DAG(term), computed as the definition reads.

    Walks DAG(term) from ``term`` towards the roots, giving each ancestor the maximum,
    over its children within DAG(term), of weight times the child's S-value.
    Raises UnknownTermError if ``term`` is not in ``dag``, CycleError on a cycle.

    >>> dag = {"b": {"a": 0.8}, "c": {"a": 0.6, "b": 0.8}, "a": {}}
    >>> semantic_values(dag, "c")
    {'c': 1.0, 'b': 0.8, 'a': 0.6400000000000001}
    """
    if term not in dag:
        raise UnknownTermError(term)
    # DAG(term): everything reachable over parent edges; and the children within it.
    members = {term}
    stack = [term]
    while stack:
        for parent in dag.get(stack.pop(), {}):
            if parent not in members:
                members.add(parent)
                stack.append(parent)
    children: dict[str, list[str]] = {t: [] for t in members}
    for t in members:
        for parent in dag.get(t, {}):
            children[parent].append(t)
    # Kahn's algorithm from ``term`` upwards: a term is ready once all its children are done.
    waiting = {t: len(children[t]) for t in members}
    if waiting[term]:
        raise CycleError(f"the relations followed from {term} lead back to it")
    s: dict[str, float] = {}
    ready = [term]
    while ready:
        t = ready.pop()
        s[t] = 1.0 if t == term else max(dag[c][t] * s[c] for c in children[t])
        for parent in dag.get(t, {}):
            waiting[parent] -= 1
            if waiting[parent] == 0:
                ready.append(parent)
    if len(s) != len(members):
        raise CycleError(f"the relations followed from {term} form a cycle among {sorted(set(members) - set(s))[:5]}")
    return s


def semantic_value(dag: WeightedDag, term: str) -> float:
    """SV(term): the sum of the S-values of DAG(term).

    >>> semantic_value({"b": {"a": 0.8}, "a": {}}, "b")
    1.8
    """
    return math.fsum(semantic_values(dag, term).values())


def wang_similarity(dag: WeightedDag, a: str, b: str) -> float:
    """Sim(a, b) by the definition, for one pair (use :class:`WangIndex` for many).

    >>> dag = {"b": {"a": 0.8}, "c": {"a": 0.8}, "a": {}}
    >>> round(wang_similarity(dag, "b", "c"), 6)  # (0.8 + 0.8) / (1.8 + 1.8)
    0.444444
    """
    if a == b:
        if a not in dag:
            raise UnknownTermError(a)
        return 1.0
    sa, sb = semantic_values(dag, a), semantic_values(dag, b)
    common = sa.keys() & sb.keys()
    num = math.fsum(sa[t] + sb[t] for t in common)
    return num / (math.fsum(sa.values()) + math.fsum(sb.values()))


def known_terms(a: Iterable[str], b: Iterable[str], index: Mapping[str, int]) -> tuple[list[str], list[str]]:
    """Each set once per class, in order, without the classes ``index`` lacks (one SimilarityWarning for those)."""
    ga, gb = list(dict.fromkeys(a)), list(dict.fromkeys(b))
    unknown = [t for t in ga + gb if t not in index]
    if unknown:
        warnings.warn(
            f"{len(unknown)} term(s) not in the ontology graph left out, e.g. {unknown[:3]}",
            SimilarityWarning,
            stacklevel=3,
        )
    return [t for t in ga if t in index], [t for t in gb if t in index]


def combine_scores(scores: npt.ArrayLike, how: Combine = "bma") -> float:
    """Combine a term-by-term similarity matrix of two term sets into one score.

    As GOSemSim's ``mgoSim`` (``combine=``): ``max`` of all scores, ``avg`` of all
    scores, ``rcmax`` the larger of the mean row maximum and mean column maximum, and
    ``bma`` (best-match average) the sum of row maxima and column maxima divided by
    the number of rows plus columns. NaN when either set is empty. As GOSemSim's
    ``combineScores`` (2.24), a matrix of one row or one column is a vector: ``avg``
    gives its mean and every other method its maximum. (GOSemSim rounds to 3 decimals;
    this does not.)

    >>> combine_scores([[1.0, 0.2], [0.4, 0.6]], "bma")  # (1 + .6 + 1 + .6) / 4
    0.8
    >>> combine_scores([[1.0, 0.2], [0.4, 0.6]], "avg")
    0.55
    >>> combine_scores([[0.2, 0.6]], "bma")  # one row: the maximum
    0.6
    """
    m = np.asarray(scores, dtype=float)
    if m.ndim != 2:
        raise ValueError("scores must be a 2-D matrix")
    if m.size == 0:
        return math.nan
    if how == "avg":
        return float(m.mean())
    if how == "max" or (how in ("rcmax", "bma") and 1 in m.shape):
        return float(m.max())
    rows, cols = m.max(axis=1), m.max(axis=0)
    if how == "rcmax":
        return float(max(rows.mean(), cols.mean()))
    if how == "bma":
        return float((rows.sum() + cols.sum()) / (m.shape[0] + m.shape[1]))
    raise ValueError(f"unknown combine method {how!r}: use max, avg, rcmax or bma")
