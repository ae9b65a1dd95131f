"""An Oxigraph server (``oxigraph serve``, from the test extra's ``oxigraph``) on a loopback port.

Standard library only: ``tests/smoke/base_install.py`` uses it from a Python without craftrdf.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def oxigraph_server(exe: str, workdir: Path) -> Iterator[str]:
    """``exe serve`` over ``workdir/data`` on a free loopback port until the block ends; yields its base URL.

    RuntimeError when it exits or does not answer ``ASK {}`` within 30 s; its output is in
    ``workdir/oxigraph.log``.
    """
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log_path = workdir / "oxigraph.log"
    with open(log_path, "wb") as log:  # the child keeps its own descriptor
        proc = subprocess.Popen(
            [exe, "serve", "--location", str(workdir / "data"), "--bind", f"127.0.0.1:{port}"],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        ask = f"{base}/query?" + urllib.parse.urlencode({"query": "ASK {}"})
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"oxigraph serve exited: {log_path.read_text()[-500:]}")
            with (
                contextlib.suppress(urllib.error.URLError, ConnectionError),
                urllib.request.urlopen(ask, timeout=2) as r,
            ):
                if r.status == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("oxigraph serve did not answer within 30 s")
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
