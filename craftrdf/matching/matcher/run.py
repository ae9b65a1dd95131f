"""A matcher run: read the texts, annotate with a set's dictionary, write BioNLP files and/or a set graph.

:func:`run_annotation` is what ``craftrdf annotate`` calls; the matching itself (and the
work shared between configurations) is :mod:`.annotate`'s.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...core.context import RunContext
from ...core.curie import CurieMap
from ...core.errors import ConfigError, InputError
from ...core.iris import check_set_key, mapping_graph, set_iri
from ...core.model import Annotation
from ...core.rdf import iri, literal, quad
from ...core.registry import Registry
from ...core.vocab import CM, DCTERMS, RDF
from ...ingest.bionlp import write_bionlp
from ...ingest.corpus import SPLITS, read_documents
from ...querying.indexes import Progress, write_set_batch
from ...querying.sets import SetRef, resolve_set
from ...querying.webanno import annotation_nquads, set_nquads
from ...store.local import ReadableStore, WritableStore, require_writable
from .annotate import ANNOTATOR, MATCHER_VERSION, MatchingSession
from .config import MatcherConfig, Synonyms, TextNormalization, canonical
from .dictionary import Dictionary, load_dictionary
from .normalize import Normalizer

logger = logging.getLogger(__name__)


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
    dictionary: SetRef,
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
    ``dictionary`` is the set the dictionary stands for (a trained model's set may have no ontology
    in the store: then no ``craft:ontology``).
    """
    s = iri(set_iri(name))
    module, variant, ontology = dictionary.module, dictionary.variant, dictionary.ontology
    yield from set_nquads(name, module=module, variant=variant, ontology=ontology, mappings=mappings)
    yield quad(s, iri(RDF.type), iri(CM.MatcherRun), s)
    yield quad(s, iri(CM.dictionarySet), iri(set_iri(dictionary.key)), s)
    for param, value in config.params().items():
        yield quad(s, iri(getattr(CM, param)), literal(value), s)
    yield quad(s, iri(CM.configuration), literal(config.label()), s)
    yield quad(s, iri(CM.effectiveConfiguration), literal(canonical(config).label()), s)
    yield quad(s, iri(CM.matcherVersion), literal(MATCHER_VERSION), s)
    yield quad(s, iri(DCTERMS.creator), literal(ANNOTATOR), s)
    yield from annotation_nquads(annotations, set_key=name, curies=curies)


def check_run_name(store: ReadableStore, name: str, registry: Registry) -> None:
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
    ctx: RunContext,
    *,
    out_dir: Path | None = None,
    into_store: str | None = None,
) -> RunReport:
    """Annotate ``texts`` with the dictionary of set ``set_key``'s ontology; write BioNLP and/or a set graph.

    ``into_store`` names a new set graph (``https://w3id.org/craftrdf/set/<NAME>``) written
    atomically with :meth:`AnnotationStore.load_batch` (the store must be writable), the
    view indexes brought up to date after it (reporting to ``progress``); a run with the same
    inputs, configuration and ontology is not written twice.
    ``ctx.executor`` (a :class:`concurrent.futures.Executor`, a process pool say) splits sentences while
    the dictionary is read; ``ctx.cache_dir`` keeps the dictionary and sentences between runs.
    Raises ConfigError for an unknown set, a set without ontology, or a name that
    would overwrite a gold set.
    """
    registry, curies, cache_dir, executor = ctx.registry, ctx.curies, ctx.cache_dir, ctx.executor
    seconds: dict[str, float] = {}
    ref = resolve_set(store, set_key)
    target = None
    if into_store is not None:
        check_run_name(store, into_store, registry)
        target = require_writable(store, f"--into-store {into_store}")
    t = time.perf_counter()

    def source(normalization: TextNormalization, synonyms: Synonyms, normalizer: Normalizer) -> Dictionary:
        return load_dictionary(
            store,
            ref,
            normalization,
            synonyms,
            ctx,
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
    if into_store is not None and target is not None:
        t = time.perf_counter()
        graph, quads = _write_run(target, into_store, ref, config, annotations, texts, curies, ctx.progress)
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
    progress: Progress | None,
) -> tuple[str, int]:
    key = ref.key
    ontology = ref.require_ontology()
    batch = store.batches().get(ontology)
    mgraph = mapping_graph(key)
    mappings = mgraph if mgraph in store.batches() else None
    h = hashlib.sha256(MATCHER_VERSION.encode())
    h.update(json.dumps([name, key, config.label(), ontology, batch.digest if batch else ""]).encode())
    for doc in sorted(texts):
        h.update(doc.encode() + b"\0" + hashlib.sha256(texts[doc].encode("utf-8")).digest())
    graph = set_iri(name)
    anns = [a for d in sorted(annotations) for a in annotations[d]]
    lines = run_nquads(
        name,
        config=config,
        dictionary=ref,
        mappings=mappings,
        annotations=anns,
        curies=curies,
    )
    n = write_set_batch(store, name, lines, anns, digest=h.hexdigest(), curies=curies, progress=progress)
    if n == 0:
        logger.info("matcher run %s already in the store with the same inputs; not rewritten", name)
    return graph, n
