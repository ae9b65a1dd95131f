"""The ``serve`` command: publish a store as a SPARQL 1.1 endpoint and linked data (docs/server.md)."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable


def _server_logging() -> None:
    """Show the server's INFO lines (start-up, access log) without -v, with a time stamp on each line."""
    server = logging.getLogger("craftrdf.publishing.server")
    if server.getEffectiveLevel() > logging.INFO:
        server.setLevel(logging.INFO)
    for handler in logging.getLogger().handlers:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s: %(message)s"))


def _cmd_serve(args: argparse.Namespace) -> int:
    from ...publishing.server.app import serve
    from ...publishing.server.config import ServerConfig, read_token
    from ...publishing.server.guard import Limits

    _server_logging()
    token = read_token(args.token_file) if args.token_file else None
    base = args.base_iri or f"http://{args.host}:{args.port}/"
    limits = Limits(
        max_length=args.max_query_length,
        max_depth=args.max_depth,
        max_terms=args.max_terms,
        max_joins=args.max_joins,
        allow_load=bool(args.allow_load),
    )
    config = ServerConfig(
        base_iri=base,
        timeout=args.timeout,
        max_results=args.max_results,
        limits=limits,
        allow_update=args.allow_update,
        token=token,
        max_body=args.max_body,
        body_deadline=args.body_deadline,
        cors_origin=args.cors_origin,
        union_default_graph=args.union_default_graph,
        access_log=args.access_log,
        load_urls=tuple(args.allow_load or ()),
        max_memory=args.max_worker_memory << 20,
        max_result_bytes=args.max_result_bytes,
        client_budget=args.client_budget or None,
    )
    serve(
        args.store,
        config,
        host=args.host,
        port=args.port,
        workers=args.workers,
        heavy_workers=args.heavy_workers,
        header_timeout=args.header_timeout,
        create=args.create,
    )
    return 0


def _positive(kind: type[int] | type[float], *, zero: bool = False) -> Callable[[str], float]:
    def parse(text: str) -> float:
        value = kind(text)
        if value < 0 or (value == 0 and not zero):
            raise argparse.ArgumentTypeError(f"must be {'zero or ' if zero else ''}positive, got {text}")
        return value

    return parse


def _add_connection_options(s: argparse.ArgumentParser) -> None:
    """Options bounding connections, bodies and long queries, and letting browsers of other origins in."""
    s.add_argument(
        "--heavy-workers",
        type=int,
        default=2,
        metavar="N",
        help="more workers for queries running past 1 s; at most N such at once, more get 503 (default 2)",
    )
    s.add_argument(
        "--max-body",
        type=_positive(int),
        default=1_000_000,
        metavar="BYTES",
        help="largest request body (default 1 MB)",
    )
    s.add_argument(
        "--body-deadline",
        type=_positive(float),
        default=30.0,
        metavar="SECONDS",
        help="a request body must arrive whole within this time; past it 408 (default 30)",
    )
    s.add_argument(
        "--header-timeout",
        type=_positive(float),
        default=10.0,
        metavar="SECONDS",
        help="a connection must send its request head within this time (default 10)",
    )
    s.add_argument(
        "--client-budget",
        type=_positive(float, zero=True),
        default=60.0,
        metavar="SECONDS",
        help="query time each client (address, or the token) may use per minute; past it 429 with "
        "Retry-After (default 60; 0 turns budgets off)",
    )
    s.add_argument(
        "--cors-origin",
        metavar="ORIGIN|*",
        help="let browser pages of this origin (or any, with *) send queries; never updates (default: none)",
    )


def _add_limit_options(s: argparse.ArgumentParser) -> None:
    """Options bounding what a query may be and use, and where LOAD may fetch from."""
    s.add_argument("--max-query-length", type=_positive(int), default=100_000, metavar="CHARS")
    s.add_argument(
        "--max-depth",
        type=_positive(int),
        default=64,
        metavar="N",
        help="most brackets open at once in a query (default 64)",
    )
    s.add_argument(
        "--max-terms",
        type=_positive(int),
        default=1_000,
        metavar="N",
        help="most operators or patterns chained at one bracket level (default 1000)",
    )
    s.add_argument(
        "--max-joins",
        type=_positive(int),
        default=48,
        metavar="N",
        help="most triple patterns and groups joined in one group of a query (default 48)",
    )
    s.add_argument(
        "--allow-load",
        action="append",
        metavar="URL-PREFIX",
        help="let token holders LOAD <url> from URLs starting with this prefix (repeatable); fetched by a "
        "process of its own, queries never reach the network (default: no LOAD)",
    )
    s.add_argument(
        "--max-result-bytes",
        type=_positive(int),
        default=50_000_000,
        metavar="BYTES",
        help="largest serialized answer of a query; more gets 422 (default 50000000)",
    )
    s.add_argument(
        "--max-worker-memory",
        type=_positive(int),
        default=2048,
        metavar="MB",
        help="a query worker growing past this resident size is killed, its client gets 503 (default 2048)",
    )


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``serve`` to the ``craftrdf`` parser."""
    s = sub.add_parser(
        "serve",
        help="serve a store: SPARQL 1.1 endpoint, dereferenceable IRIs, VoID, dumps, article viewer",
        description="Serve a store over HTTP with uvicorn. Read-only unless --allow-update; queries run in "
        "worker processes that are killed when they pass --timeout. See docs/server.md.",
    )
    s.add_argument("--store", required=True, help="store directory")
    s.add_argument("--host", default="127.0.0.1", help="interface to listen on (default: loopback only)")
    s.add_argument("--port", type=int, default=8080)
    s.add_argument(
        "--base-iri",
        metavar="URL",
        help="public URL of the server's root, e.g. https://example.org/craft/ (default: http://HOST:PORT/)",
    )
    s.add_argument(
        "--union-default-graph",
        action="store_true",
        help="queries that name no graph (no GRAPH, FROM, default-graph-uri) see every named graph "
        "(default: the default graph is empty, as every triple is in a named graph)",
    )
    s.add_argument(
        "--access-log",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="log one line per request: client, method, path, status, time (default: on)",
    )
    s.add_argument(
        "--allow-update",
        action="store_true",
        help="accept SPARQL Update from requests with the bearer token of --token-file",
    )
    s.add_argument(
        "--create",
        action="store_true",
        help="with --allow-update: make a new empty store at --store when there is none (else that is an error)",
    )
    s.add_argument("--token-file", metavar="F", help="file holding the bearer token (at least 16 characters)")
    s.add_argument(
        "--timeout", type=_positive(float), default=30.0, metavar="SECONDS", help="time limit of one query (default 30)"
    )
    s.add_argument(
        "--max-results",
        type=_positive(int),
        default=100_000,
        metavar="N",
        help="most rows or triples in one answer (default 100000)",
    )
    s.add_argument(
        "--workers",
        type=_positive(int),
        default=2,
        metavar="N",
        help="query worker processes when read-only (default 2; one writer with --allow-update)",
    )
    _add_connection_options(s)
    _add_limit_options(s)
    s.set_defaults(func=_cmd_serve)
