"""The article viewer's routes (``craftrdf.publishing.server.viewer``), mounted when that module imports.

Its queries run in the pool's ``pages`` lane (a worker of its own, at lower CPU priority, so 60
clients reading pages do not queue the protocol's queries) through a
:class:`~craftrdf.publishing.server.pooled.PooledStore`, under the server's time limit.
"""

from __future__ import annotations

import logging

from starlette.routing import Router

from ..context import AppContext
from ..pooled import PooledStore

logger = logging.getLogger(__name__)


def viewer_router(ctx: AppContext) -> Router | None:
    """The article viewer's routes as a router, or None (with a warning) when it is unavailable."""
    try:  # imported here: the viewer is an optional part, and its import failing must not stop the endpoint
        from ..viewer import viewer_routes

        store = PooledStore(ctx.pool, timeout=ctx.config.timeout, lane="pages")
        return Router(routes=list(viewer_routes(store, base_iri=ctx.base)))
    except Exception as exc:  # any failure of an optional part must not stop the endpoint
        logger.warning("article viewer unavailable (%s: %s); serving plain HTML pages instead", type(exc).__name__, exc)
        return None
