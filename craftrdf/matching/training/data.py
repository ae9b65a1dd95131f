"""What training reads from the store, once: the chosen documents, their gold, the ontology's names.

A set is trained on the documents of the splits asked for (``train``, ``dev``, ``test``,
as the store records them from CRAFT's ``articles/ids/craft-ids-*.txt``, the lists
``craftrdf reproduce`` and ``craftrdf sweep`` use too). Only those documents' texts and
gold are read: the gold of any other document never enters a model.

A set whose ontology the store does not hold (CRAFT's copy here lacks CHEBI, GO BP/CC,
NCBITaxon, PR and MONDO) trains from gold names alone; its slot error rate is then
scored with exact class matches only (:func:`~.scoring.exact_wang`), since there is no
hierarchy to give partial credit. A set with an ontology is scored by the official
scorer's Wang similarity over the ontology's OWL graph (:mod:`.scoring`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...analysis.evaluation.official_graph import OfficialWang, store_wang
from ...core.context import RunContext
from ...core.curie import CurieMap
from ...core.errors import ConfigError
from ...core.model import Annotation
from ...ingest.corpus import SPLITS
from ...querying.sets import SetRef, resolve_set
from ...querying.webanno import document_splits, document_texts, fetch_annotations
from ...store.local import ReadableStore
from ..matcher.dictionary import DictionaryTerm, load_terms
from ..matcher.run import parse_splits

logger = logging.getLogger(__name__)


def parse_on(value: str | Sequence[str]) -> tuple[str, ...]:
    """``train,dev`` (or a sequence) -> the split names, sorted as CRAFT lists them; ConfigError otherwise.

    >>> parse_on("dev,train"), parse_on(["test"])
    (('train', 'dev'), ('test',))
    """
    text = value if isinstance(value, str) else ",".join(value)
    names = parse_splits(text)
    if names is None:
        return SPLITS
    return tuple(s for s in SPLITS if s in names)


def split_documents(store: ReadableStore, splits: Sequence[str]) -> list[str]:
    """The store's documents of ``splits``, sorted; ConfigError when there are none."""
    by_doc = document_splits(store)
    docs = sorted(d for d, s in by_doc.items() if s in splits)
    if not docs:
        raise ConfigError(f"the store has no documents of split {','.join(splits)} (splits: {', '.join(SPLITS)})")
    return docs


@dataclass(frozen=True, slots=True, eq=False)
class Corpus:
    """Texts and gold of some documents of one set (every document a key of both)."""

    texts: Mapping[str, str]
    gold: Mapping[str, tuple[Annotation, ...]]

    @property
    def annotations(self) -> int:
        """Gold annotations over all documents."""
        return sum(len(v) for v in self.gold.values())


@dataclass(frozen=True, slots=True, eq=False)
class SetData:
    """A set as training and scoring need it: its reference, ontology names and official scorer.

    ``terms`` are the ontology's names as the matcher reads them (empty when the store has
    no ontology for the set; ``terms_digest`` is then ``""``); ``wang`` is the official
    scorer's similarity over the ontology's graph, None when there is no ontology: the slot
    error rate then gives no partial credit for related classes.
    """

    ref: SetRef
    terms: tuple[DictionaryTerm, ...]
    terms_digest: str
    wang: OfficialWang | None

    @property
    def exact_only(self) -> bool:
        """Whether the slot error rate compares classes exactly (no ontology in the store)."""
        return self.wang is None

    @property
    def key(self) -> str:
        """The set key as stored."""
        return self.ref.key


def read_set(
    store: ReadableStore,
    set_key: str,
    ctx: RunContext,
) -> SetData:
    """The set's ontology names and the official scorer of its slot error rate (None: exact classes)."""
    ref = resolve_set(store, set_key)
    if ref.ontology is None or ref.ontology not in store.batches():
        logger.warning("%s: no ontology in the store; training from gold names alone, SER exact classes only", ref.key)
        return SetData(ref, (), "", None)
    terms, digest = load_terms(store, ref, ctx)
    return SetData(ref, tuple(terms), digest, store_wang(store, ref.ontology))


def read_corpus(
    store: ReadableStore, set_key: str, documents: Sequence[str], *, curies: CurieMap | None = None
) -> Corpus:
    """Texts and gold of ``documents`` for set ``set_key``; only these documents' gold is kept."""
    return read_corpora(store, set_key, [documents], curies=curies)[0]


def read_corpora(
    store: ReadableStore,
    set_key: str,
    groups: Sequence[Sequence[str]],
    *,
    curies: CurieMap | None = None,
    texts: Mapping[str, str] | None = None,
    annotations: Sequence[Annotation] | None = None,
) -> list[Corpus]:
    """:func:`read_corpus` for several groups of documents (train, test) with one read of the set's gold.

    ``texts``, when given, are the documents' texts already read (several sets then share them);
    ``annotations``, the set's annotations read beforehand (:func:`~craftrdf.querying.webanno.fetch_annotations`
    with the same ``curies``).
    """
    wanted = {d for g in groups for d in g}
    texts = document_texts(store, wanted) if texts is None else {d: texts[d] for d in wanted if d in texts}
    missing = sorted(wanted - set(texts))
    if missing:
        raise ConfigError(f"the store has no text for document(s) {', '.join(missing[:5])}")
    gold: dict[str, list[Annotation]] = {d: [] for d in sorted(texts)}
    for a in fetch_annotations(store, set_key, curies=curies) if annotations is None else annotations:
        if a.document in wanted and a.spans:
            gold[a.document].append(a)
    return [Corpus({d: texts[d] for d in sorted(g)}, {d: tuple(gold[d]) for d in sorted(g)}) for g in groups]
