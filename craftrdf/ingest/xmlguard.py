"""Refuse XML that declares a DTD, before any parser that would expand its entities sees it.

pyoxigraph's RDF/XML parser expands internal entities, so a nested entity definition (the
"billion laughs") grows without bound while it parses. No RDF/XML ontology needs a DTD:
entities there only abbreviate namespace IRIs. So a DOCTYPE, which is the only place entity
declarations can stand, is refused outright, with one line naming the file.

Only the prolog is read: the XML grammar puts the document type declaration before the root
element (``prolog ::= XMLDecl? Misc* (doctypedecl Misc*)?``), so the scan stops at the first
start tag. The scanning parser is defusedxml's (DTDs, entities and external references
forbidden), so the scan itself expands nothing.
"""

from __future__ import annotations

import os
from typing import IO, Any
from xml.parsers.expat import ErrorString, ExpatError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from ..core.errors import InputError
from .files import open_binary

_CHUNK = 1 << 16


class _RootReached(Exception):
    """Raised by the start-tag handler: the prolog is over and held no DTD."""


def _root(*_: Any) -> None:
    raise _RootReached


def _scanner() -> Any:
    """An expat parser with defusedxml's guards that stops at the root element."""
    expat = DefusedXMLParser(forbid_dtd=True, forbid_entities=True, forbid_external=True).parser
    if getattr(expat, "StartDoctypeDeclHandler", None) is None:  # pragma: no cover - defusedxml changed
        raise RuntimeError("defusedxml did not install its DTD guard; refusing to parse")
    expat.StartElementHandler = _root
    return expat


def check_stream_no_dtd(stream: IO[bytes], *, source: str) -> None:
    """Read ``stream`` up to its root element; InputError naming ``source`` if it declares a DTD.

    Malformed XML in the prolog (or no root element at all) is an InputError too, with its
    line; the rest of the document is left to the real parser.
    """
    expat = _scanner()
    try:
        while chunk := stream.read(_CHUNK):
            expat.Parse(chunk, False)
        expat.Parse(b"", True)
    except _RootReached:
        return
    except DefusedXmlException:
        raise InputError(
            "XML with a DTD (<!DOCTYPE>, entity declarations) is refused: its entities would be expanded "
            "without bound; convert the file to Turtle or RDF/XML without a DTD first (e.g. robot convert)",
            source=source,
            line=expat.CurrentLineNumber,
        ) from None
    except ExpatError as exc:
        raise InputError(f"malformed XML: {ErrorString(exc.code)}", source=source, line=exc.lineno) from None
    raise InputError("no XML root element", source=source)  # pragma: no cover - expat reports this first


def check_no_dtd(path: str | os.PathLike[str]) -> None:
    """:func:`check_stream_no_dtd` on a plain, ``.gz`` or ``.zip`` file."""
    with open_binary(path) as stream:
        check_stream_no_dtd(stream, source=os.fspath(path))
