"""Wang similarity inside SPARQL: ``craftrdf:wang(?a, ?b)`` and its kin, as pyoxigraph custom functions.

The functions (prefix ``craftrdf:`` = ``https://w3id.org/craftrdf/function#``) run in any query
craftrdf runs on an embedded store (``craftrdf query``, :func:`craftrdf.query`) and in the
queries of ``craftrdf serve``'s endpoint, computed by the same index as ``craftrdf similarity``:

- ``craftrdf:wang(a, b [, ontology [, weights]])``: Wang similarity (xsd:double) of two classes
  (IRIs, or CURIE strings), over every ontology graph merged or over ``ontology``, with the
  paper's weights (is_a 0.8, part_of 0.6) or ``weights`` (``"is_a=0.7,part_of=0.5"``), as
  ``craftrdf similarity A B [--ontology O] [--weights W]``;
- ``craftrdf:bossy(a, b [, ontology])``: the CRAFT Shared Task scorer's variant, as
  ``craftrdf similarity --method bossy``;
- ``craftrdf:wangGroup(as, bs [, ontology [, weights]])``: the best-match average of two sets of
  classes (as :meth:`~craftrdf.analysis.similarity.wang.WangIndex.group`), each given as one string of IRIs or
  CURIEs separated by spaces: what ``GROUP_CONCAT(STR(?class))`` makes of a set's annotations.

``ontology`` is an ontology graph (its IRI, or its name ``"UBERON+extensions"``) or an annotation
set (its graph IRI, or its key ``"UBERON_EXT"``), which stands for the ontology the set is
annotated with. A class the graph does not hold, or a set whose ontology the store lacks, gives
no value (the variable stays unbound, as for any SPARQL expression error); two classes sharing no
ancestor give 0. An ``ontology`` that names neither an ontology graph nor a set fails the query.

Cost. A call is one lookup in an index and one pair (or, for ``wangGroup``, at most
``group_terms`` by ``group_terms`` pairs). An index is built once per store, method, ontology
and weights and kept for later queries (at most ``cached_indexes`` of them, the least recently
used dropped first), so a server's worker builds each once; a query may make at most
``indexes_per_query`` indexes and resolve at most ``arguments_per_query`` distinct ontology
arguments. Past a limit, or for an unknown ontology or bad weights, the query fails with one
message naming it (:meth:`FunctionSession.check`, called once the rows have been read). A change
of the store's batches empties the cache.
"""

from __future__ import annotations

import logging
import math
import re
import threading
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias

import pyoxigraph as ox

from ...core.curie import CurieMap
from ...core.errors import ConfigError, CraftrdfError, QueryError
from ...core.iris import ontology_name
from ...core.vocab import FN, XSD
from ...querying.sets import resolve_ontology, resolve_set
from ...store.local import ReadableStore
from ..evaluation.official_index import store_official_index
from .definition import SimilarityWarning
from .graph import IndexSpec, Method, parse_weights, wang_index
from .wang import WangIndex

logger = logging.getLogger(__name__)

Term: TypeAlias = ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple
#: (method, ontology name or None for all merged, sorted weights)
IndexKey: TypeAlias = tuple[str, str | None, tuple[tuple[str, float], ...]]
_DOUBLE = ox.NamedNode(XSD.double)
_LIST_SPLIT = re.compile(r"[\s,]+")


@dataclass(frozen=True, slots=True)
class FunctionLimits:
    """Bounds on the work the functions may do; see the module docstring."""

    indexes_per_query: int = 3
    arguments_per_query: int = 16
    cached_indexes: int = 4
    group_terms: int = 500


class _Index:
    """The similarity of one method: ``craftrdf similarity``'s index (WangIndex, or the official one)."""

    def __init__(self, index: object) -> None:
        self.index = index

    def pair(self, a: str, b: str) -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SimilarityWarning)  # two ontologies: 0, as the command prints
            return float(self.index.pairs([a], [b], missing="nan")[0])  # type: ignore[attr-defined]

    def group(self, a: list[str], b: list[str]) -> float:
        if not isinstance(self.index, WangIndex):
            raise ConfigError("craftrdf:wangGroup works with the wang method only")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SimilarityWarning)  # classes outside the graph are left out
            return self.index.group(a, b)


class SimilarityFunctions:
    """The similarity functions of one store, with the indexes they have built (see the module docstring).

    One per store and process (:func:`functions_for`); each query takes a :meth:`session`.
    Holds the store weakly.
    """

    def __init__(self, store: ReadableStore, *, limits: FunctionLimits | None = None) -> None:
        self._store = weakref.ref(store)
        self.limits = limits or FunctionLimits()
        self.curies = CurieMap()
        self._lock = threading.Lock()
        self._indexes: OrderedDict[IndexKey, _Index] = OrderedDict()
        self._ontologies: dict[tuple[str, str], str | None] = {}
        self._fingerprint: frozenset[tuple[str, str]] | None = None
        #: indexes built so far (for tests and diagnostics)
        self.builds = 0

    def store(self) -> ReadableStore:
        """The store; QueryError once it has been closed and collected."""
        store = self._store()
        if store is None:
            raise QueryError("the store of these similarity functions is gone")
        return store

    def session(self) -> FunctionSession:
        """The functions for one query (a fresh count of index builds and ontology arguments)."""
        return FunctionSession(self)

    def refresh(self) -> None:
        """Forget every index and resolved argument when the store's batches changed since last asked."""
        store = self.store()
        fingerprint = frozenset((b.graph, b.digest) for b in store.batches().values())
        with self._lock:
            if fingerprint != self._fingerprint:
                self._indexes.clear()
                self._ontologies.clear()
                self._fingerprint = fingerprint

    def resolve_ontology(self, kind: str, value: str) -> str | None:
        """The ontology graph's name an argument stands for (cached); ConfigError when it names none."""
        key = (kind, value)
        with self._lock:
            if key in self._ontologies:
                return self._ontologies[key]
        store = self.store()
        name: str | None
        if kind == "iri":
            try:
                name = ontology_name(value)
            except ConfigError:
                prefix = "https://w3id.org/craftrdf/set/"
                if not value.startswith(prefix):
                    raise ConfigError(f"{value} is neither an ontology graph nor an annotation set") from None
                name = _set_ontology(store, value[len(prefix) :])
            else:
                resolve_ontology(store, name)
        else:
            try:
                resolve_ontology(store, value)
                name = value
            except ConfigError:
                name = _set_ontology(store, value)
        with self._lock:
            self._ontologies[key] = name
        return name

    def index(self, key: IndexKey) -> _Index | None:
        """The cached index of ``key`` (marked as just used), or None."""
        with self._lock:
            hit = self._indexes.get(key)
            if hit is not None:
                self._indexes.move_to_end(key)
            return hit

    def build(self, key: IndexKey) -> _Index:
        """Build the index of ``key`` as ``craftrdf similarity`` does, and cache it (least recently used out)."""
        method, ontology, weights = key
        store = self.store()
        if method == "bossy":
            built = _Index(store_official_index(store, ontology=ontology, curies=self.curies))
        else:
            built = _Index(wang_index(store, IndexSpec(weights=dict(weights) or None, ontology=ontology)))
        logger.info("similarity functions: built the %s index of %s", method, ontology or "every ontology graph")
        with self._lock:
            self.builds += 1
            self._indexes[key] = built
            while len(self._indexes) > self.limits.cached_indexes:
                self._indexes.popitem(last=False)
        return built


def _set_ontology(store: ReadableStore, key: str) -> str:
    """The ontology name of annotation set ``key``, "" when it names none; ConfigError when there is no such set."""
    ref = resolve_set(store, key)
    return "" if ref.ontology is None else ontology_name(ref.ontology)


class FunctionSession:
    """The functions of one query: :attr:`functions` for ``custom_functions``, then :meth:`check`.

    pyoxigraph turns an exception raised by a custom function into an unbound value, so a
    problem that must not pass silently (a limit reached, an unknown ontology, bad weights) is
    remembered here and raised by :meth:`check` once the query's rows have been read.
    """

    def __init__(self, owner: SimilarityFunctions) -> None:
        self._owner = owner
        self._local: dict[IndexKey, _Index] = {}
        self._arguments: dict[tuple[str, str], str | None] = {}
        self._weights: dict[str, tuple[tuple[str, float], ...]] = {}
        self._curies: dict[str, str] = {}
        self._refreshed = False
        self._built = 0
        #: the first problem met, if any
        self.error: str | None = None
        self.functions: dict[ox.NamedNode, Callable[..., Term | None]] = {
            ox.NamedNode(FN.wang): self._wang,
            ox.NamedNode(FN.bossy): self._bossy,
            ox.NamedNode(FN.wangGroup): self._group,
        }

    def check(self) -> None:
        """Raise QueryError with the first problem a function met during the query, if any."""
        if self.error is not None:
            raise QueryError(self.error)

    # -- the functions ---------------------------------------------------------------------

    def _wang(self, *args: Term) -> ox.Literal | None:
        return self._call("wang", "wang", args, group=False)

    def _bossy(self, *args: Term) -> ox.Literal | None:
        return self._call("bossy", "bossy", args, group=False)

    def _group(self, *args: Term) -> ox.Literal | None:
        return self._call("wangGroup", "wang", args, group=True)

    def _call(self, name: str, method: Method, args: tuple[Term, ...], *, group: bool) -> ox.Literal | None:
        most = 3 if method == "bossy" else 4
        if not 2 <= len(args) <= most:
            self._fail(f"craftrdf:{name} takes 2 to {most} arguments, got {len(args)}")
            return None
        try:
            key = self._key(method, args[2] if len(args) > 2 else None, args[3] if len(args) > 3 else None)
            if key[1] == "":  # a set annotated with no ontology of the store: no value, as for an unknown class
                return None
            index = self._index(key)
            if group:
                value = index.group(self._terms(args[0]), self._terms(args[1]))
            else:
                a, b = self._term(args[0]), self._term(args[1])
                if a is None or b is None:
                    return None
                value = index.pair(a, b)
        except (CraftrdfError, ValueError) as exc:
            self._fail(f"craftrdf:{name}: {exc}")
            return None
        return None if math.isnan(value) else ox.Literal(repr(value), datatype=_DOUBLE)

    def _fail(self, message: str) -> None:
        logger.debug("%s", message)
        if self.error is None:
            self.error = message

    # -- arguments -------------------------------------------------------------------------

    def _term(self, term: Term) -> str | None:
        """A class argument as a CURIE: an IRI compressed, a string taken as a CURIE; else None."""
        if isinstance(term, ox.NamedNode):
            hit = self._curies.get(term.value)
            if hit is None:
                hit = self._curies[term.value] = self._owner.curies.compress(term.value)
            return hit
        if isinstance(term, ox.Literal) and self._owner.curies.is_curie(term.value):
            return term.value
        return None

    def _terms(self, term: Term) -> list[str]:
        """A list argument's classes, as CURIEs; ConfigError past the limit."""
        if not isinstance(term, ox.Literal):
            raise ConfigError("a set of classes is one string of IRIs or CURIEs (GROUP_CONCAT(STR(?class)))")
        names = [t for t in _LIST_SPLIT.split(term.value) if t]
        if len(names) > self._owner.limits.group_terms:
            raise ConfigError(f"{len(names):,} classes in a set; the limit is {self._owner.limits.group_terms:,}")
        out = []
        for name in names:
            node = ox.NamedNode(name) if name.startswith(("http://", "https://")) else ox.Literal(name)
            curie = self._term(node)
            if curie is not None:
                out.append(curie)
        return out

    def _key(self, method: Method, ontology: Term | None, weights: Term | None) -> IndexKey:
        name: str | None = None
        if ontology is not None:
            if not isinstance(ontology, (ox.NamedNode, ox.Literal)):
                raise ConfigError("the ontology argument is an ontology graph or an annotation set (IRI or name)")
            arg = ("iri" if isinstance(ontology, ox.NamedNode) else "name", ontology.value)
            if arg not in self._arguments:
                if len(self._arguments) >= self._owner.limits.arguments_per_query:
                    raise ConfigError(
                        f"more than {self._owner.limits.arguments_per_query} distinct ontology arguments in one query"
                    )
                self._refresh()
                self._arguments[arg] = self._owner.resolve_ontology(*arg)
            name = self._arguments[arg]
        parsed: tuple[tuple[str, float], ...] = ()
        if weights is not None:
            if not isinstance(weights, ox.Literal):
                raise ConfigError('weights are a string such as "is_a=0.8,part_of=0.6"')
            hit = self._weights.get(weights.value)
            if hit is None:
                hit = self._weights[weights.value] = tuple(sorted(parse_weights(weights.value).items()))
            parsed = hit
        return (method, name, parsed)

    def _refresh(self) -> None:
        if not self._refreshed:
            self._owner.refresh()
            self._refreshed = True

    def _index(self, key: IndexKey) -> _Index:
        hit = self._local.get(key)
        if hit is not None:
            return hit
        self._refresh()
        hit = self._owner.index(key)
        if hit is None:
            if self._built >= self._owner.limits.indexes_per_query:
                raise ConfigError(
                    f"the query needs more than {self._owner.limits.indexes_per_query} similarity indexes built "
                    "(one per method, ontology and weights); split it, or ask again once they are built"
                )
            self._built += 1
            hit = self._owner.build(key)
        self._local[key] = hit
        return hit


_REGISTRY: weakref.WeakKeyDictionary[ReadableStore, SimilarityFunctions] = weakref.WeakKeyDictionary()
_REGISTRY_LOCK = threading.Lock()


def functions_for(store: ReadableStore, *, limits: FunctionLimits | None = None) -> SimilarityFunctions:
    """The :class:`SimilarityFunctions` of ``store`` in this process, made on first use.

    ``limits`` applies when they are made (a server passes its own before the first query).
    """
    with _REGISTRY_LOCK:
        hit = _REGISTRY.get(store)
        if hit is None:
            hit = _REGISTRY[store] = SimilarityFunctions(store, limits=limits)
        return hit
