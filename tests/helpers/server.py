"""Shared pieces of the server tests: an on-disk sample store, a real uvicorn on loopback.

The query workers are separate processes, so the tests serve an on-disk store
(:func:`tests.helpers.sample.sample_store_path`), not the in-memory ``sample_store``. Functions a
worker runs (``load_graphs``) live here so the worker can import them by name.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pyoxigraph as ox

from craftrdf.store.local import AnnotationStore


def load_graphs(store: AnnotationStore, graphs: Sequence[tuple[str, str]]) -> int:
    """(In a worker) empty the store, then load each N-Triples file into the named graph given; quads loaded."""
    store.raw.clear()
    for file, graph in graphs:
        store.raw.load(path=file, format=ox.RdfFormat.N_TRIPLES, to_graph=ox.NamedNode(graph))
    return len(store.raw)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def running(
    app: object, *, port: int | None = None, make_config: Callable[..., Any] | None = None, **config: Any
) -> Iterator[str]:
    """Serve ``app`` with uvicorn on loopback (a free port unless given) in a thread; yields the base URL.

    ``make_config`` builds the uvicorn config instead of ``uvicorn.Config`` (the server's own
    :func:`craftrdf.publishing.server.transport.uvicorn_config`, say); ``config`` goes to it.
    """
    import uvicorn

    port = port or free_port()
    if make_config is None:
        conf = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **config)
    else:
        conf = make_config(app, host="127.0.0.1", port=port, **config)
    conf.lifespan = "off"
    server = uvicorn.Server(conf)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        thread.join(10)


@contextlib.contextmanager
def listener() -> Iterator[tuple[str, list[int]]]:
    """A TCP listener on loopback counting the connections it gets: (base URL, hits)."""
    hits: list[int] = []
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)

    def accept() -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            hits.append(1)
            conn.close()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.getsockname()[1]}/", hits
    finally:
        srv.close()


def wait_until_serving(proc: subprocess.Popen[bytes], url: str, *, seconds: float = 60) -> None:
    """Poll ``url`` (a SPARQL endpoint) with ``ASK {}`` until ``craftrdf serve`` in ``proc`` answers."""
    import httpx

    deadline = time.monotonic() + seconds
    while True:
        try:
            httpx.get(url, params={"query": "ASK {}"}, timeout=2)
            return
        except httpx.HTTPError:
            assert proc.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)
