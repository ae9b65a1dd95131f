"""One SPARQL 1.1 Protocol query, sent and answered: what :class:`craftrdf.store.remote.RemoteStore` sends.

The query is POSTed form-encoded (``query=…`` and ``named-graph-uri=…``, as the protocol's
section 2.1.2 says) with httpx, asking for SPARQL JSON results (N-Triples for CONSTRUCT and
DESCRIBE); errors become one-line messages naming the endpoint and the HTTP status.
:func:`send_query` also reads the headers a server uses to say it cut an answer short: Virtuoso
sends ``X-SQL-State: S1TAT`` with a partial answer when a query reached its
``MaxQueryExecutionTime`` (an "anytime" result), which craftrdf refuses rather than take for the
whole answer.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx

from ..core.errors import QueryError, StoreError

logger = logging.getLogger(__name__)

#: Virtuoso's answer when it rolled a transaction back to break a deadlock: SQL state 40001, "SR172"
_DEADLOCK = (b"40001", b"SR172: Transaction deadlocked")


@dataclass(frozen=True, slots=True)
class Answer:
    """A server's answer: its body and its headers (names in lower case)."""

    body: bytes
    headers: dict[str, str]


def send_query(
    endpoint: str,
    text: str,
    *,
    form: str,
    named_graphs: Sequence[str] | None = None,
    timeout: float = 60.0,
    user_agent: str = "craftrdf",
) -> Answer:
    """POST ``text`` (a query of ``form``: SELECT, ASK, CONSTRUCT or DESCRIBE) to ``endpoint``.

    ``named_graphs`` become ``named-graph-uri`` parameters. Raises QueryError when the server
    refuses the query (HTTP 400), StoreError when it cannot be reached, fails, or says it cut
    the answer short (Virtuoso's anytime results).
    """
    graph_query = form in ("CONSTRUCT", "DESCRIBE")
    accept = "application/n-triples" if graph_query else "application/sparql-results+json"
    # the protocol's form body: the query and the dataset, nothing else (Virtuoso 7 answers a
    # query with ORDER BY and a UNION of GRAPH groups with one row when a format=json parameter
    # rides along, as SPARQLWrapper sends it; measured)
    body = urlencode([("query", text)] + [("named-graph-uri", g) for g in named_graphs or ()])
    headers = {"Accept": accept, "User-Agent": user_agent, "Content-Type": "application/x-www-form-urlencoded"}
    try:
        r = httpx.post(endpoint, content=body.encode("utf-8"), headers=headers, timeout=timeout)
    except httpx.TimeoutException:
        raise StoreError(f"endpoint {endpoint} did not answer within {timeout:g} s") from None
    except httpx.HTTPError as exc:
        raise StoreError(f"cannot reach endpoint {endpoint}: {exc}") from None
    if r.status_code == 400:
        raise QueryError(f"endpoint {endpoint} refused the query (HTTP 400): {server_message(r.content)}")
    if r.status_code != 200:
        raise StoreError(f"endpoint {endpoint} failed (HTTP {r.status_code}): {server_message(r.content)}")
    answer = Answer(r.content, {k.lower(): v for k, v in r.headers.items()})
    if answer.headers.get("x-sql-state", "") == "S1TAT":
        raise StoreError(
            f"endpoint {endpoint} stopped the query at its time limit and sent a partial answer "
            f"({server_message(answer.headers.get('x-sql-message', ''))}); raise MaxQueryExecutionTime "
            "in virtuoso.ini (docs/remote.md)"
        )
    return answer


def server_message(body: object) -> str:
    """The first lines of an error body, for a one-line message."""
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    text = " ".join(str(body or "").split())
    return text[:300] or "(no message)"


def send_write(method: str, url: str, *, retries: int = 4, pause: float = 1.0, **request: Any) -> httpx.Response:
    """One write request (a Graph Store Protocol PUT or POST, a SPARQL update), sent again after a deadlock.

    Virtuoso 7 answers HTTP 500 with SQL state 40001 ("SR172: Transaction deadlocked") when it
    chose the request's transaction to break a cycle of locks, which a large PUT meets under
    load (a full-corpus build, measured: docs/remote.md); its manual says to retry such a
    transaction. Every write craftrdf sends can be sent twice (a PUT replaces the graph, a POST
    or an update adds or removes the same triples), so it is sent again up to ``retries`` times,
    ``pause`` seconds doubling between tries. Returns the last answer, whatever it is;
    ``request`` goes to :func:`httpx.request`, whose errors propagate.
    """
    for attempt in range(retries + 1):
        r = httpx.request(method, url, **request)
        if r.status_code != 500 or attempt == retries or not any(m in r.content for m in _DEADLOCK):
            return r
        logger.warning("%s %s: the server broke a deadlock by rolling it back; sending it again", method, url)
        time.sleep(pause * 2**attempt)
    raise AssertionError("unreachable")
