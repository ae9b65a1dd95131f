"""Per-client query-time budgets: time spent on a worker is charged to its client; a spent budget is a 429.

Public endpoints bound what one client may take, not only what one query may take: Wikidata's
query service gives each client 60 seconds of query time per 60 seconds and answers **429 Too
Many Requests** with ``Retry-After`` once they are spent (its *Query limits*, docs/server.md
cites it). :class:`ClientBudgets` does the same here, as a token bucket per client:

- a client's account holds at most ``seconds`` of query time and refills at ``seconds`` per
  ``window`` (60 s); every call run for the client is charged the time it held a worker
  (:class:`~craftrdf.publishing.server.workers.Usage`), whether it answered, failed or was stopped;
- a request is admitted while the account is not negative (one query may overdraw it); past that it
  is refused with 429 and ``Retry-After``, the seconds until the account is repaid, and no worker
  is touched;
- a client whose call held a worker for ``heavy_after`` seconds or more (a long query, whatever its
  text) is *heavy* for the next ``window``: its queries go to the pool's heavy lane from the start
  (:meth:`~craftrdf.publishing.server.workers.WorkerPool.call` with ``heavy=True``), so changing
  the text of a long query each time no longer buys it a fast worker for its first second.

A client is its address (``request.client``; behind a proxy, uvicorn takes it from
``X-Forwarded-For`` of a trusted proxy), or the bearer token when the request carries the server's
token (:func:`client_of`).
"""

from __future__ import annotations

import hashlib
import hmac
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from starlette.requests import Request

from .guard import RequestRefused


@dataclass(slots=True)
class _Account:
    balance: float
    updated: float
    heavy_until: float = 0.0


def client_of(request: Request, token: str | None) -> str:
    """Who a request is charged to: ``token:…`` when it carries the server's bearer token, else its address."""
    if token:
        scheme, _, credential = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(credential.strip().encode(), token.encode()):
            return "token:" + hashlib.sha256(token.encode()).hexdigest()[:16]
    return "addr:" + (request.client.host if request.client else "-")


class ClientBudgets:
    """Query time per client, refilled at ``seconds`` per ``window``; a spent budget is a 429 (see the module doc).

    Thread-safe. At most ``max_clients`` accounts are kept (the least recently seen is dropped,
    which gives that client a full budget again: a client must be that rare to be forgotten).
    """

    def __init__(
        self,
        seconds: float,
        *,
        window: float = 60.0,
        heavy_after: float = 1.0,
        max_clients: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if seconds <= 0 or window <= 0:
            raise ValueError("a client budget needs positive seconds and window")
        self.seconds = seconds
        self.window = window
        self.heavy_after = heavy_after
        self.max_clients = max_clients
        self._clock = clock
        self._rate = seconds / window
        self._accounts: OrderedDict[str, _Account] = OrderedDict()
        self._lock = threading.Lock()

    def _account(self, client: str, now: float) -> _Account:
        """``client``'s account refilled up to ``now`` (created full), most recently seen (lock held)."""
        acc = self._accounts.get(client)
        if acc is None:
            acc = self._accounts[client] = _Account(self.seconds, now)
            while len(self._accounts) > self.max_clients:
                self._accounts.popitem(last=False)
        else:
            acc.balance = min(self.seconds, acc.balance + (now - acc.updated) * self._rate)
            acc.updated = now
            self._accounts.move_to_end(client)
        return acc

    def admit(self, client: str) -> bool:
        """Let ``client`` run a call: True if it is to run as heavy; RequestRefused 429 once its budget is spent."""
        now = self._clock()
        with self._lock:
            acc = self._account(client, now)
            if acc.balance >= -1e-9:  # (rounding: a client that waited Retry-After is let in)
                return acc.heavy_until > now
            wait = max(1, math.ceil(-acc.balance / self._rate - 1e-9))
        raise RequestRefused(
            429,
            f"this client has used its query time of {self.seconds:g} s per {self.window:g} s; try again in {wait} s",
            retry_after=wait,
        )

    def charge(self, client: str, seconds: float) -> None:
        """Charge ``client`` the ``seconds`` a call held a worker; ``heavy_after`` s or more mark the client heavy."""
        if seconds <= 0:
            return
        now = self._clock()
        with self._lock:
            acc = self._account(client, now)
            acc.balance -= seconds
            if seconds >= self.heavy_after:
                acc.heavy_until = now + self.window

    def balance(self, client: str) -> float:
        """Seconds of query time ``client`` has left now (for tests and diagnostics)."""
        with self._lock:
            return self._account(client, self._clock()).balance
