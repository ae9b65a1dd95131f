"""A read-only store whose queries run in the server's :class:`~craftrdf.publishing.server.workers.WorkerPool`.

Library code written for an ``AnnotationStore`` (the article viewer) runs unchanged over it, under the
server's time limit and in a lane of its own, so viewer pages never take the protocol's query workers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pyoxigraph as ox

from ...core.errors import QueryError
from ...store.local import DerivedCache
from ...store.sparql_reads import SparqlReads
from .guard import RequestRefused
from .jobs import query_for_proxy
from .workers import WorkerPool

#: CPU niceness of the lanes (viewer pages, dump exports): on a small machine the protocol's queries win the CPU.
LANE_NICENESS = 5


class PooledStore(SparqlReads):
    """A :class:`~craftrdf.store.local.ReadableStore` whose queries run in a :class:`WorkerPool`.

    ``query`` returns what the embedded store returns (``QuerySolutions``, ``QueryBoolean``,
    or a list of triples for CONSTRUCT), parsed back from TSV / JSON / N-Triples, so library
    code (the article viewer) runs unchanged, with the server's time limit. Errors come back
    as :class:`~craftrdf.core.errors.QueryError`. With ``lane`` the queries run in that lane of the
    pool (:meth:`WorkerPool.lane`, at :data:`LANE_NICENESS`), not on its query workers.
    """

    def __init__(self, pool: WorkerPool, *, timeout: float, lane: str | None = None) -> None:
        self.pool = pool
        self.timeout = timeout
        self.lane = lane
        self.path = None
        self.writable = False
        self.derived = DerivedCache()

    def query(
        self,
        sparql: str,
        *,
        substitutions: Mapping[str, ox.NamedNode | ox.Literal] | None = None,
        prefixes: Mapping[str, str] | None = None,
        named_graphs: Sequence[str] | None = None,
        default_graph: Sequence[str] | None = None,
        custom_functions: Mapping[ox.NamedNode, Callable[..., Any]] | None = None,
    ) -> Any:
        """Run a query in a worker with values bound by name (see ``AnnotationStore.query``).

        ``custom_functions`` are not sent: the workers run the server's own (``craftrdf:wang``).
        """
        subs = tuple((str(k), v) for k, v in (substitutions or {}).items())
        pool = self.pool if self.lane is None else self.pool.lane(self.lane, niceness=LANE_NICENESS)
        try:
            kind, body = pool.call(
                query_for_proxy,
                sparql,
                subs,
                dict(prefixes or {}) or None,
                None if named_graphs is None else list(named_graphs),
                None if default_graph is None else list(default_graph),
                timeout=self.timeout,
            )
        except RequestRefused as exc:
            if exc.status == 400 and exc.message.startswith("SPARQL syntax error"):
                raise SyntaxError(exc.message) from None
            raise QueryError(exc.message) from None
        if kind == "solutions":
            return ox.parse_query_results(body, ox.QueryResultsFormat.TSV)
        if kind == "boolean":
            return ox.parse_query_results(body, ox.QueryResultsFormat.JSON)
        return list(ox.parse(body, ox.RdfFormat.N_TRIPLES))
