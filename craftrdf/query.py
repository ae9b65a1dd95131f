"""The query library (``queries/*.rq``) and running queries with bound parameters.

A query is named by its file stem (``annotation-counts``) or given as a path.
Parameters are bound with pyoxigraph's ``substitutions`` (SEP-0007), never pasted into
the text: a CURIE or IRI becomes an IRI, anything else a plain literal. pyoxigraph only
binds variables of the SELECT list, so every parameter of a library query is projected.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Literal

import pyoxigraph as ox

from .curie import CurieMap
from .errors import QueryError
from .store import AnnotationStore

__all__ = ["NamedQuery", "QueryResult", "bind_value", "format_result", "library", "resolve_query", "run_query"]

OutputFormat = Literal["table", "csv", "tsv", "json"]
_PARAM = re.compile(r"^#\s+\?(\w+)\s+(.*)$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


@dataclass(frozen=True, slots=True)
class NamedQuery:
    """A SPARQL query with its name, header text and documented parameters."""

    name: str
    text: str
    description: str
    params: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class QueryResult:
    """Rows of a SELECT query: column names and terms (None where unbound)."""

    columns: tuple[str, ...]
    rows: tuple[tuple[ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple | None, ...], ...]


def _parse(name: str, text: str) -> NamedQuery:
    header = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        header.append(line)
    description = header[0].lstrip("# ").strip() if header else ""
    params = tuple(m.group(1) for m in (_PARAM.match(h) for h in header) if m)
    return NamedQuery(name, text, description, params)


def library() -> dict[str, NamedQuery]:
    """Every query shipped with craftrdf, by name."""
    out = {}
    for entry in resources.files("craftrdf.queries").iterdir():
        if entry.name.endswith(".rq"):
            name = entry.name[:-3]
            out[name] = _parse(name, entry.read_text(encoding="utf-8"))
    return dict(sorted(out.items()))


def resolve_query(name_or_path: str) -> NamedQuery:
    """A library query by name, or a query file by path; QueryError if neither exists."""
    path = Path(name_or_path)
    if path.suffix == ".rq" or path.is_file():
        try:
            return _parse(path.stem, path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise QueryError(f"cannot read query file {path}: {exc.strerror}") from None
    lib = library()
    if name_or_path in lib:
        return lib[name_or_path]
    raise QueryError(f"no query named {name_or_path!r}; library: {', '.join(lib)}")


def bind_value(value: str, curies: CurieMap) -> ox.NamedNode | ox.Literal:
    """An IRI for a CURIE or an absolute IRI, else a plain string literal.

    >>> bind_value("UBERON:0000955", CurieMap())
    <NamedNode value=http://purl.obolibrary.org/obo/UBERON_0000955>
    >>> bind_value("UBERON_EXT", CurieMap()).value
    'UBERON_EXT'
    """
    if value.startswith(("http://", "https://", "urn:")) and not any(c in value for c in ' <>"{}|^`\\'):
        return ox.NamedNode(value)
    if curies.is_curie(value):
        return ox.NamedNode(curies.expand(value))
    return ox.Literal(value)


def run_query(
    store: AnnotationStore,
    query: NamedQuery,
    params: Mapping[str, str] | None = None,
    *,
    curies: CurieMap | None = None,
    named_graphs: Sequence[str] | None = None,
) -> QueryResult:
    """Run a SELECT query with parameters bound by name; QueryError on any problem.

    Each parameter name must be a variable of the query's SELECT list. ``named_graphs``
    restricts the graphs the query sees (how views choose their annotation sets).
    """
    curies = curies or CurieMap()
    subs = {}
    for name, value in (params or {}).items():
        if not _NAME.match(name):
            raise QueryError(f"invalid parameter name {name!r}")
        subs[name] = bind_value(value, curies)
    try:
        solutions = store.query(query.text, substitutions=subs, named_graphs=named_graphs)
    except SyntaxError as exc:
        raise QueryError(f"query {query.name}: SPARQL syntax error: {exc}") from None
    except RuntimeError as exc:
        if "SELECT projection" in str(exc):
            known = ", ".join(query.params) or "none documented"
            var = re.search(r"\?\w+", str(exc))
            raise QueryError(
                f"query {query.name} has no parameter {var.group(0) if var else '?'} in its SELECT list; "
                f"parameters: {known}"
            ) from None
        raise QueryError(f"query {query.name} failed: {exc}") from None
    if not isinstance(solutions, ox.QuerySolutions):
        raise QueryError(f"query {query.name} is not a SELECT query")
    columns = tuple(v.value for v in solutions.variables)
    rows = tuple(tuple(sol[c] for c in columns) for sol in solutions)
    return QueryResult(columns, rows)


def _plain(term: object, curies: CurieMap | None) -> str:
    if term is None:
        return ""
    if isinstance(term, ox.NamedNode):
        return curies.compress(term.value) if curies else term.value
    if isinstance(term, ox.Literal):
        return term.value
    return str(term)


def _json_term(term: object) -> dict[str, str] | None:
    if isinstance(term, ox.NamedNode):
        return {"type": "uri", "value": term.value}
    if isinstance(term, ox.BlankNode):
        return {"type": "bnode", "value": term.value}
    if isinstance(term, ox.Literal):
        out = {"type": "literal", "value": term.value}
        if term.language:
            out["xml:lang"] = term.language
        elif term.datatype.value != "http://www.w3.org/2001/XMLSchema#string":
            out["datatype"] = term.datatype.value
        return out
    return None


def format_result(result: QueryResult, fmt: OutputFormat = "table", *, curies: CurieMap | None = None) -> str:
    """Render rows as an aligned table (IRIs shown as CURIEs), CSV, TSV or SPARQL 1.1 JSON results.

    CSV and TSV write full IRIs and plain values, one header line of column names.
    """
    if fmt == "json":
        bindings = []
        for row in result.rows:
            b = {c: j for c, t in zip(result.columns, row) if (j := _json_term(t)) is not None}
            bindings.append(b)
        return json.dumps({"head": {"vars": list(result.columns)}, "results": {"bindings": bindings}}, indent=1)
    if fmt in ("csv", "tsv"):
        buf = io.StringIO()
        writer = csv.writer(buf, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        writer.writerow(result.columns)
        for row in result.rows:
            writer.writerow([_plain(t, None) for t in row])
        return buf.getvalue()
    if fmt != "table":
        raise QueryError(f"unknown output format {fmt!r}: use table, csv, tsv or json")
    cells = [list(result.columns)] + [[_plain(t, curies or CurieMap()) for t in row] for row in result.rows]
    cells = [[c if len(c) <= 80 else c[:77] + "..." for c in row] for row in cells]
    widths = [max(len(r[i]) for r in cells) for i in range(len(result.columns))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"
