"""A batch's N-Quads lines as the binary stream pyoxigraph's bulk loader reads, filled by a thread."""

from __future__ import annotations

import io
import queue
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..core.rdf import iri, literal, quad
from ..core.vocab import CRAFT

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer


class NQuadsStream(io.RawIOBase):
    """A binary stream over N-Quads lines, with the batch manifest appended at the end.

    A producer thread turns the lines into UTF-8 chunks while the bulk loader, which
    releases the GIL, stores the previous ones: the Python work of a batch overlaps
    Oxigraph's. An exception raised while producing lines is kept in ``error``; the
    loader then sees a read error and abandons the batch, and the caller re-raises
    the original.
    """

    _CHUNK_LINES = 4096

    def __init__(self, lines: Iterable[str], graph: str, digest: str) -> None:
        self._queue: queue.Queue[bytes | None] = queue.Queue(maxsize=16)
        self._stop = threading.Event()
        self._buf = memoryview(b"")
        self._eof = False
        self.count = 0
        self.error: BaseException | None = None
        g = iri(graph)
        manifest = quad(g, iri(CRAFT.digest), literal(digest), g)
        self._thread = threading.Thread(target=self._produce, args=(lines, manifest), daemon=True)
        self._thread.start()

    def _put(self, item: bytes | None) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def _produce(self, lines: Iterable[str], manifest: str) -> None:
        chunk: list[str] = []
        try:
            for line in lines:
                chunk.append(line)
                if len(chunk) >= self._CHUNK_LINES:
                    self.count += len(chunk)
                    if not self._put(("\n".join(chunk) + "\n").encode("utf-8")):
                        return
                    chunk = []
            chunk.append(manifest)
            self.count += len(chunk)
            self._put(("\n".join(chunk) + "\n").encode("utf-8"))
        except BaseException as exc:  # handed to the consumer, re-raised by load_batch
            self.error = exc
        finally:
            self._put(None)

    def close(self) -> None:
        self._stop.set()
        super().close()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        while not self._buf and not self._eof:
            item = self._queue.get()
            if item is None:
                self._eof = True
                if self.error is not None:
                    raise OSError(f"input failed: {self.error}")
            else:
                self._buf = memoryview(item)
        view = memoryview(buffer).cast("B")
        n = min(len(view), len(self._buf))
        view[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n
