"""What a server allows and where it is reached: :class:`ServerConfig`, and the update token's file.

:func:`craftrdf.publishing.server.app.create_app` and :func:`~craftrdf.publishing.server.app.serve` take a config; the
``serve`` command builds one from its options (docs/server.md has the table).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ...core.errors import ConfigError
from .guard import Limits


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """What the server allows and where it is reached.

    ``base_iri`` is the public URL of the server's root (ends with ``/``): a request for
    ``base_iri + "doc/123"`` describes the store resource ``https://w3id.org/craftrdf/doc/123``.
    ``timeout`` (s) bounds each query, ``max_results`` the rows or triples of an answer;
    ``token`` is the bearer token updates need (``allow_update`` must be on too).
    ``max_body`` (bytes) bounds a request body, counted as it arrives; ``body_timeout`` (s) is the
    longest wait for the next piece of a body, ``body_deadline`` (s) for the whole body (408 past
    either). ``cors_origin`` (an origin or ``*``)
    lets browser pages of that origin query (never update) the endpoint. ``union_default_graph``
    makes the union of the named graphs the default graph of queries that name no dataset (no
    ``FROM``, no ``default-graph-uri`` / ``named-graph-uri``); updates and the viewer are unaffected.
    ``access_log`` logs one INFO line per request (logger ``craftrdf.publishing.server.access``).
    ``load_urls`` are the URL prefixes ``LOAD`` may fetch (with ``limits.allow_load``; fetched by a
    process of its own, at most ``max_load_bytes``: :mod:`craftrdf.publishing.server.load`). ``max_memory``
    (bytes, None for no limit) bounds each query worker's resident size during a call (503 past it);
    ``max_result_bytes`` an answer's serialized size (422 past it). ``client_budget`` is the query
    time (s) each client may use per minute (429 with ``Retry-After`` past it; None for no budget:
    :mod:`craftrdf.publishing.server.budget`).
    """

    base_iri: str = "http://127.0.0.1:8080/"
    timeout: float = 30.0
    max_results: int = 100_000
    limits: Limits = field(default_factory=Limits)
    allow_update: bool = False
    token: str | None = field(default=None, repr=False)
    dump_timeout: float = 600.0
    max_body: int = 1_000_000
    body_timeout: float = 10.0
    body_deadline: float = 30.0
    cors_origin: str | None = None
    union_default_graph: bool = False
    access_log: bool = False
    load_urls: tuple[str, ...] = ()
    max_load_bytes: int = 100_000_000
    max_memory: int | None = 2 << 30
    max_result_bytes: int = 50_000_000
    client_budget: float | None = 60.0

    def __post_init__(self) -> None:
        if not self.base_iri.endswith("/"):
            object.__setattr__(self, "base_iri", self.base_iri + "/")
        if self.allow_update and not self.token:
            raise ConfigError("updates need a bearer token: give --token-file with --allow-update")


def read_token(path: str | os.PathLike[str]) -> str:
    """The bearer token in a file (surrounding whitespace dropped); ConfigError if missing or too short."""
    try:
        token = Path(path).read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ConfigError(f"cannot read the token file {path}: {exc.strerror}") from None
    if len(token) < 16:
        raise ConfigError(f"the token in {path} is shorter than 16 characters; use e.g. `openssl rand -hex 32`")
    return token
