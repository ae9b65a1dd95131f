"""What real SPARQL servers send that the SPARQL 1.1 result formats do not say, made standard.

:class:`craftrdf.store.remote.RemoteStore` parses every answer with pyoxigraph, which reads the
W3C formats strictly. Virtuoso 7 (Debian's ``virtuoso-opensource-7``, measured) departs from
them in two ways a reader meets on every library query:

- an ``ASK`` answer is a SELECT result with one variable ``__ASK_RETVAL``: one row with the
  typed integer ``1`` when true, no row at all when false, not the ``{"boolean": true}`` of
  SPARQL 1.1 Query Results JSON (section 3.2);
- a blank node is labelled ``nodeID://b10028``, which is no blank node label of the
  N-Triples/SPARQL grammar (``BLANK_NODE_LABEL``), so pyoxigraph refuses the whole answer;
- a stored ``"true"^^xsd:boolean`` comes back as ``"1"^^xsd:boolean`` (a valid lexical form
  of the same value, but not the same term).

:func:`standard_json` rewrites a JSON answer into the standard form: the ASK row becomes the
boolean, each blank node label the grammar refuses becomes a label it accepts (the same for the
same label throughout the answer: a blank node is only meaningful within one answer), and a
boolean takes its canonical form. Integers of a derived datatype (``xsd:nonNegativeInteger``,
...) come back as ``xsd:integer``, as the embedded store gives them (Oxigraph keeps no integer
subtype: pyoxigraph 0.5.13 stores ``"5"^^xsd:nonNegativeInteger`` as ``"5"^^xsd:integer``), so a
remote store's rows are the embedded store's. An answer with nothing to change passes through
unchanged, byte for byte.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

from ..core.errors import StoreError

#: SPARQL 1.1 / N-Triples BLANK_NODE_LABEL without its ``_:``, ASCII part (enough to decide)
_LABEL = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_\-])?$")
#: The variable Virtuoso answers an ASK with.
_ASK_VARIABLE = "__ASK_RETVAL"
_XSD = "http://www.w3.org/2001/XMLSchema#"
#: XSD's datatypes derived from xsd:integer, which Oxigraph stores as xsd:integer
_INTEGER_SUBTYPES = frozenset(
    _XSD + t
    for t in (
        "nonNegativeInteger",
        "positiveInteger",
        "nonPositiveInteger",
        "negativeInteger",
        "long",
        "int",
        "short",
        "byte",
        "unsignedLong",
        "unsignedInt",
        "unsignedShort",
        "unsignedByte",
    )
)
_BOOLEANS = {"1": "true", "0": "false"}


def blank_label(label: str) -> str:
    """``label`` if the grammar accepts it as a blank node label, else a label it accepts, one-to-one.

    >>> blank_label("b1"), blank_label("nodeID://b10028")
    ('b1', 'x6e6f646549443a2f2f623130303238')
    """
    if _LABEL.match(label):
        return label
    # the hex of the label: distinct labels stay distinct, and it starts with a letter
    return "x" + label.encode("utf-8").hex()


def _ask_value(data: dict[str, Any]) -> bool | None:
    """The boolean of a SELECT-shaped ASK answer (``__ASK_RETVAL``: one row if true, none if false), else None."""
    head = data.get("head") or {}
    rows = (data.get("results") or {}).get("bindings")
    if head.get("vars") != [_ASK_VARIABLE] or not isinstance(rows, list) or len(rows) > 1:
        return None
    if not rows:
        return False
    cell = rows[0].get(_ASK_VARIABLE) or {}
    value = str(cell.get("value", "")).strip().lower()
    if value in ("1", "true"):
        return True
    if value in ("0", "false"):
        return False
    return None


def standard_json(body: bytes, *, ask: bool) -> bytes:
    """A SPARQL JSON answer in the standard form pyoxigraph reads (see the module docstring).

    ``ask`` says the query was an ASK, so a Virtuoso-style row is read as its boolean. A body
    that is no JSON object is returned as it is, for the caller's parser to report.

    >>> standard_json(b'{"head":{"vars":["__ASK_RETVAL"]},"results":{"bindings":'
    ...     b'[{"__ASK_RETVAL":{"type":"typed-literal","value":"1"}}]}}', ask=True)
    b'{"head": {}, "boolean": true}'
    >>> standard_json(b'{"head":{"vars":["__ASK_RETVAL"]},"results":{"bindings":[]}}', ask=True)
    b'{"head": {}, "boolean": false}'
    """
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return body
    if not isinstance(data, dict):
        return body
    if ask and "boolean" not in data:
        value = _ask_value(data)
        if value is not None:
            return json.dumps({"head": {}, "boolean": value}).encode("utf-8")
    rows = (data.get("results") or {}).get("bindings")
    if not isinstance(rows, list):
        return body
    changed = False
    for row in rows:
        for cell in row.values() if isinstance(row, dict) else ():
            if isinstance(cell, dict):
                changed = _standard_cell(cell) or changed
    return json.dumps(data).encode("utf-8") if changed else body


def _standard_cell(cell: dict[str, Any]) -> bool:
    """Make one result cell standard in place (see the module docstring); True if it changed."""
    value = str(cell.get("value", ""))
    if cell.get("type") == "bnode":
        fixed = blank_label(value)
        if fixed != value:
            cell["value"] = fixed
            return True
        return False
    datatype = cell.get("datatype")
    if datatype == _XSD + "boolean" and value in _BOOLEANS:
        cell["value"] = _BOOLEANS[value]
        return True
    if datatype in _INTEGER_SUBTYPES:
        cell["datatype"] = _XSD + "integer"
        with contextlib.suppress(ValueError):  # not an integer at all: only the datatype said so; the text stays
            cell["value"] = str(int(value))
        return True
    return False


def truncated_at(headers: dict[str, str], body: bytes, endpoint: str) -> None:
    """Raise StoreError when the server says it cut the rows at its limit (Virtuoso's ``X-SPARQL-MaxRows``).

    Virtuoso sends the header with an answer its ``ResultSetMaxRows`` cut short, and nothing
    else says so: a silently incomplete answer is worse than an error.
    """
    limit = headers.get("x-sparql-maxrows")
    if limit is None:
        return
    try:
        rows = len(json.loads(body)["results"]["bindings"])
        cut = rows >= int(limit)
    except (ValueError, KeyError, TypeError):
        cut = True
    if cut:
        raise StoreError(
            f"endpoint {endpoint} cut the answer at {limit} rows (its result-size limit); raise ResultSetMaxRows "
            "in virtuoso.ini's [SPARQL] section (docs/remote.md)"
        )
