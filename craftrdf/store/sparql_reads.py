"""Reads of the store contract answered with SPARQL, for stores that can only be queried.

:class:`SparqlReads` gives :class:`~craftrdf.store.local.ReadableStore`'s pattern reads, graph
checks and batch listing from the class's own ``query``, so library code written against the
embedded store runs unchanged on a remote endpoint (:mod:`craftrdf.store.remote`) and on the
server's worker pool (:mod:`craftrdf.publishing.server.workers`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import pyoxigraph as ox

from ..core.errors import StoreError
from .local import (
    BATCHES_QUERY,
    BatchInfo,
    CustomFunctions,
    Object,
    QueryAnswer,
    Subject,
    Substitutions,
    batches_of,
    solutions,
)

_PATTERN = "SELECT ?s ?p ?o ?g WHERE { GRAPH ?g { ?s ?p ?o } }"
_DEFAULT_PATTERN = "SELECT ?s ?p ?o WHERE { ?s ?p ?o }"
_GRAPH_EXISTS = "SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } } LIMIT 1"
_COUNT = "SELECT (COUNT(*) AS ?n) WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }"


class SparqlReads:
    """The reads of :class:`ReadableStore` answered with SPARQL through the class's own ``query``; a mixin.

    For stores that can only be queried (a remote endpoint, the server's worker pool), so
    library code that reads by pattern or lists batches works on them unchanged.
    """

    __slots__ = ()

    def query(
        self,
        sparql: str,
        *,
        substitutions: Substitutions | None = None,
        prefixes: Mapping[str, str] | None = None,
        named_graphs: Sequence[str] | None = None,
        custom_functions: CustomFunctions | None = None,
    ) -> QueryAnswer:
        raise NotImplementedError

    def _select(self, sparql: str, **bindings: ox.NamedNode | ox.Literal) -> ox.QuerySolutions:
        return solutions(self.query(sparql, substitutions=bindings))

    def quads_for_pattern(
        self,
        subject: Subject | None,
        predicate: ox.NamedNode | None,
        object: Object | None,
        graph_name: ox.NamedNode | ox.DefaultGraph | None = None,
    ) -> Iterator[ox.Quad]:
        """The quads matching a pattern (None is a wildcard), by a SELECT with the pattern's terms bound."""
        bindings: dict[str, ox.NamedNode | ox.Literal] = {}
        for name, term in (("s", subject), ("p", predicate), ("o", object)):
            if isinstance(term, ox.BlankNode):
                raise StoreError("blank nodes cannot be sent in a query to this store")
            if term is not None:
                bindings[name] = term
        if isinstance(graph_name, ox.DefaultGraph):
            return (
                ox.Quad(_subject(r["s"]), _predicate(r["p"]), _object(r["o"]), ox.DefaultGraph())
                for r in self._select(_DEFAULT_PATTERN, **bindings)
            )
        if graph_name is not None:
            bindings["g"] = graph_name
        return (
            ox.Quad(_subject(r["s"]), _predicate(r["p"]), _object(r["o"]), _predicate(r["g"]))
            for r in self._select(_PATTERN, **bindings)
        )

    def contains_named_graph(self, graph: str) -> bool:
        """True when the named graph holds at least one triple."""
        return any(True for _ in self._select(_GRAPH_EXISTS, g=ox.NamedNode(graph)))

    def __len__(self) -> int:
        rows = list(self._select(_COUNT))
        n = rows[0]["n"] if rows else None
        return int(n.value) if isinstance(n, ox.Literal) else 0

    def batches(self) -> dict[str, BatchInfo]:
        """Every batch, by graph IRI (read from the manifests, as the embedded store does)."""
        return batches_of(self._select(BATCHES_QUERY))

    def has_batch(self, graph: str, digest: str) -> bool:
        """True when ``graph`` holds the manifest of input ``digest``."""
        return any(b.digest == digest for b in batches_of(self._select(BATCHES_QUERY, g=ox.NamedNode(graph))).values())


def _subject(term: object) -> Subject:
    if isinstance(term, (ox.NamedNode, ox.BlankNode)):
        return term
    raise StoreError(f"the store answered a subject that is not an IRI or blank node: {term!r}")


def _predicate(term: object) -> ox.NamedNode:
    if isinstance(term, ox.NamedNode):
        return term
    raise StoreError(f"the store answered a predicate or graph that is not an IRI: {term!r}")


def _object(term: object) -> Object:
    if isinstance(term, (ox.NamedNode, ox.BlankNode, ox.Literal)):
        return term
    raise StoreError(f"the store answered an object that is not an IRI, blank node or literal: {term!r}")
