"""Orchestration: texts + dictionary + configuration -> annotations; BioNLP files; a store graph.

The work is shared as far as the configuration allows (docs/matcher.md):

- sentence splitting and tokenization: once per document (:func:`~craftrdf.matcher.tokenize.analyze`),
- normalization: once per document and (caseMatch, stemmer, stopWords),
- the dictionary: once per (caseMatch, stemmer, stopWords, synonyms),
- search structures: once per dictionary and order mode,

and only the search itself runs per configuration. :class:`MatchingSession` keeps
these pieces for a fixed set of texts, so a sweep calls :meth:`MatchingSession.annotate`
once per configuration; :class:`Matcher` is the same for one configuration and texts
given one at a time. Neither needs a store: give the dictionary as terms
(:func:`~craftrdf.matcher.dictionary.terms_from_names`) or as a ``{class: names}`` mapping.

A match emits one :class:`~craftrdf.model.Annotation` per class of its entry (every
class whose name normalizes to the matched tokens), with one span per run of tokens.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from pathlib import Path

from ..curie import CurieMap
from ..errors import ConfigError, InputError
from ..ingest.bionlp import write_bionlp
from ..ingest.corpus import SPLITS, read_documents
from ..ingest.knowtator import PIECE_SEPARATOR
from ..iris import check_set_key, mapping_graph, set_iri
from ..model import Annotation, Span
from ..rdf import iri, literal, quad
from ..registry import Registry
from ..sets import SetRef, resolve_set
from ..store import ReadableStore, WritableStore
from ..vocab import CM, DCTERMS, RDF
from ..webanno import annotation_nquads, set_nquads
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
    _read_json,
    _write_json,
    load_dictionary,
    terms_from_names,
)
from .normalize import NormalizedText, Normalizer, normalize_text
from .search import SearchIndex, find_matches, match_spans
from .tokenize import TokenizedText, analyze, split_sentences

__all__ = [
    "ANNOTATOR",
    "CM",
    "Matcher",
    "MatchingSession",
    "RunReport",
    "annotate_texts",
    "read_inputs",
    "run_annotation",
    "run_nquads",
    "write_bionlp_files",
]

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
        self.index = SearchIndex(self.dictionary, on)

    def annotate(self, text: str, *, document: str = "text") -> list[Annotation]:
        """The annotations of one text (ids ``M1``, ``M2``... in text order)."""
        normalized = normalize_text(analyze(text), self.normalizer)
        return _annotations(document, normalized, self.index, self.config)


def annotate_texts(
    texts: Mapping[str, str], dictionary: DictionaryInput, config: MatcherConfig | None = None
) -> dict[str, list[Annotation]]:
    """Annotate ``{document id: text}`` with a dictionary given directly (no store needed).

    ``dictionary``: :class:`~craftrdf.matcher.dictionary.DictionaryTerm` records, a
    ``{class id: name or names}`` mapping (all taken as labels), a
    :class:`~craftrdf.matcher.dictionary.Dictionary` built for this configuration's
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
    with it.
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

    def __post_init__(self) -> None:
        self._source = _source(self.dictionary)

    def _sentence_cache(self, document: str) -> Path | None:
        if self.cache_dir is None:
            return None
        digest = hashlib.sha256(self.texts[document].encode("utf-8")).hexdigest()
        return self.cache_dir / f"sentences-{digest}.json"

    def _cached_sentences(self, document: str) -> list[tuple[int, int]] | None:
        path = self._sentence_cache(document)
        data = _read_json(path) if path is not None else None
        if isinstance(data, dict) and data.get("splitter") == _SPLITTER:
            return [(s, e) for s, e in data["spans"]]
        return None

    def sentences(self, document: str) -> list[tuple[int, int]]:
        """Sentence spans of a document: split now, or taken from a pending split or the disk cache."""
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
                _write_json(path, {"splitter": _SPLITTER, "spans": spans})
        self._sentences[document] = spans
        return spans

    def use_sentences(self, spans: Mapping[str, Sequence[tuple[int, int]]]) -> None:
        """Take sentence spans computed elsewhere (by :func:`split_sentences`) for the documents given.

        A sweep splits once in the parent and ships the spans to its workers.
        """
        for d, s in spans.items():
            if d in self.texts:
                self._sentences[d] = [(a, b) for a, b in s]

    def split_in(self, executor: Executor, documents: Iterable[str] | None = None) -> int:
        """Start splitting the sentences of documents not split yet (nor cached) on ``executor``.

        Returns the number of documents submitted; their results are picked up when
        needed, so other work (the dictionary) can proceed meanwhile. Any
        :class:`concurrent.futures.Executor` works (a process pool is what helps).
        """
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
        hit = self._tokenized.get(document)
        if hit is None:
            hit = self._tokenized[document] = analyze(self.texts[document], self.sentences(document))
            self._sentences.pop(document, None)
        return hit

    def normalizer(self, normalization: TextNormalization) -> Normalizer:
        """The (memoizing) normalizer of a normalization, shared by texts and dictionary."""
        hit = self._normalizers.get(normalization)
        if hit is None:
            hit = self._normalizers[normalization] = Normalizer(normalization)
        return hit

    def normalized(self, document: str, normalization: TextNormalization) -> NormalizedText:
        """A document's tokens under one normalization."""
        key = (document, normalization)
        hit = self._normalized.get(key)
        if hit is None:
            hit = self._normalized[key] = normalize_text(self.tokenized(document), self.normalizer(normalization))
        return hit

    def dictionary_for(self, normalization: TextNormalization, synonyms: Synonyms) -> Dictionary:
        """The normalized dictionary of (normalization, synonyms)."""
        key = (normalization, Synonyms(synonyms))
        hit = self._dictionaries.get(key)
        if hit is None:
            hit = self._dictionaries[key] = self._source(normalization, key[1], self.normalizer(normalization))
        return hit

    def index(self, config: MatcherConfig) -> SearchIndex:
        """The search structures a configuration uses."""
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
        out: dict[str, list[Annotation]] = {}
        for d in documents if documents is not None else self.texts:
            out[d] = _annotations(d, self.normalized(d, config.normalization), index, config)
        return out

    def release(self, normalization: TextNormalization | None = None) -> None:
        """Forget normalized texts (of one normalization, or all) to free memory."""
        for key in [k for k in self._normalized if normalization is None or k[1] == normalization]:
            del self._normalized[key]


def _splitter_id() -> str:
    try:
        from importlib.metadata import version

        return f"syntok-{version('syntok')}-by-line"
    except ImportError:  # pragma: no cover - metadata missing in odd installs
        return "syntok-by-line"


_SPLITTER = _splitter_id()


# -- inputs and outputs --------------------------------------------------------------------


def parse_splits(value: str | None) -> tuple[str, ...] | None:
    """``train``, ``train,dev`` or ``all`` (None) -> the split names; ConfigError otherwise.

    >>> parse_splits("train,dev"), parse_splits("all")
    (('train', 'dev'), None)
    """
    if value is None or value.strip().lower() == "all":
        return None
    names = tuple(v.strip().lower() for v in value.split(",") if v.strip())
    bad = [n for n in names if n not in SPLITS]
    if bad or not names:
        raise ConfigError(f"invalid --split {value!r}: use {', '.join(SPLITS)}, a comma list of them, or all")
    return names


def read_inputs(inputs: Sequence[Path], *, split: str | None = None) -> dict[str, str]:
    """Texts to annotate, by document id, from text files, folders of ``*.txt`` or CRAFT directories.

    A CRAFT directory (one with ``articles/txt``) gives its articles, limited to ``split``
    (``train``, ``dev``, ``test``, a comma list, or ``all``); a file's document id is its
    name up to the first dot (``11319941.txt`` -> ``11319941``). ``split`` without a CRAFT
    directory, a missing input or a document given twice raise ConfigError/InputError.
    """
    splits = parse_splits(split)
    texts: dict[str, str] = {}
    used_split = False

    def add(doc: str, text: str, source: str) -> None:
        if doc in texts:
            raise ConfigError(f"document {doc} is given twice (again in {source})")
        texts[doc] = text

    for path in inputs:
        if path.is_dir() and (path / "articles" / "txt").is_dir():
            used_split = True
            for d in read_documents(path):
                if splits is None or d.split in splits:
                    add(d.pmid, d.text, str(path))
        elif path.is_dir():
            files = sorted(path.glob("*.txt"))
            if not files:
                raise InputError("no *.txt files in this folder (and it is not a CRAFT directory)", source=str(path))
            for f in files:
                add(f.name.split(".")[0], f.read_text(encoding="utf-8"), str(f))
        elif path.is_file():
            add(path.name.split(".")[0], path.read_text(encoding="utf-8"), str(path))
        else:
            raise InputError("no such file or directory", source=str(path))
    if split is not None and splits is not None and not used_split:
        raise ConfigError("--split applies to a CRAFT directory input; none was given")
    return texts


def write_bionlp_files(annotations: Mapping[str, list[Annotation]], texts: Mapping[str, str], out_dir: Path) -> int:
    """Write ``<document>.bionlp`` for every document (empty files included); returns files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for doc, anns in annotations.items():
        (out_dir / f"{doc}.bionlp").write_text(write_bionlp(anns, text=texts[doc]), encoding="utf-8")
    return len(annotations)


def run_nquads(
    name: str,
    *,
    config: MatcherConfig,
    dictionary_set: str,
    module: str | None,
    variant: str | None,
    ontology: str | None,
    mappings: str | None,
    annotations: Iterable[Annotation],
    curies: CurieMap,
) -> Iterable[str]:
    """The quads of a matcher run's set graph: the set description, the run's parameters, the annotations.

    The set is described as the gold sets are (``craft:key``, ``craft:module``,
    ``craft:variant``, ``craft:ontology``, ``craft:mappings`` of the dictionary's set) and
    also typed ``cm:MatcherRun``, with ``cm:dictionarySet`` (the set whose ontology gave the
    dictionary), one ``cm:<parameter>`` literal per parameter as given,
    ``cm:configuration`` (all seven, ``name=value;...``), ``cm:effectiveConfiguration``
    (after ConceptMapper's forcing), ``cm:matcherVersion`` and ``dcterms:creator``.
    """
    s = iri(set_iri(name))
    yield from set_nquads(name, module=module, variant=variant, ontology=ontology, mappings=mappings)
    yield quad(s, iri(RDF.type), iri(CM.MatcherRun), s)
    yield quad(s, iri(CM.dictionarySet), iri(set_iri(dictionary_set)), s)
    for param, value in config.params().items():
        yield quad(s, iri(getattr(CM, param)), literal(value), s)
    yield quad(s, iri(CM.configuration), literal(config.label()), s)
    yield quad(s, iri(CM.effectiveConfiguration), literal(canonical(config).label()), s)
    yield quad(s, iri(CM.matcherVersion), literal(MATCHER_VERSION), s)
    yield quad(s, iri(DCTERMS.creator), literal(ANNOTATOR), s)
    yield from annotation_nquads(annotations, set_key=name, curies=curies)


def _check_run_name(store: ReadableStore, name: str, registry: Registry) -> None:
    check_set_key(name)
    if any(k.lower() == name.lower() for k in registry.sets):
        raise ConfigError(f"--into-store {name}: that is a gold annotation set of the registry; choose another name")
    import pyoxigraph as ox

    g = ox.NamedNode(set_iri(name))
    if store.contains_named_graph(g.value) and not any(
        True for _ in store.quads_for_pattern(g, ox.NamedNode(RDF.type), ox.NamedNode(CM.MatcherRun), g)
    ):
        raise ConfigError(
            f"--into-store {name}: the store has a set {name} that is not matcher output; choose another name"
        )


@dataclass(frozen=True, slots=True)
class RunReport:
    """What :func:`run_annotation` did: counts, where it wrote, and the seconds each stage took."""

    documents: int
    annotations: int
    dictionary_entries: int
    out_dir: Path | None
    graph: str | None
    quads: int
    seconds: dict[str, float]


def run_annotation(
    store: ReadableStore,
    set_key: str,
    config: MatcherConfig,
    texts: Mapping[str, str],
    *,
    registry: Registry,
    out_dir: Path | None = None,
    into_store: str | None = None,
    cache_dir: Path | None = None,
    curies: CurieMap | None = None,
    executor: Executor | None = None,
) -> RunReport:
    """Annotate ``texts`` with the dictionary of set ``set_key``'s ontology; write BioNLP and/or a set graph.

    ``into_store`` names a new set graph (``https://w3id.org/craftrdf/set/<NAME>``) written
    atomically with :meth:`AnnotationStore.load_batch` (the store must be writable); a
    run with the same inputs, configuration and ontology is not written twice.
    ``executor`` (a process pool, say) splits sentences while the dictionary is read.
    Raises ConfigError for an unknown set, a set without ontology, or a name that
    would overwrite a gold set.
    """
    curies = curies or CurieMap()
    seconds: dict[str, float] = {}
    ref = resolve_set(store, set_key)
    if into_store is not None:
        _check_run_name(store, into_store, registry)
    t = time.perf_counter()

    def source(normalization: TextNormalization, synonyms: Synonyms, normalizer: Normalizer) -> Dictionary:
        return load_dictionary(
            store,
            ref,
            normalization,
            synonyms,
            registry=registry,
            cache_dir=cache_dir,
            curies=curies,
            normalizer=normalizer,
        )

    session = MatchingSession(texts, source, cache_dir=cache_dir)
    if executor is not None:
        session.split_in(executor)
    dictionary = session.dictionary_for(config.normalization, config.synonyms)
    seconds["dictionary"] = time.perf_counter() - t
    t = time.perf_counter()
    session.prepare()
    seconds["sentences_tokens"] = time.perf_counter() - t
    t = time.perf_counter()
    for d in texts:
        session.normalized(d, config.normalization)
    seconds["normalization"] = time.perf_counter() - t
    t = time.perf_counter()
    annotations = session.annotate(config)
    seconds["matching"] = time.perf_counter() - t
    total = sum(len(v) for v in annotations.values())
    if out_dir is not None:
        t = time.perf_counter()
        write_bionlp_files(annotations, texts, out_dir)
        seconds["write_bionlp"] = time.perf_counter() - t
    graph = None
    quads = 0
    if into_store is not None:
        t = time.perf_counter()
        graph, quads = _write_run(store, into_store, ref, config, annotations, texts, curies)
        seconds["write_store"] = time.perf_counter() - t
    return RunReport(len(texts), total, len(dictionary), out_dir, graph, quads, seconds)


def _write_run(
    store: WritableStore,
    name: str,
    ref: SetRef,
    config: MatcherConfig,
    annotations: Mapping[str, list[Annotation]],
    texts: Mapping[str, str],
    curies: CurieMap,
) -> tuple[str, int]:
    key, module, variant = ref.key, ref.module, ref.variant
    ontology = ref.require_ontology()
    batch = store.batches().get(ontology)
    mgraph = mapping_graph(key)
    mappings = mgraph if mgraph in store.batches() else None
    h = hashlib.sha256(MATCHER_VERSION.encode())
    h.update(json.dumps([name, key, config.label(), ontology, batch.digest if batch else ""]).encode())
    for doc in sorted(texts):
        h.update(doc.encode() + b"\0" + hashlib.sha256(texts[doc].encode("utf-8")).digest())
    graph = set_iri(name)
    lines = run_nquads(
        name,
        config=config,
        dictionary_set=key,
        module=module,
        variant=variant,
        ontology=ontology,
        mappings=mappings,
        annotations=(a for d in sorted(annotations) for a in annotations[d]),
        curies=curies,
    )
    n = store.load_batch(graph, lines, digest=h.hexdigest())
    if n == 0:
        logger.info("matcher run %s already in the store with the same inputs; not rewritten", name)
    return graph, n
