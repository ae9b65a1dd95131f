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
from typing import IO, cast

from ..core.errors import InputError


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
            yield cast(IO[bytes], stack.enter_context(gzip.open(path, "rb")))
        elif name.endswith(".zip"):
            archive = stack.enter_context(zipfile.ZipFile(path))
            yield stack.enter_context(archive.open(_zip_member(archive, path)))
        else:
            yield stack.enter_context(open(path, "rb"))


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
