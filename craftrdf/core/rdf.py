"""N-Quads text for the quads craftrdf generates.

Readers emit millions of quads; building a pyoxigraph ``Quad`` object for each costs
more than Oxigraph's own bulk loader spends storing it. So the mappers write N-Quads
lines with these few helpers and hand the text to ``Store.bulk_load``, whose strict
parser re-validates every IRI and literal. The escaping below is the whole of the
N-Quads literal grammar (ECHAR for ``\\ " LF CR``); a property test round-trips
arbitrary strings through pyoxigraph's parser.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from .vocab import XSD

_SAFE_PART = re.compile(r"^[A-Za-z0-9+\-_.~]+$")
_BAD_IRI = re.compile(r'[\x00-\x20<>"{}|^`\\]')
_INT = f"^^<{XSD.integer}>"
_NNI = f"^^<{XSD.nonNegativeInteger}>"


def check_iri(value: str) -> str:
    """Return ``value`` if it can stand as an absolute IRI in N-Quads, else raise ValueError."""
    if ":" not in value or _BAD_IRI.search(value):
        raise ValueError(f"not a valid IRI: {value!r}")
    return value


def iri(value: str) -> str:
    """``<value>``; the caller guarantees validity (see :func:`check_iri`, :func:`mint`)."""
    return f"<{value}>"


def literal(value: str) -> str:
    """A plain (xsd:string) literal with N-Quads escaping.

    >>> literal('say "hi"\\n')
    '"say \\\\"hi\\\\"\\\\n"'
    """
    if "\\" in value:
        value = value.replace("\\", "\\\\")
    if '"' in value:
        value = value.replace('"', '\\"')
    if "\n" in value:
        value = value.replace("\n", "\\n")
    if "\r" in value:
        value = value.replace("\r", "\\r")
    return f'"{value}"'


def int_literal(value: int, *, non_negative: bool = False) -> str:
    """An ``xsd:integer`` (or ``xsd:nonNegativeInteger``) literal."""
    return f'"{value}"{_NNI if non_negative else _INT}'


def decimal_literal(value: float, places: int = 4) -> str:
    """An ``xsd:decimal`` literal with ``places`` digits after the point.

    >>> decimal_literal(0.87346)
    '"0.8735"^^<http://www.w3.org/2001/XMLSchema#decimal>'
    """
    return f'"{value:.{places}f}"^^<{XSD.decimal}>'


def bool_literal(value: bool) -> str:
    """An ``xsd:boolean`` literal."""
    return f'"{"true" if value else "false"}"^^<{XSD.boolean}>'


def quad(s: str, p: str, o: str, g: str) -> str:
    """One N-Quads line from already-formatted terms (no trailing newline)."""
    return f"{s} {p} {o} {g} ."


def mint(base: str, *parts: str) -> str:
    """An IRI under ``base`` from path parts, each percent-encoded so any string is safe.

    >>> mint("https://w3id.org/craftrdf/", "ann", "UBERON_EXT", "a b/c")
    'https://w3id.org/craftrdf/ann/UBERON_EXT/a%20b%2Fc'
    >>> mint("https://w3id.org/craftrdf/", "doc", "1\\n")  # fullmatch: "$" would accept a final newline
    'https://w3id.org/craftrdf/doc/1%0A'
    """
    return base + "/".join(p if _SAFE_PART.fullmatch(p) else quote(p, safe="+-_.~") for p in parts)
