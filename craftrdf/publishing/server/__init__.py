"""Publishing a store over HTTP: the SPARQL 1.1 endpoint, linked data, dumps and the article viewer.

Needs the ``craftrdf[server]`` extra (Starlette and uvicorn). The parts: :mod:`.app` (the
Starlette app and :func:`serve`), :mod:`.config` (:class:`ServerConfig`), :mod:`.guard` (what
a request may contain, checked before the engine parses it), :mod:`.protocol` (SPARQL 1.1
Protocol requests and content negotiation), :mod:`.workers` (the pool of query processes and
:class:`PooledStore`), :mod:`.jobs` (what a worker runs), :mod:`.sandbox` (the workers' seccomp
network filter), :mod:`.transport` (uvicorn's h11 protocol with a header deadline and a
half-open cap, and the access log), :mod:`.linked` (dereferenceable IRIs, VoID, dumps),
:mod:`.pages` (the index and the query page), :mod:`.viewer`, :mod:`.viewer_data`,
:mod:`.viewer_classes` and :mod:`.viewer_placements` (the article viewer). docs/server.md
describes the routes, the limits and the security model.
"""

from __future__ import annotations

import typing as _typing
from types import MappingProxyType as _MappingProxyType

from ...core._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from .app import create_app, serve
    from .config import ServerConfig, read_token
    from .guard import Limits, RequestRefused, check_request
    from .workers import PooledStore, StoreOpener, WorkerPool

# Imported on first use (PEP 562): a query worker, spawned with a fresh interpreter, imports
# .workers alone, without Starlette, uvicorn and the exports that .app pulls in (0.4 s each).
_HOMES = _MappingProxyType(
    {
        **dict.fromkeys(("create_app", "serve"), "app"),
        **dict.fromkeys(("ServerConfig", "read_token"), "config"),
        **dict.fromkeys(("Limits", "RequestRefused", "check_request"), "guard"),
        **dict.fromkeys(("PooledStore", "StoreOpener", "WorkerPool"), "workers"),
    }
)


__getattr__, __dir__ = _lazy_exports(__name__, _HOMES)


__all__ = [
    "Limits",
    "PooledStore",
    "RequestRefused",
    "ServerConfig",
    "StoreOpener",
    "WorkerPool",
    "check_request",
    "create_app",
    "read_token",
    "serve",
]
