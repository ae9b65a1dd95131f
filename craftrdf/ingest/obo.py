"""A small, streaming reader for OBO 1.2 / 1.4 flat files.

CRAFT ships its ontologies as OBO files that stricter parsers (pronto, fastobo) reject:
an escaped colon inside an xref IRI (``xref: http:http\\://en.wikipedia.org/...``),
``def:`` values with stray quotes (10,014 wrapped in a second pair of quotes in the GO_MF
extension file, one with an unescaped quote in SO+extensions), escapes such as ``\\'``
and ``\\,`` that OBO 1.4 does not list. This reader accepts all of that, keeps only what
:class:`~craftrdf.core.model.Term` and :class:`~craftrdf.core.model.Typedef` hold, and never keeps
more than one stanza in memory.

Lexical rules (OBO 1.4 section 2, read leniently):

* a line is ``tag: value``; leading and trailing whitespace is ignored; ``! ...`` outside
  a quoted string is a comment; a final ``{...}`` outside quotes holds trailing modifiers,
  which are dropped;
* ``\\`` escapes the next character in quoted and unquoted values alike: ``\\n`` is a
  newline, ``\\t`` a tab, ``\\W`` a space, any other ``\\x`` is ``x``;
* ``[Term]`` and ``[Typedef]`` stanzas are read; ``[Instance]`` and unknown stanza types
  are skipped with one :class:`~craftrdf.core.errors.DataWarning` per type; unknown tags are
  ignored silently.

Recoverable versus fatal: a malformed stanza (no ``id:``, an unterminated quoted string,
a synonym with an unknown scope, a tag line without ``:``, ...) and a second stanza with
an id already seen are warned about and skipped with ``strict=False``; with
``strict=True`` they raise :class:`~craftrdf.core.errors.OboSyntaxError`. Both name the file
and the 1-based line (``grep -n`` numbering: lines end at LF only).
"""

from __future__ import annotations

import logging
import os
import re
import warnings
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from functools import partial
from typing import IO

from ..core.errors import DataWarning, OboSyntaxError
from ..core.model import Synonym, SynonymScope, Term, Typedef
from ._obo_values import (
    parse_definition,
    parse_id,
    parse_intersection,
    parse_relationship,
    parse_synonym,
    parse_unquoted,
    parse_xref,
)
from .files import open_text

logger = logging.getLogger(__name__)

#: OBO 1.0 synonym tags and the scope each implies.
_OBO10_SYNONYMS: dict[str, SynonymScope] = {
    "exact_synonym": "EXACT",
    "broad_synonym": "BROAD",
    "narrow_synonym": "NARROW",
    "related_synonym": "RELATED",
}
_TYPEDEF_FLAGS = ("is_transitive", "is_obsolete", "is_symmetric", "is_metadata_tag")
_TYPEDEF_SINGLE = ("inverse_of", "domain", "range")
_HEADER_FIELDS = ("format-version", "data-version", "ontology", "default-namespace")

_SURROGATE = re.compile("[\udc80-\udcff]")
#: The longest line read, in characters: 350 times the longest line of CRAFT's OBO files (3,008, in
#: UBERON.obo) and well under the 16 MiB that pyoxigraph's bulk loader takes in one N-Quads line.
MAX_LINE_CHARS = 1 << 20


@dataclass(frozen=True, slots=True)
class OboHeader:
    """The header frame of an OBO file: the tags before the first stanza.

    The four common tags get fields (comments and modifiers removed, escapes decoded);
    ``tags`` holds every other header line as ``(tag, raw value)`` in file order, the
    value only stripped of surrounding whitespace (header tags have many grammars).
    """

    format_version: str | None = None
    data_version: str | None = None
    ontology: str | None = None
    default_namespace: str | None = None
    tags: tuple[tuple[str, str], ...] = ()


def iter_obo(
    path: str | os.PathLike[str],
    *,
    strict: bool = False,
    tags: Collection[str] | None = None,
    max_line: int = MAX_LINE_CHARS,
) -> Iterator[OboHeader | Term | Typedef]:
    """Yield the header of an OBO file, then its ``[Term]`` and ``[Typedef]`` stanzas in order.

    ``path`` may be plain, ``.gz`` or ``.zip`` (see :func:`open_text`). The header is
    always yielded first (empty fields if the file has none); each stanza is yielded
    once the next one starts, so memory stays flat except for the set of ids already
    seen (used to skip duplicates: the first stanza with an id wins).

    Problems are reported as :class:`DataWarning` (the stanza is skipped) or, with
    ``strict=True``, raised as :class:`OboSyntaxError` with ``source`` and ``line``:
    malformed stanzas, duplicate ids, and bytes that are not UTF-8 (without strict they
    are read as Latin-1, one warning per file). Two unambiguous ``def:`` quoting slips
    are repaired silently in both modes (see :func:`_definition`): a value wrapped in a
    second pair of quotes, ``def: ""text" [refs]"``, and unescaped quotes inside the
    text, ``def: "CHEBI:'ribosomal RNA" or SO_EXT:rRNA"``. Unknown stanza types such as
    ``[Instance]`` are skipped with one warning per type, in both modes.

    A file that is not an ontology is an :class:`OboSyntaxError`, never an empty ontology:
    binary data (a NUL byte in the header), a first line that is neither ``tag: value`` nor a stanza
    header, or no ``[Term]`` or ``[Typedef]`` stanza read at all (an empty file, a header
    alone, every stanza malformed). The last is known only at the end, so the error comes
    after the items already yielded: consume the whole iterator before writing anything.

    ``tags`` (``{"id", "is_a"}``, say) reads only those tags of each stanza; the other lines are
    skipped before their values are parsed, so they can be neither wrong nor reported. Much faster
    when a caller needs a stanza's structure only. The header is read whole.

    A line longer than ``max_line`` characters is an :class:`OboSyntaxError` giving its number and
    the limit, raised once that many characters are read (the line is never held whole).
    """
    source = str(path)
    keep = None if tags is None else frozenset(tags) | {"id"}
    seen: dict[str, set[str]] = {"Term": set(), "Typedef": set()}
    skipped_kinds: set[str] = set()
    kind: str | None = None  # None while in the header
    start = 0
    lines: list[tuple[int, str]] = []
    with open_text(path, errors="surrogateescape") as stream:
        lineno = 0
        for lineno, line in _content_lines(stream, source, strict, max_line):
            if line[0] != "[":
                if kind is None or (kind in seen and (keep is None or line[: line.find(":")].rstrip() in keep)):
                    lines.append((lineno, line))
                continue
            # a stanza header: finish what came before
            if kind is None:
                yield _header(lines, source, strict)
            elif kind in seen:
                item = _finish(kind, start, lines, source, seen[kind], strict)
                if item is not None:
                    yield item
            kind, start, lines = _stanza_kind(line), lineno, []
            if not kind:
                message = f"{source}, line {lineno}: malformed stanza header {line!r}; stanza skipped"
                if strict:
                    raise OboSyntaxError(f"malformed stanza header {line!r}", source=source, line=lineno)
                warnings.warn(message, DataWarning, stacklevel=2)
            elif kind not in seen and kind not in skipped_kinds:
                skipped_kinds.add(kind)
                warnings.warn(
                    f"{source}, line {lineno}: [{kind}] stanzas are not read (skipped)", DataWarning, stacklevel=2
                )
        if kind is None:
            yield _header(lines, source, strict)
        elif kind in seen:
            item = _finish(kind, start, lines, source, seen[kind], strict)
            if item is not None:
                yield item
    if not seen["Term"] and not seen["Typedef"]:
        what = "no content (empty, or only comments)" if lineno == 0 else "no [Term] or [Typedef] stanza could be read"
        raise OboSyntaxError(f"not an OBO ontology: {what}", source=source)
    logger.debug("read %s: %d lines", source, lineno)


def _content_lines(stream: IO[str], source: str, strict: bool, max_line: int) -> Iterator[tuple[int, str]]:
    """``(line number, stripped line)`` of every line that is not blank or a comment.

    Refuses what is not OBO text before anything is warned about: a NUL byte before the
    first stanza, a first line that is neither ``tag: value`` nor ``[Stanza]``. Bytes that are not UTF-8
    are read as Latin-1 with one warning (an error if ``strict``). A line longer than ``max_line``
    is an error as soon as its first ``max_line + 1`` characters are read.
    """
    started = recoded = in_stanzas = False
    # readline with a size bounds the memory a line without end can take
    for lineno, raw in enumerate(iter(partial(stream.readline, max_line + 1), ""), 1):
        if len(raw) > max_line and not (len(raw) == max_line + 1 and raw[-1] == "\n"):
            length = len(raw.rstrip("\n")) + _rest_of_line(stream, max_line)
            message = f"a line of {length:,} characters, longer than the limit of {max_line:,} (OBO lines)"
            raise OboSyntaxError(message, source=source, line=lineno)
        # NUL is binary data in a header; inside stanzas it is a (strange) character of a value
        if not in_stanzas and "\0" in raw:
            raise OboSyntaxError("not an OBO file: binary data (a NUL byte)", source=source, line=lineno)
        line = raw.strip()
        if not line or line[0] == "!":
            continue
        if not started:
            started = True
            if line[0] != "[" and ":" not in line:
                shown = _SURROGATE.sub("\ufffd", line[:60])
                message = f"not an OBO file: the first line is neither 'tag: value' nor '[Stanza]': {shown!r}"
                raise OboSyntaxError(message, source=source, line=lineno)
        in_stanzas = in_stanzas or line[0] == "["
        if not line.isascii() and _SURROGATE.search(line):
            if strict:
                raise OboSyntaxError("bytes that are not UTF-8", source=source, line=lineno)
            line = _SURROGATE.sub(_latin1, line)
            if not recoded:
                recoded = True
                warnings.warn(
                    f"{source}, line {lineno}: bytes that are not UTF-8, read as Latin-1 (later lines not reported)",
                    DataWarning,
                    stacklevel=3,
                )
        yield lineno, line


def _rest_of_line(stream: IO[str], chunk: int) -> int:
    """The characters left in the current line (its LF not counted), read ``chunk`` at a time and dropped."""
    n = 0
    while piece := stream.readline(chunk):
        if piece[-1] == "\n":
            return n + len(piece) - 1
        n += len(piece)
    return n


def _finish(
    kind: str, start: int, lines: list[tuple[int, str]], source: str, seen: set[str], strict: bool
) -> Term | Typedef | None:
    """Build one stanza's record, or warn (raise if strict) and return None when it is bad."""
    try:
        item: Term | Typedef = _term(start, lines, source) if kind == "Term" else _typedef(start, lines, source)
        if item.id in seen:
            raise OboSyntaxError(f"duplicate id {item.id!r}: an earlier stanza has it", source=source, line=start)
    except OboSyntaxError as exc:
        if strict:
            raise
        warnings.warn(f"{exc}; [{kind}] stanza at line {start} skipped", DataWarning, stacklevel=3)
        return None
    seen.add(item.id)
    return item


def _stanza_kind(line: str) -> str:
    """``Term`` from ``[Term]`` (a trailing comment allowed); ``""`` if the line is malformed."""
    end = line.find("]")
    if end < 0 or line[end + 1 :].strip()[:1] not in ("", "!"):
        return ""
    return line[1:end].strip()


def _latin1(m: re.Match[str]) -> str:
    """The Latin-1 character for one byte smuggled as a surrogate by ``surrogateescape``."""
    return chr(ord(m.group()) - 0xDC00)


def _split(lineno: int, line: str, source: str) -> tuple[str, str]:
    """``(tag, raw value)`` of a tag line; OboSyntaxError if it has no colon."""
    tag, sep, raw = line.partition(":")
    if not sep:
        raise OboSyntaxError(f"tag line without ':': {line!r}", source=source, line=lineno)
    return tag.rstrip(), raw.strip()


def _header(lines: list[tuple[int, str]], source: str, strict: bool) -> OboHeader:
    """The header frame from its lines; a line without ':' is warned about and dropped."""
    known: dict[str, str] = {}
    tags: list[tuple[str, str]] = []
    for lineno, line in lines:
        try:
            tag, raw = _split(lineno, line, source)
            if tag in _HEADER_FIELDS and tag not in known:
                known[tag] = parse_unquoted(raw, lineno, source)
            else:
                tags.append((tag, raw))
        except OboSyntaxError as exc:
            if strict:
                raise
            warnings.warn(f"{exc}; header line skipped", DataWarning, stacklevel=3)
    return OboHeader(
        format_version=known.get("format-version"),
        data_version=known.get("data-version"),
        ontology=known.get("ontology"),
        default_namespace=known.get("default-namespace"),
        tags=tuple(tags),
    )


def _term(start: int, lines: list[tuple[int, str]], source: str) -> Term:
    """A :class:`Term` from the tag lines of one ``[Term]`` stanza."""
    id_: str | None = None
    name = namespace = definition = comment = None
    synonyms: list[Synonym] = []
    is_a: list[str] = []
    relationships: list[tuple[str, str]] = []
    alt_ids: list[str] = []
    xrefs: list[str] = []
    subsets: list[str] = []
    replaced_by: list[str] = []
    consider: list[str] = []
    intersection: list[tuple[str | None, str]] = []
    axioms: dict[str, list[str]] = {"union_of": [], "disjoint_from": [], "equivalent_to": []}
    obsolete = False
    for lineno, line in lines:
        tag, raw = _split(lineno, line, source)
        if tag == "synonym":
            synonyms.append(parse_synonym(raw, None, lineno, source))
        elif tag == "xref":
            xrefs.append(parse_xref(raw, lineno, source))
        elif tag == "is_a":
            is_a.append(parse_unquoted(raw, lineno, source))
        elif tag == "id":
            id_ = parse_id(id_, raw, lineno, source)
        elif tag == "name":
            name = name if name is not None else parse_unquoted(raw, lineno, source)
        elif tag == "def":
            definition = definition if definition is not None else parse_definition(raw, lineno, source)
        elif tag == "relationship":
            relationships.append(parse_relationship(raw, lineno, source))
        elif tag == "subset":
            subsets.append(parse_unquoted(raw, lineno, source))
        elif tag == "namespace":
            namespace = namespace if namespace is not None else parse_unquoted(raw, lineno, source)
        elif tag == "comment":
            comment = comment if comment is not None else parse_unquoted(raw, lineno, source)
        elif tag == "is_obsolete":
            obsolete = parse_unquoted(raw, lineno, source).lower() == "true"
        elif tag == "alt_id":
            alt_ids.append(parse_unquoted(raw, lineno, source))
        elif tag == "replaced_by":
            replaced_by.append(parse_unquoted(raw, lineno, source))
        elif tag == "consider":
            consider.append(parse_unquoted(raw, lineno, source))
        elif tag == "intersection_of":
            intersection.append(parse_intersection(raw, lineno, source))
        elif tag in axioms:
            axioms[tag].append(parse_unquoted(raw, lineno, source))
        elif tag in _OBO10_SYNONYMS:
            synonyms.append(parse_synonym(raw, _OBO10_SYNONYMS[tag], lineno, source))
    if id_ is None:
        raise OboSyntaxError("[Term] stanza without an id: tag", source=source, line=start)
    return Term(
        id=id_, name=name, namespace=namespace, definition=definition, comment=comment,
        synonyms=tuple(synonyms), is_a=tuple(is_a), relationships=tuple(relationships),
        alt_ids=tuple(alt_ids), xrefs=tuple(xrefs), subsets=tuple(subsets),
        replaced_by=tuple(replaced_by), consider=tuple(consider), obsolete=obsolete, line=start,
        intersection_of=tuple(intersection), union_of=tuple(axioms["union_of"]),
        disjoint_from=tuple(axioms["disjoint_from"]), equivalent_to=tuple(axioms["equivalent_to"]),
    )  # fmt: skip


def _typedef(start: int, lines: list[tuple[int, str]], source: str) -> Typedef:
    """A :class:`Typedef` from one ``[Typedef]`` stanza; other tags go to ``extra`` raw."""
    id_: str | None = None
    name: str | None = None
    xrefs: list[str] = []
    is_a: list[str] = []
    extra: list[tuple[str, str]] = []
    flags = dict.fromkeys(_TYPEDEF_FLAGS, False)
    single: dict[str, str | None] = dict.fromkeys(_TYPEDEF_SINGLE)
    for lineno, line in lines:
        tag, raw = _split(lineno, line, source)
        if tag == "id":
            id_ = parse_id(id_, raw, lineno, source)
        elif tag == "name":
            name = name if name is not None else parse_unquoted(raw, lineno, source)
        elif tag == "xref":
            xrefs.append(parse_xref(raw, lineno, source))
        elif tag == "is_a":
            is_a.append(parse_unquoted(raw, lineno, source))
        elif tag in flags:
            flags[tag] = parse_unquoted(raw, lineno, source).lower() == "true"
        elif tag in single and single[tag] is None:
            single[tag] = parse_unquoted(raw, lineno, source)
        else:
            extra.append((tag, raw))
    if id_ is None:
        raise OboSyntaxError("[Typedef] stanza without an id: tag", source=source, line=start)
    return Typedef(
        id=id_, name=name, xrefs=tuple(xrefs), is_a=tuple(is_a), transitive=flags["is_transitive"],
        obsolete=flags["is_obsolete"], line=start, extra=tuple(extra), symmetric=flags["is_symmetric"],
        metadata=flags["is_metadata_tag"], inverse_of=single["inverse_of"], domain=single["domain"],
        range=single["range"],
    )  # fmt: skip
