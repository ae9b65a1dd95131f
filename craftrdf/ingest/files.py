"""Open the files readers take, plain, gzipped or zipped, as text or as bytes.

Split from :mod:`craftrdf.ingest.obo` (which re-exports both), since the RDF and XML readers
open files the same way.
"""

from __future__ import annotations

import gzip
import io
import os
import zipfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, Any, cast

from ..core.errors import InputError

#: Decompressed bytes allowed per compressed byte. CRAFT's OBO zips expand 2.7 to 10.7 times, and text
#: rarely beyond 20; a file made to expand (a "zip bomb") does so hundreds of times, up to deflate's
#: 1,032. Only past :data:`MIN_EXPANDED` is the ratio checked, so small, repetitive files pass.
MAX_EXPANSION = 100
MIN_EXPANDED = 1 << 24


@contextmanager
def open_text(path: str | os.PathLike[str], *, errors: str = "strict") -> Iterator[IO[str]]:
    """Open a plain, ``.gz`` or ``.zip`` file as UTF-8 text, for reading line by line.

    From a zip the one member whose name ends in ``.obo`` or ``.owl`` is read, ignoring
    directories, ``__MACOSX/`` entries and AppleDouble ``._*`` files; zero or several
    candidates raise :class:`InputError` naming the zip. A UTF-8 byte-order mark is
    dropped. Lines end at LF only (a stray CR stays in its line), so line numbers agree
    with ``grep -n``. ``errors`` is passed to the decoder: ``"strict"`` raises
    ``UnicodeDecodeError`` on bytes that are not UTF-8; :func:`iter_obo` uses
    ``"surrogateescape"`` and repairs such lines itself.
    """
    with open_binary(path) as binary:
        yield io.TextIOWrapper(binary, encoding="utf-8-sig", errors=errors, newline="\n")


@contextmanager
def open_binary(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """Open a plain, ``.gz`` or ``.zip`` file as bytes (the zip member chosen as by :func:`open_text`)."""
    path = Path(path)
    with ExitStack() as stack:
        name = path.name.lower()
        if name.endswith(".gz"):
            inner = cast(IO[bytes], stack.enter_context(gzip.open(path, "rb")))
            yield _bounded(inner, path.stat().st_size, path)
        elif name.endswith(".zip"):
            archive = stack.enter_context(zipfile.ZipFile(path))
            member = archive.getinfo(_zip_member(archive, path))
            packed = min(member.compress_size, path.stat().st_size)  # the header may lie; the file cannot
            yield _bounded(stack.enter_context(archive.open(member)), packed, path)
        else:
            yield stack.enter_context(open(path, "rb"))


class _BoundedRaw(io.RawIOBase):
    """A decompressing stream that raises InputError once it has expanded more than the limit allows."""

    def __init__(self, inner: IO[bytes], limit: int, path: Path, packed: int) -> None:
        self._inner, self._limit, self._path, self._packed, self._read = inner, limit, path, packed, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._inner.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        self._read += n
        if self._read > self._limit:
            raise InputError(
                f"expands more than {MAX_EXPANSION} times (past {self._limit:,} bytes from {self._packed:,}): "
                "refused as a decompression bomb",
                source=str(self._path),
            )
        return n


def _bounded(inner: IO[bytes], packed: int, path: Path) -> IO[bytes]:
    """``inner`` (decompressing ``packed`` bytes) bounded to MAX_EXPANSION times that, at least MIN_EXPANDED."""
    limit = max(MAX_EXPANSION * packed, MIN_EXPANDED)
    return cast(IO[bytes], io.BufferedReader(_BoundedRaw(inner, limit, path, packed), 1 << 16))


def _zip_member(archive: zipfile.ZipFile, path: Path) -> str:
    """The single ``.obo``/``.owl`` member of ``archive``, else InputError naming the zip."""
    names = [
        n
        for n in archive.namelist()
        if not n.endswith("/")
        and not n.startswith("__MACOSX/")
        and not n.rsplit("/", 1)[-1].startswith("._")
        and n.lower().endswith((".obo", ".owl"))
    ]
    if len(names) != 1:
        found = ", ".join(names) if names else "none"
        raise InputError(f"expected exactly one .obo or .owl member in the zip, found {found}", source=str(path))
    return names[0]
