"""Names from gold: every surface form annotators wrote, normalized as the matcher normalizes text.

A gold annotation with one span gives the name ``normalizer.phrase(covered text)`` for
its class; the documents it was written in are kept (cross-validation must leave out a
fold's own names) and so are the forms as written (for people reading the model).
A text with no letter or digit ("+", "−") gives a symbol name (:mod:`.symbols`).
Discontinuous annotations give no name: the contiguous search cannot find them
(:mod:`craftrdf.matching.training.coordination` does, for elided heads).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ...core.model import Annotation
from ..matcher.config import Synonyms, TextNormalization
from ..matcher.dictionary import Dictionary
from ..matcher.normalize import Normalizer
from .engine import Key, Term
from .symbols import is_symbol, symbol_key, symbol_of


@dataclass(frozen=True, slots=True, eq=False)
class GoldNames:
    """Gold names: term -> documents it was written in, and -> its written forms with counts."""

    documents: Mapping[Term, frozenset[str]]
    written: Mapping[Term, Counter[str]] = field(default_factory=dict)

    def dictionary(
        self, normalization: TextNormalization, synonyms: Synonyms, *, leave_out: frozenset[str] = frozenset()
    ) -> Dictionary:
        """The names as a matcher dictionary; names written only in ``leave_out`` documents are left out."""
        entries: dict[Key, set[str]] = {}
        for (key, cls), docs in self.documents.items():
            if docs - leave_out:
                entries.setdefault(key, set()).add(cls)
        return Dictionary({k: frozenset(v) for k, v in entries.items()}, normalization, synonyms)

    def symbols(self, *, leave_out: frozenset[str] = frozenset()) -> dict[str, frozenset[str]]:
        """Symbol -> its classes (:mod:`.symbols`), from names written outside ``leave_out``."""
        out: dict[str, set[str]] = {}
        for (key, cls), docs in self.documents.items():
            symbol = symbol_of(key)
            if symbol is not None and docs - leave_out:
                out.setdefault(symbol, set()).add(cls)
        return {k: frozenset(v) for k, v in out.items()}

    def count(self, term: Term) -> int:
        """How many gold annotations wrote this term."""
        return sum(self.written.get(term, Counter()).values())


def gold_names(gold: Mapping[str, Iterable[Annotation]], texts: Mapping[str, str], normalizer: Normalizer) -> GoldNames:
    """The gold names of the documents given, normalized with ``normalizer``.

    >>> from craftrdf.core.model import Span
    >>> from craftrdf.matching.matcher.config import TextNormalization
    >>> n = Normalizer(TextNormalization("CASE_INSENSITIVE", "PORTER", "NONE"))
    >>> g = gold_names({"d": [Annotation("1", "d", "GO:0097617", (Span(0, 13),))]}, {"d": "Hybridization was"}, n)
    >>> dict(g.documents), dict(g.written[(("hybrid",), "GO:0097617")])
    ({(('hybrid',), 'GO:0097617'): frozenset({'d'})}, {'Hybridization': 1})
    """
    docs: dict[Term, set[str]] = {}
    written: dict[Term, Counter[str]] = {}
    for doc, anns in gold.items():
        text = texts[doc]
        for a in anns:
            if len(a.spans) != 1:
                continue
            surface = text[a.spans[0].start : a.spans[0].end]
            key = symbol_key(surface) if is_symbol(surface) else normalizer.phrase(surface)
            if not key:
                continue
            term = (key, a.class_id)
            docs.setdefault(term, set()).add(doc)
            written.setdefault(term, Counter())[surface] += 1
    return GoldNames({t: frozenset(d) for t, d in docs.items()}, written)
