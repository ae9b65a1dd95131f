"""Records that flow between the stages: spans, annotations, ontology terms.

Frozen, slotted dataclasses with no I/O. Readers produce them, the RDF mapping turns
them into quads, and later stages (views, evaluation, the matcher) consume them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from .vocab import OBOINOWL

SynonymScope = Literal["EXACT", "BROAD", "NARROW", "RELATED"]

#: The scope of each oboInOwl synonym predicate, in OBO's order (EXACT, BROAD, NARROW, RELATED):
#: how the ontology readers (the model, the OWL reader, the viewer) read back what ingest writes.
SYNONYM_SCOPES: Mapping[str, SynonymScope] = {
    OBOINOWL.hasExactSynonym: "EXACT",
    OBOINOWL.hasBroadSynonym: "BROAD",
    OBOINOWL.hasNarrowSynonym: "NARROW",
    OBOINOWL.hasRelatedSynonym: "RELATED",
}


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A half-open character range ``[start, end)`` of a document's text.

    A zero-length span (``start == end``) is allowed because CRAFT has one (MONDO,
    document 16579849) and its published counts treat that annotation as having two
    spans; readers warn when they meet one.

    >>> Span(3, 8).length
    5
    """

    start: int
    end: int

    def __post_init__(self) -> None:
        if self.start < 0 or self.end < self.start:
            raise ValueError(f"invalid span [{self.start}, {self.end}): need 0 <= start <= end")

    @property
    def length(self) -> int:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class Annotation:
    """One concept annotation: a class on one or more spans of a document.

    ``spans`` keep the order of the source file (CRAFT has a few discontinuous
    annotations whose pieces are not in text order). ``text`` is the covered text as
    the source gives it, pieces joined by ``" ... "`` as Knowtator does; None when the
    source has none. CRAFT v5.0.2 has one annotation with no span at all, so ``spans``
    may be empty.
    """

    id: str
    document: str
    class_id: str
    spans: tuple[Span, ...]
    text: str | None = None
    annotator: str | None = None
    #: how sure a trained matcher was (``craftrdf annotate --model``), in [0, 1]; None for gold and plain runs
    confidence: float | None = field(default=None, compare=False)

    @property
    def is_discontinuous(self) -> bool:
        return len(self.spans) > 1

    @property
    def begin(self) -> int | None:
        return min(s.start for s in self.spans) if self.spans else None

    @property
    def end(self) -> int | None:
        return max(s.end for s in self.spans) if self.spans else None


@dataclass(frozen=True, slots=True)
class Document:
    """A corpus document: its PubMed id, PMC id, split and text."""

    pmid: str
    text: str
    pmcid: str | None = None
    split: str | None = None


@dataclass(frozen=True, slots=True)
class Synonym:
    """An OBO synonym with its scope and optional synonym type."""

    text: str
    scope: SynonymScope = "RELATED"
    type: str | None = None


@dataclass(frozen=True, slots=True)
class Term:
    """One ``[Term]`` stanza of an OBO file, as read (no inference).

    ``relationships`` are ``(relation id, target id)`` pairs from ``relationship:``
    lines; ``intersection_of`` holds ``(None, genus)`` for a genus line and
    ``(relation id, target id)`` for a differentia line, in file order;
    ``line`` is the 1-based line of the stanza header in its file.
    """

    id: str
    name: str | None = None
    namespace: str | None = None
    definition: str | None = None
    comment: str | None = None
    synonyms: tuple[Synonym, ...] = ()
    is_a: tuple[str, ...] = ()
    relationships: tuple[tuple[str, str], ...] = ()
    alt_ids: tuple[str, ...] = ()
    xrefs: tuple[str, ...] = ()
    subsets: tuple[str, ...] = ()
    replaced_by: tuple[str, ...] = ()
    consider: tuple[str, ...] = ()
    obsolete: bool = False
    line: int = 0
    intersection_of: tuple[tuple[str | None, str], ...] = ()
    union_of: tuple[str, ...] = ()
    disjoint_from: tuple[str, ...] = ()
    equivalent_to: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Typedef:
    """One ``[Typedef]`` stanza: a relation usable in ``relationship:`` lines.

    ``metadata`` is ``is_metadata_tag: true`` (an annotation property, not a relation);
    ``extra`` holds every other tag as ``(tag, raw value)``.
    """

    id: str
    name: str | None = None
    xrefs: tuple[str, ...] = ()
    is_a: tuple[str, ...] = ()
    transitive: bool = False
    obsolete: bool = False
    line: int = 0
    extra: tuple[tuple[str, str], ...] = field(default=())
    symmetric: bool = False
    metadata: bool = False
    inverse_of: str | None = None
    domain: str | None = None
    range: str | None = None
