"""Orchestration: texts + dictionary + configuration -> annotations (a run with its outputs: :mod:`.run`).

The work is shared as far as the configuration allows (docs/matcher.md):

- sentence splitting and tokenization: once per document (:func:`~craftrdf.matching.matcher.tokenize.analyze`),
- normalization: once per document and (caseMatch, stemmer, stopWords),
- the dictionary: once per (caseMatch, stemmer, stopWords, synonyms),
- search structures: once per dictionary and order mode,

and only the search itself runs per configuration. :class:`MatchingSession` keeps
these pieces for a fixed set of texts, so a sweep calls :meth:`MatchingSession.annotate`
once per configuration; :class:`Matcher` is the same for one configuration and texts
given one at a time. Neither needs a store: give the dictionary as terms
(:func:`~craftrdf.matching.matcher.dictionary.terms_from_names`) or as a ``{class: names}`` mapping.

A match emits one :class:`~craftrdf.core.model.Annotation` per class of its entry (every
class whose name normalizes to the matched tokens), with one span per run of tokens.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from pathlib import Path

from ...core.errors import ConfigError
from ...core.model import Annotation, Span
from ...ingest.knowtator import PIECE_SEPARATOR
from .config import (
    MatcherConfig,
    OrderIndependentLookup,
    Synonyms,
    TextNormalization,
    canonical,
)
from .dictionary import (
    Dictionary,
    DictionaryTerm,
    read_json,
    terms_from_names,
    write_json,
)
from .normalize import NormalizedText, Normalizer, normalize_text
from .search import SearchIndex, find_matches, match_spans
from .tokenize import TokenizedText, analyze, split_sentences

logger = logging.getLogger(__name__)

#: ``dcterms:creator`` of the annotations the matcher makes.
ANNOTATOR = "craftrdf matcher"
#: Bumped when the matcher's output for a given input changes (part of the store batch digest).
MATCHER_VERSION = "craftrdf-matcher-2"


DictionarySource = Callable[[TextNormalization, Synonyms, Normalizer], Dictionary]
DictionaryInput = Dictionary | Iterable[DictionaryTerm] | Mapping[str, "str | Iterable[str]"] | DictionarySource


def _source(dictionary: DictionaryInput) -> DictionarySource:
    if isinstance(dictionary, Dictionary):
        built = dictionary

        def given(normalization: TextNormalization, synonyms: Synonyms, normalizer: Normalizer) -> Dictionary:
            if (normalization, synonyms) != (built.normalization, built.synonyms):
                raise ConfigError(
                    "the dictionary given was built for another normalization or synonym policy "
                    f"({built.normalization}, {built.synonyms.value}); give terms instead"
                )
            return built

        return given
    if callable(dictionary):
        return dictionary
    terms = terms_from_names(dictionary) if isinstance(dictionary, Mapping) else list(dictionary)

    def build(normalization: TextNormalization, synonyms: Synonyms, normalizer: Normalizer) -> Dictionary:
        return Dictionary.build(terms, normalization, synonyms, normalizer=normalizer)

    return build


def _annotations(
    document: str, normalized: NormalizedText, index: SearchIndex, config: MatcherConfig
) -> list[Annotation]:
    """The annotations of one normalized text: one per (class, spans), numbered in text order."""
    found: set[tuple[str, tuple[Span, ...]]] = set()
    for m in find_matches(normalized, index, config.search_key):
        spans = match_spans(normalized, m.positions)
        for cls in m.classes:
            found.add((cls, spans))
    text = normalized.tokenized.text
    ordered = sorted(found, key=lambda cs: (cs[1][0].start, cs[1][-1].end, cs[0], cs[1]))
    return [
        Annotation(f"M{n}", document, cls, spans, PIECE_SEPARATOR.join(text[s.start : s.end] for s in spans), ANNOTATOR)
        for n, (cls, spans) in enumerate(ordered, start=1)
    ]


class Matcher:
    """One configuration and one dictionary, for texts given one at a time.

    >>> m = Matcher({"UBERON:0000955": "brain", "UBERON:0001950": "neocortex"})
    >>> [(a.class_id, a.text) for a in m.annotate("The Brain and its neocortex.")]
    [('UBERON:0000955', 'Brain'), ('UBERON:0001950', 'neocortex')]
    """

    def __init__(self, dictionary: DictionaryInput, config: MatcherConfig | None = None) -> None:
        self.config = config or MatcherConfig()
        self.normalizer = Normalizer(self.config.normalization)
        self.dictionary = _source(dictionary)(self.config.normalization, self.config.synonyms, self.normalizer)
        on = canonical(self.config).orderIndependentLookup is OrderIndependentLookup.ON
        # built now, not on first search: threads sharing this matcher then only read it
        self.index = SearchIndex(self.dictionary, on).prepare(self.config.search_key)

    def annotate(self, text: str, *, document: str = "text") -> list[Annotation]:
        """The annotations of one text (ids ``M1``, ``M2``... in text order)."""
        normalized = normalize_text(analyze(text), self.normalizer)
        return _annotations(document, normalized, self.index, self.config)


def annotate_texts(
    texts: Mapping[str, str], dictionary: DictionaryInput, config: MatcherConfig | None = None
) -> dict[str, list[Annotation]]:
    """Annotate ``{document id: text}`` with a dictionary given directly (no store needed).

    ``dictionary``: :class:`~craftrdf.matching.matcher.dictionary.DictionaryTerm` records, a
    ``{class id: name or names}`` mapping (all taken as labels), a
    :class:`~craftrdf.matching.matcher.dictionary.Dictionary` built for this configuration's
    normalization and synonyms, or a callable ``(normalization, synonyms, normalizer) -> Dictionary``.

    >>> out = annotate_texts({"d1": "Cells of the retinal ganglion cell layer."},
    ...                      {"UBERON:0001792": "retinal ganglion cell layer", "CL:0000000": "cell"})
    >>> [(a.class_id, a.text) for a in out["d1"]]
    [('CL:0000000', 'Cells'), ('UBERON:0001792', 'retinal ganglion cell layer')]
    """
    return MatchingSession(texts, dictionary).annotate(config or MatcherConfig())


@dataclass(eq=False)
class MatchingSession:
    """The shared work of matching a fixed set of texts under many configurations.

    Everything a configuration needs is computed on first use and kept: per document
    its sentences and tokens, per document and normalization its normalized tokens,
    per (normalization, synonyms) the dictionary, per dictionary and order mode the
    search structures. ``cache_dir`` also keeps sentence spans on disk (keyed by the
    text's SHA-256), as the dictionary source may keep dictionaries.
    :meth:`release` frees the normalized texts of a normalization once a sweep is done
    with it. Safe to share between threads (a Dask worker's): what is built on first use
    is built under one lock, so once; the searches run outside it.
    """

    texts: Mapping[str, str]
    dictionary: DictionaryInput
    cache_dir: Path | None = None
    _source: DictionarySource = field(init=False, repr=False)
    _sentences: dict[str, list[tuple[int, int]]] = field(default_factory=dict, repr=False)
    _pending: dict[str, Future[list[tuple[int, int]]]] = field(default_factory=dict, repr=False)
    _tokenized: dict[str, TokenizedText] = field(default_factory=dict, repr=False)
    _normalizers: dict[TextNormalization, Normalizer] = field(default_factory=dict, repr=False)
    _normalized: dict[tuple[str, TextNormalization], NormalizedText] = field(default_factory=dict, repr=False)
    _dictionaries: dict[tuple[TextNormalization, Synonyms], Dictionary] = field(default_factory=dict, repr=False)
    _indexes: dict[tuple[TextNormalization, Synonyms, bool], SearchIndex] = field(default_factory=dict, repr=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def __post_init__(self) -> None:
        self._source = _source(self.dictionary)

    def _sentence_cache(self, document: str) -> Path | None:
        if self.cache_dir is None:
            return None
        digest = hashlib.sha256(self.texts[document].encode("utf-8")).hexdigest()
        return self.cache_dir / f"sentences-{digest}.json"

    def _cached_sentences(self, document: str) -> list[tuple[int, int]] | None:
        path = self._sentence_cache(document)
        data = read_json(path) if path is not None else None
        if isinstance(data, dict) and data.get("splitter") == _SPLITTER:
            return [(s, e) for s, e in data["spans"]]
        return None

    def sentences(self, document: str) -> list[tuple[int, int]]:
        """Sentence spans of a document: split now, or taken from a pending split or the disk cache."""
        with self._lock:
            hit = self._sentences.get(document)
            if hit is not None:
                return hit
            pending = self._pending.pop(document, None)
            spans = pending.result() if pending is not None else self._cached_sentences(document)
            if spans is None or pending is not None:
                if spans is None:
                    spans = split_sentences(self.texts[document])
                path = self._sentence_cache(document)
                if path is not None:
                    write_json(path, {"splitter": _SPLITTER, "spans": spans})
            self._sentences[document] = spans
            return spans

    def use_sentences(self, spans: Mapping[str, Sequence[tuple[int, int]]]) -> None:
        """Take sentence spans computed elsewhere (by :func:`split_sentences`) for the documents given.

        A sweep splits once in the parent and ships the spans to its workers.
        """
        with self._lock:
            for d, s in spans.items():
                if d in self.texts:
                    self._sentences[d] = [(a, b) for a, b in s]

    def split_in(self, executor: Executor, documents: Iterable[str] | None = None) -> int:
        """Start splitting the sentences of documents not split yet (nor cached) on ``executor``.

        Returns the number of documents submitted; their results are picked up when
        needed, so other work (the dictionary) can proceed meanwhile. Any
        :class:`concurrent.futures.Executor` works (a process pool is what helps).
        """
        with self._lock:
            n = 0
            for d in documents if documents is not None else self.texts:
                if d in self._sentences or d in self._pending or d in self._tokenized:
                    continue
                cached = self._cached_sentences(d)
                if cached is not None:
                    self._sentences[d] = cached
                    continue
                self._pending[d] = executor.submit(split_sentences, self.texts[d])
                n += 1
            return n

    def tokenized(self, document: str) -> TokenizedText:
        """Sentences and tokens of a document."""
        with self._lock:
            hit = self._tokenized.get(document)
            if hit is None:
                hit = self._tokenized[document] = analyze(self.texts[document], self.sentences(document))
                self._sentences.pop(document, None)
            return hit

    def normalizer(self, normalization: TextNormalization) -> Normalizer:
        """The (memoizing) normalizer of a normalization, shared by texts and dictionary."""
        with self._lock:
            hit = self._normalizers.get(normalization)
            if hit is None:
                hit = self._normalizers[normalization] = Normalizer(normalization)
            return hit

    def normalized(self, document: str, normalization: TextNormalization) -> NormalizedText:
        """A document's tokens under one normalization."""
        with self._lock:
            key = (document, normalization)
            hit = self._normalized.get(key)
            if hit is None:
                hit = self._normalized[key] = normalize_text(self.tokenized(document), self.normalizer(normalization))
            return hit

    def dictionary_for(self, normalization: TextNormalization, synonyms: Synonyms) -> Dictionary:
        """The normalized dictionary of (normalization, synonyms)."""
        with self._lock:
            key = (normalization, Synonyms(synonyms))
            hit = self._dictionaries.get(key)
            if hit is None:
                hit = self._dictionaries[key] = self._source(normalization, key[1], self.normalizer(normalization))
            return hit

    def index(self, config: MatcherConfig) -> SearchIndex:
        """The search structures a configuration uses."""
        with self._lock:
            on = canonical(config).orderIndependentLookup is OrderIndependentLookup.ON
            key = (config.normalization, config.synonyms, on)
            hit = self._indexes.get(key)
            if hit is None:
                hit = self._indexes[key] = SearchIndex(self.dictionary_for(config.normalization, config.synonyms), on)
            return hit

    def prepare(self, documents: Iterable[str] | None = None) -> None:
        """Split and tokenize the documents now (the per-document one-time work)."""
        for d in documents if documents is not None else self.texts:
            self.tokenized(d)

    def annotate(self, config: MatcherConfig, documents: Iterable[str] | None = None) -> dict[str, list[Annotation]]:
        """Annotations of every document (or the given ones) under ``config``, by document id."""
        index = self.index(config)
        with self._lock:
            index.prepare(config.search_key)  # so the searches, outside the lock, only read it
        out: dict[str, list[Annotation]] = {}
        for d in documents if documents is not None else self.texts:
            out[d] = _annotations(d, self.normalized(d, config.normalization), index, config)
        return out

    def release(self, normalization: TextNormalization | None = None) -> None:
        """Forget normalized texts (of one normalization, or all) to free memory."""
        with self._lock:
            for key in [k for k in self._normalized if normalization is None or k[1] == normalization]:
                del self._normalized[key]


def _splitter_id() -> str:
    try:
        from importlib.metadata import version

        return f"syntok-{version('syntok')}-by-line"
    except ImportError:  # pragma: no cover - metadata missing in odd installs
        return "syntok-by-line"


_SPLITTER = _splitter_id()
