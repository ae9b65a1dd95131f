"""The query library (``querying/queries/*.rq``) and running queries with bound parameters.

A query is named by its file stem (``annotation-counts``) or given as a path.
Parameters are bound with pyoxigraph's ``substitutions`` (SEP-0007), never pasted into
the text: a CURIE or IRI becomes an IRI, anything else a plain literal. pyoxigraph only
binds variables of the SELECT list, so every parameter of a library query is projected.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import Any, Literal, Protocol, cast

import pyoxigraph as ox

from ..core.curie import CRAFT_PREFIXES, CurieMap
from ..core.errors import QueryError
from ..core.vocab import FN, OBO, prefixes
from ..store.local import ReadableStore
from .sets import resolve_set

OutputFormat = Literal["table", "csv", "tsv", "json"]
_PARAM = re.compile(r"^#\s+\?(\w+)\s+(.*)$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
_INTERNAL = re.compile(r"^#\s*Internal:")
_PURPOSE_WIDTH = 100
#: The library queries' parameter that names an annotation set by its key.
_SET_PARAM = "set"


@dataclass(frozen=True, slots=True)
class NamedQuery:
    """A SPARQL query with its name, header text and documented parameters.

    ``internal``: the header says ``# Internal: ...`` (a query craftrdf's own code runs,
    left out of ``craftrdf query --list``); ``builtin``: it comes from the library, not a file.
    """

    name: str
    text: str
    description: str
    params: tuple[str, ...]
    internal: bool = False
    builtin: bool = False

    @property
    def purpose(self) -> str:
        """The first sentence of the header without the leading ``name:``, cut to about 100 characters.

        >>> library()["sets"].purpose
        'the annotation sets in the store, with module, variant, ontology graph and size.'
        """
        paragraph = []
        for line in self.text.splitlines():
            body = line.removeprefix("#").strip() if line.startswith("#") else ""
            if not body:
                break
            paragraph.append(body)
        first = re.split(r"(?<=\.)\s", " ".join(paragraph).removeprefix(f"{self.name}:").strip(), maxsplit=1)[0]
        if len(first) <= _PURPOSE_WIDTH:
            return first
        return first[: first.rfind(" ", 0, _PURPOSE_WIDTH - 3)].rstrip(",;:(") + "..."


Term = ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple
#: A term as a Python value: an IRI or blank node as its string, a literal as ``int``, ``float``,
#: ``bool``, ``decimal.Decimal`` or ``str`` by its datatype, an unbound variable as None.
PyValue = str | int | float | bool | Decimal | None

_XSD = "http://www.w3.org/2001/XMLSchema#"
_INTEGERS = {
    _XSD + t
    for t in (
        "integer",
        "int",
        "long",
        "short",
        "byte",
        "nonNegativeInteger",
        "positiveInteger",
        "nonPositiveInteger",
        "negativeInteger",
        "unsignedInt",
        "unsignedLong",
        "unsignedShort",
        "unsignedByte",
    )
}


def python_value(term: Term | None) -> PyValue:
    """A term as a Python value (see :data:`PyValue`); a literal that does not parse stays a string.

    >>> python_value(ox.Literal("3", datatype=ox.NamedNode(_XSD + "integer"))), python_value(None)
    (3, None)
    >>> python_value(ox.NamedNode("http://e/a")), python_value(ox.Literal("x", language="en"))
    ('http://e/a', 'x')
    """
    if term is None:
        return None
    if isinstance(term, ox.Literal):
        dt = term.datatype.value
        try:
            if dt in _INTEGERS:
                return int(term.value)
            if dt in (_XSD + "double", _XSD + "float"):
                return float(term.value)
            if dt == _XSD + "decimal":
                return Decimal(term.value)
            if dt == _XSD + "boolean":
                return term.value in ("true", "1")
        except (ValueError, ArithmeticError):
            return term.value
        return term.value
    if isinstance(term, ox.Triple):
        return str(term)
    return term.value


@dataclass(frozen=True, slots=True)
class QueryResult:
    """Rows of a SELECT query: column names and terms (None where unbound).

    ``rows`` keeps the terms as pyoxigraph gives them; :meth:`strings`,
    :meth:`optional_strings` and :meth:`records` give typed views of the same rows, so
    callers need not test each cell for None.

    >>> two = ox.Literal("2", datatype=ox.NamedNode(_XSD + "integer"))
    >>> r = QueryResult(("s", "n"), ((ox.NamedNode("http://e/a"), two),))
    >>> r.strings("s", "n"), r.records()
    ([('http://e/a', '2')], [{'s': 'http://e/a', 'n': 2}])
    """

    columns: tuple[str, ...]
    rows: tuple[tuple[Term | None, ...], ...]

    def __len__(self) -> int:
        return len(self.rows)

    def index(self, column: str) -> int:
        """The position of ``column``; QueryError naming the columns there are."""
        try:
            return self.columns.index(column)
        except ValueError:
            raise QueryError(f"no column {column!r} in the result; columns: {', '.join(self.columns)}") from None

    def strings(self, *columns: str) -> list[tuple[str, ...]]:
        """Each row's ``columns`` as lexical values (IRIs as IRIs); QueryError if one is unbound in a row."""
        out = self.optional_strings(*columns)
        for row in out:
            if None in row:
                c = columns[row.index(None)]
                raise QueryError(f"column {c!r} is unbound in a row of the result")
        return cast(list[tuple[str, ...]], out)  # no None left: checked above

    def optional_strings(self, *columns: str) -> list[tuple[str | None, ...]]:
        """Each row's ``columns`` as lexical values, None where unbound."""
        idx = [self.index(c) for c in columns]
        return [tuple(None if (v := row[i]) is None else _lexical(v) for i in idx) for row in self.rows]

    def records(self) -> list[dict[str, PyValue]]:
        """Rows as ``{column: Python value}`` (:func:`python_value`): what a notebook wants."""
        return [{c: python_value(t) for c, t in zip(self.columns, row)} for row in self.rows]


def _lexical(term: Term) -> str:
    return str(term) if isinstance(term, ox.Triple) else term.value


def _parse(name: str, text: str, *, builtin: bool = False) -> NamedQuery:
    header = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        header.append(line)
    description = header[0].lstrip("# ").strip() if header else ""
    params = tuple(m.group(1) for m in (_PARAM.match(h) for h in header) if m)
    internal = any(_INTERNAL.match(h) for h in header)
    return NamedQuery(name, text, description, params, internal=internal, builtin=builtin)


def library() -> dict[str, NamedQuery]:
    """Every query shipped with craftrdf, by name (the internal ones too: see :attr:`NamedQuery.internal`)."""
    out = {}
    for entry in resources.files("craftrdf.querying.queries").iterdir():
        if entry.name.endswith(".rq"):
            name = entry.name[:-3]
            out[name] = _parse(name, entry.read_text(encoding="utf-8"), builtin=True)
    return dict(sorted(out.items()))


def resolve_query(name_or_path: str) -> NamedQuery:
    """A library query by name, or a query file by path.

    QueryError if neither exists: it suggests the library names closest to a misspelled
    one (the queries meant for users first) and points at ``craftrdf query --list``.
    """
    path = Path(name_or_path)
    if path.suffix == ".rq" or path.is_file():
        try:
            return _parse(path.stem, path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise QueryError(f"cannot read query file {path}: {exc.strerror}") from None
    lib = library()
    if name_or_path in lib:
        return lib[name_or_path]
    # the queries meant for users first: an internal name is offered only when none of those is close
    user, internal = ([n for n in lib if lib[n].internal is hidden] for hidden in (False, True))
    close = difflib.get_close_matches(name_or_path, user, n=3) or difflib.get_close_matches(name_or_path, internal, n=3)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    raise QueryError(f"no query named {name_or_path!r}{hint} (craftrdf query --list shows the library)")


def resolve_params(store: ReadableStore, query: NamedQuery, params: Mapping[str, str]) -> dict[str, str]:
    """A user's parameters for ``query``, with the set key of a library query resolved in ``store``.

    A library query's ``set`` parameter goes through :func:`craftrdf.querying.sets.resolve_set`, as
    every command's set key does: any case, and ConfigError listing the store's sets for an
    unknown key (instead of an empty result). A query read from a file, and other
    parameters, pass unchanged.
    """
    out = dict(params)
    if query.builtin and _SET_PARAM in query.params and _SET_PARAM in out:
        out[_SET_PARAM] = resolve_set(store, out[_SET_PARAM]).key
    return out


class ExtensionFunctions(Protocol):
    """SPARQL extension functions for one query (:class:`craftrdf.analysis.similarity.sparql.FunctionSession`).

    ``functions`` goes to pyoxigraph's ``custom_functions``; ``check`` raises, once the rows are
    read, a problem a function met (pyoxigraph makes a function's exception an unbound value).
    """

    @property
    def functions(self) -> Mapping[ox.NamedNode, Callable[..., Any]]:
        """The functions by IRI."""
        ...

    def check(self) -> None:
        """Raise QueryError for a problem met during the query."""
        ...


def query_prefixes() -> dict[str, str]:
    """The prefixes every query craftrdf runs may use undeclared: the library's, ``craftrdf:`` and the OBO ones.

    ``craftrdf:`` is the extension functions' namespace (``craftrdf:wang``); each CRAFT ontology's
    prefix and its ``_EXT`` variant map into the OBO PURL space, so ``UBERON:0000955`` and
    ``UBERON_EXT:bone`` are IRIs in a query as on the command line. A query's own ``PREFIX`` wins.

    >>> query_prefixes()["UBERON"], query_prefixes()["craftrdf"]
    ('http://purl.obolibrary.org/obo/UBERON_', 'https://w3id.org/craftrdf/function#')
    """
    out = prefixes()
    out["craftrdf"] = FN.NS
    for p in CRAFT_PREFIXES:
        out[p] = f"{OBO.NS}{p}_"
        out[f"{p}_EXT"] = f"{OBO.NS}{p}_EXT_"
    return out


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
        try:
            return ox.NamedNode(curies.expand(value))
        except ValueError:  # a CURIE-like text whose expansion is no IRI (a control character): a string
            pass
    return ox.Literal(value)


def run_query(
    store: ReadableStore,
    query: NamedQuery | str,
    params: Mapping[str, str] | None = None,
    *,
    curies: CurieMap | None = None,
    named_graphs: Sequence[str] | None = None,
    functions: ExtensionFunctions | None = None,
) -> QueryResult:
    """Run a SELECT query with parameters bound by name; QueryError on any problem.

    ``query`` is a :class:`NamedQuery` or a library query's name or a ``.rq`` path
    (:func:`resolve_query`). Each parameter name must be a variable of the query's SELECT
    list. ``named_graphs`` restricts the graphs the query sees (how views choose their
    annotation sets). ``functions``: extension functions the query may call (an embedded
    store runs them; a remote server runs its own). The prefixes of :func:`query_prefixes`
    need no declaration.
    """
    if isinstance(query, str):
        query = resolve_query(query)
    curies = curies or CurieMap()
    subs = {}
    for name, value in (params or {}).items():
        if not _NAME.match(name):
            raise QueryError(f"invalid parameter name {name!r}")
        subs[name] = bind_value(value, curies)
    try:
        solutions = store.query(
            query.text,
            substitutions=subs,
            prefixes=query_prefixes(),
            named_graphs=named_graphs,
            custom_functions=functions.functions if functions is not None else None,
        )
        if not isinstance(solutions, ox.QuerySolutions):
            raise QueryError(f"query {query.name} is not a SELECT query")
        columns = tuple(v.value for v in solutions.variables)
        rows = tuple(tuple(sol[c] for c in columns) for sol in solutions)
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
    if functions is not None:
        functions.check()
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
    cm = curies or CurieMap()
    cells = [list(result.columns)] + [[_plain(t, cm) for t in row] for row in result.rows]
    cells = [[c if len(c) <= 80 else c[:77] + "..." for c in row] for row in cells]
    widths = [max(len(r[i]) for r in cells) for i in range(len(result.columns))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"
