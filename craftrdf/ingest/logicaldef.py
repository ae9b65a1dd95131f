"""The Manchester-like logical definitions of CRAFT's extension classes: syntax tree and parser.

The tree is :mod:`craftrdf.core.classexpr`'s (leaves: unresolved :class:`Named` references).
CRAFT's extension classes (``UBERON_EXT:bone_element_or_tissue``, ...) hold in their OBO
``def:`` a logical definition such as::

    UBERON:'bone element' or UBERON:'bone tissue'
    CL:cell and ((proper_part_of some UBERON:liver) or (derives_from o proper_part_of some UBERON:liver))

:func:`parse_definition` reads that syntax (class references as ``PREFIX:'quoted label'``,
``PREFIX:unquoted_label``, ``PREFIX:id`` or a bare ``'label'``; ``or``, ``and``, ``not``,
parentheses; restrictions ``prop some|only|value X``, ``prop exactly|min|max N X`` with
property chains ``p o q``). :class:`LabelIndex` and :func:`resolve_reference` turn a
reference into a class id: an id first, then an ``rdfs:label`` among the classes of the
reference's prefix (case-insensitively), exactly, then ignoring case, then reading ``_``
as a space; a parallel prefix (``SO_EXT:deletion``) that finds nothing is tried under its
base prefix (``SO:``). The ontology reader (:mod:`craftrdf.ingest.ontology`) writes the
definitions as OWL axioms; :mod:`craftrdf.ontology.extensions` places union classes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Literal

from ..core.classexpr import And, Expr, Named, Not, Or, Restriction
from ..core.errors import InputError


class DefinitionSyntaxError(InputError):
    """A logical definition that is not in the Manchester-like syntax craftrdf reads."""


# -- tokens -----------------------------------------------------------------------------

_PREFIX = re.compile(r"([A-Za-z][A-Za-z0-9_]*):")
# An unquoted local part; a parenthesised group glued to it belongs to it: aspartate(1-).
_LOCAL = re.compile(r"[^\s()']+(?:\([^\s()]*\))?")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_INT = re.compile(r"[0-9]+")
_PARALLEL_PREFIX = re.compile(r"^(CHEBI|GO|PR|SO)_EXT$", re.IGNORECASE)
_KEYWORDS = {"or", "and", "not", "some", "only", "value", "exactly", "min", "max", "o"}

Token = tuple[Literal["(", ")", "named", "word", "int"], object, int]


def _quoted(text: str, start: int) -> tuple[str, int]:
    """The label of a quote opening at ``start``; it closes at a quote followed by a space,
    a parenthesis or the end (labels hold apostrophes: 'inosine 5'-phosphate(1-) residue')."""
    i = start + 1
    while True:
        j = text.find("'", i)
        if j < 0:
            raise DefinitionSyntaxError(f"unterminated quoted label at character {start + 1}", source=text)
        if j + 1 == len(text) or text[j + 1].isspace() or text[j + 1] == ")":
            return text[start + 1 : j], j + 1
        i = j + 1


def _tokens(text: str) -> Iterator[Token]:
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c in "()":
            yield ("(" if c == "(" else ")", c, i)
            i += 1
        elif c == "'":
            label, i2 = _quoted(text, i)
            yield ("named", Named(None, label, True), i)
            i = i2
        elif m := _PREFIX.match(text, i):
            j = m.end()
            if j < n and text[j] == "'":
                label, i2 = _quoted(text, j)
                yield ("named", Named(m.group(1), label, True), i)
                i = i2
            elif lm := _LOCAL.match(text, j):
                yield ("named", Named(m.group(1), lm.group(0)), i)
                i = lm.end()
            else:
                raise DefinitionSyntaxError(f"nothing after {m.group(0)!r} at character {i + 1}", source=text)
        elif m := _INT.match(text, i):
            yield ("int", int(m.group(0)), i)
            i = m.end()
        elif m := _WORD.match(text, i):
            yield ("word", m.group(0), i)
            i = m.end()
        else:
            raise DefinitionSyntaxError(f"unexpected {c!r} at character {i + 1}", source=text)


class _Parser:
    """Recursive descent: expr := conj (or conj)*; conj := prim (and prim)*."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = list(_tokens(text))
        self.pos = 0

    def error(self, what: str) -> DefinitionSyntaxError:
        if self.pos < len(self.toks):
            where = f"at character {self.toks[self.pos][2] + 1}"
        else:
            where = "at the end"
        return DefinitionSyntaxError(f"{what} {where}", source=self.text)

    def peek(self) -> Token | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def is_word(self, *words: str) -> bool:
        t = self.peek()
        return t is not None and t[0] == "word" and t[1] in words

    def take(self) -> Token:
        t = self.peek()
        if t is None:
            raise self.error("unexpected end")
        self.pos += 1
        return t

    def parse(self) -> Expr:
        if not self.toks:
            raise DefinitionSyntaxError("empty definition", source=self.text)
        e = self.expr()
        extra = self.peek()
        if extra is not None:
            raise self.error(f"unexpected {extra[1]!s}")
        return e

    def expr(self) -> Expr:
        items = [self.conj()]
        while self.is_word("or"):
            self.pos += 1
            items.append(self.conj())
        return items[0] if len(items) == 1 else Or(tuple(items))

    def conj(self) -> Expr:
        items = [self.prim()]
        while self.is_word("and"):
            self.pos += 1
            items.append(self.prim())
        return items[0] if len(items) == 1 else And(tuple(items))

    def prim(self) -> Expr:
        t = self.take()
        kind, value = t[0], t[1]
        if kind == "(":
            e = self.expr()
            close = self.peek()
            if close is None or close[0] != ")":
                raise self.error("expected ')'")
            self.pos += 1
            return e
        if kind == "named":
            assert isinstance(value, Named)
            return value
        if kind == "word" and value == "not":
            return Not(self.prim())
        if kind == "word" and value not in _KEYWORDS:
            chain = [str(value)]
            while self.is_word("o"):
                self.pos += 1
                w = self.take()
                if w[0] != "word" or w[1] in _KEYWORDS:
                    self.pos -= 1
                    raise self.error("expected a property after 'o'")
                chain.append(str(w[1]))
            q = self.take()
            if q[0] != "word" or q[1] not in ("some", "only", "value", "exactly", "min", "max"):
                self.pos -= 1
                raise self.error(f"expected some, only, value, exactly, min or max after {' o '.join(chain)!r}")
            count = None
            if q[1] in ("exactly", "min", "max"):
                n = self.take()
                if n[0] != "int":
                    self.pos -= 1
                    raise self.error(f"expected a number after {q[1]!r}")
                count = int(str(n[1]))
            return Restriction(tuple(chain), str(q[1]), self.prim(), count)
        self.pos -= 1
        raise self.error(f"unexpected {value!s}")


def parse_definition(text: str) -> Expr:
    """The syntax tree of a logical definition; DefinitionSyntaxError if it does not parse.

    >>> parse_definition("UBERON:'muscle structure' or UBERON:'muscle tissue'")  # doctest: +NORMALIZE_WHITESPACE
    Or(items=(Named(prefix='UBERON', name='muscle structure', quoted=True),
              Named(prefix='UBERON', name='muscle tissue', quoted=True)))
    >>> parse_definition("CL:cell and (part_of some UBERON:liver)")  # doctest: +NORMALIZE_WHITESPACE
    And(items=(Named(prefix='CL', name='cell', quoted=False),
               Restriction(chain=('part_of',), quantifier='some',
                           filler=Named(prefix='UBERON', name='liver', quoted=False), count=None)))
    """
    return _Parser(text.strip()).parse()


def union_members(expr: Expr) -> tuple[Named, ...] | None:
    """The named classes of a union of named classes (a single name counts), else None.

    >>> union_members(parse_definition("CL:cell or (GO:cell)"))
    (Named(prefix='CL', name='cell', quoted=False), Named(prefix='GO', name='cell', quoted=False))
    >>> union_members(parse_definition("CL:cell and GO:cell")) is None
    True
    """
    if isinstance(expr, Named):
        return (expr,)
    if isinstance(expr, Or):
        out: list[Named] = []
        for item in expr.items:
            sub = union_members(item)
            if sub is None:
                return None
            out.extend(sub)
        return tuple(dict.fromkeys(out))
    return None


class LabelIndex:
    """Label lookup per CURIE prefix: exact, then case-insensitive, then ``_`` read as space."""

    def __init__(self, labels: Mapping[str, str]) -> None:
        self.exact: dict[tuple[str, str], list[str]] = {}
        self.folded: dict[tuple[str, str], list[str]] = {}
        for curie, label in labels.items():
            prefix = curie.partition(":")[0].upper()
            self.exact.setdefault((prefix, label), []).append(curie)
            self.folded.setdefault((prefix, label.casefold()), []).append(curie)

    def find(self, prefix: str, label: str) -> list[str]:
        p = prefix.upper()
        for table, key in (
            (self.exact, label),
            (self.folded, label.casefold()),
            (self.folded, label.replace("_", " ").casefold()),
        ):
            hit = table.get((p, key))
            if hit:
                return sorted(hit)
        return []


def resolve_reference(
    ref: Named, classes: frozenset[str] | set[str], labels: LabelIndex, by_upper: Mapping[str, str]
) -> tuple[str | None, str]:
    """A class CURIE for a reference, or None and why not.

    ``classes`` are the known class CURIEs, ``by_upper`` maps each upper-cased CURIE to
    the CURIE (``NCBITAXON:9606`` finds ``NCBITaxon:9606``).
    """
    if ref.prefix is None:
        return None, f"{ref} has no ontology prefix"
    if not ref.quoted:
        curie = f"{ref.prefix}:{ref.name}"
        if curie in classes:
            return curie, ""
        upper = by_upper.get(curie.upper())
        if upper is not None:
            return upper, ""
    hits = labels.find(ref.prefix, ref.name)
    base = _PARALLEL_PREFIX.match(ref.prefix)
    if not hits and base is not None:
        # SO_EXT:deletion names the parallel class of SO's 'deletion', which is its base class.
        return resolve_reference(Named(base.group(1), ref.name, ref.quoted), classes, labels, by_upper)
    if len(hits) == 1:
        return hits[0], ""
    if hits:
        return None, f"{ref} is ambiguous: {', '.join(hits[:4])}"
    return None, f"{ref} names no class of the graph (neither an id nor a label)"
