"""The HTTP connection layer under the app: uvicorn's h11 protocol with a header deadline and a half-open cap.

uvicorn 0.x times out idle keep-alive connections, but not a connection that has sent part of
its request head and then stalls: a slowloris holds such sockets open for ever. And its
``limit_concurrency`` answers 503 to *everyone* once that many connections are open, so a few
thousand idle sockets would still lock real clients out. :func:`guarded_protocol` makes the
h11 protocol class used by :func:`uvicorn_config`:

- a connection must complete its request head within ``header_timeout`` seconds of being
  opened (or of its previous response): past that it is closed;
- at most ``max_half_open`` connections may be waiting for their request head at once; a new
  one beyond that closes the *oldest* waiting one that has sent part of a head or has waited
  ``half_open_grace`` seconds, so a flood of stalled sockets pushes out its own members while a
  client that sends its head promptly gets through, and a burst of new connections (a thousand
  clients connecting at once, whose heads are on their way) is not cut.

Request bodies are read by :func:`read_body` (size counted as it streams, a deadline per
piece and one for the whole body); :class:`Nosniff` is the ASGI middleware adding
``X-Content-Type-Options: nosniff``, and :class:`AccessLog` the one logging each request
(uvicorn's own access log stays off: its lines would bypass the CLI's log format and carry the
query string, that is, whole queries).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from .guard import RequestRefused

access_logger = logging.getLogger("craftrdf.publishing.server.access")


def guarded_protocol(header_timeout: float, max_half_open: int, half_open_grace: float = 1.0) -> type[H11Protocol]:
    """An h11 protocol class closing connections that do not send a request head in time (see the module doc)."""

    # the connections waiting for a request head, oldest first (dicts keep insertion order): the
    # cap looks at the oldest few, never scans every connection (a flood holds thousands)
    waiting: dict[GuardedH11Protocol, None] = {}

    class GuardedH11Protocol(H11Protocol):
        waiting_since: float | None = None
        header_timer: asyncio.TimerHandle | None = None
        partial = False  # part of a request head has arrived, not all of it

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._await_head()
            self._cap()

        def _cap(self) -> None:
            """Past ``max_half_open`` waiting connections, close the oldest stalled one (see the module doc)."""
            if len(waiting) <= max_half_open:
                return
            now = time.monotonic()
            stalled = next(
                (c for c in waiting if c.partial or now - (c.waiting_since or now) >= half_open_grace),
                None,
            )
            if stalled is not None:
                stalled.drop_stalled()

        def _await_head(self) -> None:
            if self.header_timer is None:
                self.waiting_since = time.monotonic()
                self.header_timer = self.loop.call_later(header_timeout, self.drop_stalled)
                waiting[self] = None

        def _head_arrived(self) -> None:
            self.waiting_since = None
            self.partial = False
            waiting.pop(self, None)
            if self.header_timer is not None:
                self.header_timer.cancel()
                self.header_timer = None

        def drop_stalled(self) -> None:
            """Close this connection: its request head did not arrive in time, or others waited less."""
            self._head_arrived()
            if not self.transport.is_closing():
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.cycle is not None and not self.cycle.response_complete:
                self._head_arrived()  # the head is parsed: the request is the app's now
                return
            if self.header_timer is None:
                self._await_head()  # part of a head on a kept-alive connection
            if not self.partial:
                self.partial = True
                self._cap()  # a batch of new connections is judged once their first bytes show them stalled

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._head_arrived()  # idle now: uvicorn's keep-alive timeout applies until data comes

        def connection_lost(self, exc: Exception | None) -> None:
            self._head_arrived()
            super().connection_lost(exc)

    return GuardedH11Protocol


def uvicorn_config(
    app: Any,
    *,
    host: str,
    port: int,
    header_timeout: float = 10.0,
    max_half_open: int = 256,
    max_connections: int = 2048,
    keep_alive: int = 5,
) -> Any:
    """A ``uvicorn.Config`` serving ``app`` with the guarded h11 protocol and bounded connections.

    ``max_connections`` is uvicorn's ``limit_concurrency`` (503 past it), a backstop: the
    header deadline and the half-open cap keep silent sockets far below it. Request heads are
    limited to 64 KiB (``h11_max_incomplete_event_size``).
    """
    import uvicorn

    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=guarded_protocol(header_timeout, max_half_open),
        log_level="warning",
        proxy_headers=True,
        limit_concurrency=max_connections,
        timeout_keep_alive=keep_alive,
        h11_max_incomplete_event_size=64 * 1024,
    )


async def read_body(request: Request, limit: int, timeout: float, deadline: float | None = None) -> bytes:
    """The request body, counted as it streams: 413 once past ``limit`` bytes, 408 if a piece takes over ``timeout`` s.

    A declared Content-Length over the limit is refused before anything is read; a chunked
    body, or one whose Content-Length lies, is refused as soon as the bytes received pass the
    limit, so the server never holds more than ``limit`` bytes of a body. With ``deadline`` the
    whole body must arrive within that many seconds (408 past it), so a body trickling a byte
    just inside ``timeout`` cannot hold the connection for ever.
    """
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > limit:
        raise RequestRefused(413, f"the request body is larger than {limit:,} bytes")
    body = bytearray()
    pieces = request.stream().__aiter__()
    ends = None if deadline is None else time.monotonic() + deadline
    while True:
        wait = timeout if ends is None else min(timeout, ends - time.monotonic())
        try:
            piece = await asyncio.wait_for(pieces.__anext__(), max(wait, 0.0))
        except StopAsyncIteration:
            return bytes(body)
        except TimeoutError:
            if wait < timeout:
                raise RequestRefused(408, f"the request body took longer than {deadline:g} s to arrive") from None
            raise RequestRefused(408, f"the request body stopped arriving for {timeout:g} s") from None
        if len(body) + len(piece) > limit:
            raise RequestRefused(413, f"the request body is larger than {limit:,} bytes")
        body += piece


async def disconnected(receive: Receive) -> None:
    """Return once the client has gone (``http.disconnect``), reading and dropping anything else."""
    while (await receive())["type"] != "http.disconnect":
        pass


class Nosniff:
    """ASGI middleware: ``X-Content-Type-Options: nosniff`` on every response (error bodies echo input)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_nosniff(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-content-type-options", b"nosniff")]
            await send(message)

        await self.app(scope, receive, send_nosniff)


class AccessLog:
    """ASGI middleware: one INFO line per request (logger ``craftrdf.publishing.server.access``).

    Each line says the client, method, path, status and time; the time runs from the request's
    arrival to the end of its response. The query string is left out (a GET query carries the
    whole SPARQL text). A request whose app raised is logged with status 500, as the server
    answers it.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not access_logger.isEnabledFor(logging.INFO):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            client = scope.get("client")
            access_logger.info(
                '%s "%s %s" %d %.1f ms',
                f"{client[0]}:{client[1]}" if client else "-",
                scope["method"],
                scope.get("root_path", "") + scope["path"],
                status,
                (time.perf_counter() - started) * 1000,
            )
