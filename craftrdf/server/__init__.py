"""Publishing a store over HTTP: the SPARQL 1.1 endpoint, linked data, dumps and the article viewer.

Needs the ``craftrdf[server]`` extra (Starlette and uvicorn). The parts: :mod:`.app` (the
Starlette app and :func:`serve`), :mod:`.guard` (what a request may contain, checked before
the engine parses it), :mod:`.protocol` (SPARQL 1.1 Protocol requests and content
negotiation), :mod:`.workers` (the pool of query processes and :class:`PooledStore`),
:mod:`.jobs` (what a worker runs), :mod:`.sandbox` (the workers' seccomp network filter),
:mod:`.transport` (uvicorn's h11 protocol with a header deadline and a half-open cap),
:mod:`.linked` (dereferenceable IRIs, VoID, dumps), :mod:`.viewer`, :mod:`.viewer_data` and :mod:`.viewer_classes`
(the article viewer). docs/server.md describes the routes, the limits and the security model.
"""

from __future__ import annotations

import typing as _typing
from importlib import import_module as _import_module
from types import MappingProxyType as _MappingProxyType

if _typing.TYPE_CHECKING:
    from .app import ServerConfig, create_app, read_token, serve
    from .guard import Limits, RequestRefused, check_request
    from .workers import PooledStore, StoreOpener, WorkerPool

# Imported on first use (PEP 562): a query worker, spawned with a fresh interpreter, imports
# .workers alone, without Starlette, uvicorn and the exports that .app pulls in (0.4 s each).
_HOMES = _MappingProxyType(
    {
        **dict.fromkeys(("ServerConfig", "create_app", "read_token", "serve"), "app"),
        **dict.fromkeys(("Limits", "RequestRefused", "check_request"), "guard"),
        **dict.fromkeys(("PooledStore", "StoreOpener", "WorkerPool"), "workers"),
    }
)


def __getattr__(name: str) -> _typing.Any:
    """A public name, imported from its module on first use."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'craftrdf.server' has no attribute {name!r}")
    return getattr(_import_module(f".{home}", __name__), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


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
