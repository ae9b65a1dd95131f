"""The few functions ``import craftrdf`` offers a notebook user, each a thin call into the modules.

They take plain values (paths, set keys, query names) and fill in the defaults the command line
uses (the CRAFT registry, the CURIE map); the modules underneath take the full set of options.
The branches (matcher, sweeps, training, evaluation, exports, server, the remote store) are imported
inside the function that needs them, so ``import craftrdf`` stays light and needs no extra.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .analysis.views import ClassFilter, NestingFilter, ViewRow, ViewSpec, run_view
from .building.builder import BuildReport, build_store
from .building.loader import LoadReport, load_files
from .core.context import RunContext
from .core.curie import CurieMap
from .core.errors import ConfigError
from .core.model import Annotation
from .core.registry import load_registry
from .ontology.cache import DEFAULT_CACHE, SimilarityCache
from .querying.indexes import Progress, update_indexes
from .querying.library import QueryResult, resolve_params, resolve_query, run_query
from .store.local import AnnotationStore, ReadableStore, WritableStore

if TYPE_CHECKING:
    from .analysis.evaluation.run import SetReport
    from .analysis.similarity.definition import Engine
    from .analysis.similarity.graph import Method
    from .analysis.similarity.wang import WangIndex
    from .matching.matcher.config import MatcherConfig
    from .matching.sweeps.entry import SweepReport
    from .matching.training.train import TrainReport
    from .publishing.exports._base import ExportReport
    from .runtime.executors import SweepExecutor
    from .store.remote import RemoteStore


def open(
    location: str | os.PathLike[str] | None = None,
    *,
    mode: Literal["read", "write"] = "read",
    graph_store: str | None = None,
    timeout: float = 60.0,
) -> AnnotationStore | RemoteStore:
    """Open a store: a directory, a SPARQL endpoint URL, or (``None``) a new one in memory.

    A directory opens as an :class:`~craftrdf.store.local.AnnotationStore` (``mode="write"``
    creates it and takes the writer lock; ``"read"`` shares it with other readers, never
    writes, and refuses a directory that holds no store). An
    ``http(s)://`` URL opens a :class:`~craftrdf.store.remote.RemoteStore` on that query endpoint;
    it writes through ``graph_store``, its Graph Store Protocol URL, when given. Use the
    result as a context manager so locks are released. StoreError when it cannot be opened.

    >>> import craftrdf
    >>> with craftrdf.open() as store:
    ...     len(store)
    0
    """
    if location is None:
        return AnnotationStore.memory()
    text = os.fspath(location)
    if text.startswith(("http://", "https://")):
        from .store.remote import RemoteStore

        return RemoteStore(text, graph_store=graph_store, timeout=timeout)
    return AnnotationStore.open(text, mode=mode)


def build(
    store: WritableStore,
    craft_dir: str | os.PathLike[str],
    *,
    sets: Iterable[str] | None = None,
    progress: Progress | None = None,
) -> BuildReport:
    """Load a CRAFT directory (a clone of UCDenver-ccp/CRAFT, or the bundled sample) into ``store``.

    Batches already loaded from the same input are skipped, so a re-run adds nothing;
    ``sets`` limits the annotation sets (keys such as ``UBERON_EXT``). Ends by bringing
    the view indexes up to date (see :func:`index`). See :func:`craftrdf.building.builder.build_store`.
    """
    return build_store(Path(craft_dir), store, RunContext.create(), sets=sets, progress=progress)


def load(
    store: WritableStore,
    paths: Sequence[str | os.PathLike[str]],
    *,
    set_key: str | None = None,
    module: str | None = None,
) -> LoadReport:
    """Add files outside the CRAFT layout: ontologies (OBO, OWL, Turtle) and annotations (Knowtator, BioNLP).

    Annotation files go into the set ``set_key``. Everything is validated before anything
    is written; the view indexes are brought up to date at the end (see :func:`index`).
    See :func:`craftrdf.building.loader.load_files`.
    """
    return load_files(store, [Path(p) for p in paths], set_key=set_key, module=module)


def index(store: WritableStore, *, progress: Progress | None = None) -> int:
    """Bring the store's view indexes up to date: the nested-annotation index and each set's view index.

    :func:`view` reads them; :func:`build` and :func:`load` keep them current, so this is
    for a store written otherwise (by an older craftrdf, or by hand). Returns the index
    batches made (0 when all were current). Needs the store opened with ``mode="write"``.
    See :func:`craftrdf.querying.indexes.update_indexes` and docs/views.md.
    """
    return update_indexes(store, progress=progress)


def query(store: ReadableStore, name: str, params: Mapping[str, str] | None = None, /, **bindings: str) -> QueryResult:
    """Run a library query by name (``queries/<name>.rq``) or a ``.rq`` file, with parameters bound.

    Parameters come as a mapping or as keywords (``set="UBERON_EXT"``); a CURIE or an IRI
    binds an IRI, anything else a string literal, never pasted into the query text.
    :meth:`QueryResult.records` gives the rows as Python values. QueryError names an
    unknown query or parameter; a library query's ``set`` is resolved as every command's
    set key is (any case; ConfigError listing the sets for an unknown key). The query may
    call ``craftrdf:wang(?a, ?b)`` and its kin (docs/similarity.md, "In SPARQL") and use the
    CRAFT prefixes undeclared (``UBERON:0000955``). See docs/queries.md for the library.
    """
    from .analysis.similarity.sparql import functions_for

    q = resolve_query(name)
    bound = resolve_params(store, q, {**(params or {}), **bindings})
    return run_query(store, q, bound, functions=functions_for(store).session())


def export(
    store: ReadableStore,
    set_key: str,
    out: str | os.PathLike[str],
    *,
    format: str,
    document: str | None = None,
    jsonld_context: Literal["inline", "remote"] = "inline",
) -> ExportReport:
    """Write an annotation set to ``out``: turtle, trig, nquads, jsonld, pubannotation or bionlp.

    The RDF and JSON-LD formats write one file; pubannotation and bionlp a folder of one
    file per document. JSON-LD states the W3C Web Annotation context inline unless
    ``jsonld_context="remote"``. See :func:`craftrdf.publishing.exports.sets.export_set` and docs/exports.md.
    """
    from .publishing.exports.sets import export_set

    return export_set(store, set_key, out, format=format, document=document, jsonld_context=jsonld_context)


def view(
    store: ReadableStore,
    sets: str | Sequence[str],
    *,
    classes: ClassFilter = "all",
    nesting: NestingFilter = "all",
    split: str | None = None,
) -> list[ViewRow]:
    """The annotations of some sets, filtered by class (proper or extension) and nesting (outermost or nested).

    ``sets`` is one key or several (exact store keys). A nesting filter on a store opened
    for reading needs its nested-annotation index current (made by :func:`build`,
    :func:`load` and :func:`index`; StoreError says so otherwise). See
    :func:`craftrdf.analysis.views.run_view` and docs/views.md for the filters.
    """
    keys = (sets,) if isinstance(sets, str) else tuple(sets)
    return run_view(store, ViewSpec(keys, classes, nesting, split))


def similarity_index(
    store: ReadableStore,
    *,
    method: Method = "wang",
    weights: Mapping[str, float] | None = None,
    ontology: str | None = None,
    classify_extensions: bool = False,
    curies: CurieMap | None = None,
    cache: SimilarityCache | None = DEFAULT_CACHE,
    engine: Engine = "auto",
    placements: Sequence[tuple[str, str]] | None = None,
    cache_dir: Path | None = None,
) -> WangIndex:
    """A Wang similarity index over the store's ontology graph (``ontology``; every graph merged by default).

    ``method`` ``wang`` follows ``weights`` (relation name -> weight; the paper's is_a 0.8,
    part_of 0.6 by default), ``bossy`` is is_a only at 0.65; ``classify_extensions`` places the
    extension classes by their logical definitions first. Cached per store (``cache=None`` builds
    afresh); ``cache_dir`` also keeps it on disk between processes (not with ``curies``, an index of
    other CURIEs). See :func:`craftrdf.analysis.similarity.graph.wang_index` for every option and
    docs/similarity.md.
    """
    from .analysis.similarity.graph import IndexSpec, wang_index

    spec = IndexSpec(method, weights, ontology, classify_extensions, engine)
    ctx = None
    if curies is not None or cache_dir is not None:  # the index on disk is of the default CURIEs: not with curies
        ctx = RunContext(load_registry(), curies or CurieMap(), cache_dir if curies is None else None)
    return wang_index(store, spec, ctx, cache=cache, placements=placements)


def evaluate(
    store: ReadableStore,
    gold: str,
    pred: str,
    *,
    apply_craft_rules: bool = False,
    craft: str | os.PathLike[str] | None = None,
) -> list[SetReport]:
    """Score predictions as the CRAFT Shared Task 2019 did, plus the classic NER criteria.

    ``gold`` and ``pred`` are set keys of the store, or directories of BioNLP files (a
    Shared Task run). One :class:`~craftrdf.analysis.evaluation.run.SetReport` per set. See
    :func:`craftrdf.analysis.evaluation.run.evaluate_store` and docs/evaluation.md.
    """
    from .analysis.evaluation.run import EvaluateOptions, evaluate_store

    return evaluate_store(
        store,
        gold,
        pred,
        load_registry(),
        options=EvaluateOptions(apply_craft_rules=apply_craft_rules),
        craft=Path(craft) if craft is not None else None,
    )


def annotate(
    store: ReadableStore,
    set_key: str,
    texts: Mapping[str, str],
    config: MatcherConfig | None = None,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
) -> dict[str, list[Annotation]]:
    """Run the dictionary matcher with the names of set ``set_key``'s ontology on ``texts`` (id -> text).

    ``config`` defaults to the matcher's default configuration (docs/matcher.md); the
    dictionary is cached in ``cache_dir`` when given. Returns the annotations per text id.
    """
    from .matching.matcher.annotate import MatchingSession
    from .matching.matcher.config import MatcherConfig
    from .matching.matcher.dictionary import load_terms
    from .querying.sets import resolve_set

    cache = Path(cache_dir) if cache_dir is not None else None
    terms, _ = load_terms(store, resolve_set(store, set_key), RunContext.create(cache_dir=cache))
    return MatchingSession(texts, terms, cache_dir=cache).annotate(config or MatcherConfig())


def sweep(
    store: ReadableStore,
    set_key: str,
    out_dir: str | os.PathLike[str],
    *,
    grid: str = "quick",
    split: str = "train,dev",
    report_on: str | None = None,
    executor: SweepExecutor | None = None,
) -> SweepReport:
    """Run the matcher's configurations of ``grid`` (``quick``, ``all``) against the gold of ``set_key``.

    Selects on the documents of ``split``, reports on those of ``report_on``; writes
    ``results.csv`` (resumable), ``best.md`` and ``pr.png`` in ``out_dir``. See
    :func:`craftrdf.matching.sweeps.entry.sweep_store` and docs/sweep.md.
    """
    from .matching.sweeps.entry import SweepOptions, sweep_store
    from .matching.sweeps.grid import load_grid

    return sweep_store(
        store,
        set_key,
        load_grid(grid),
        RunContext.create(executor=executor),
        out_dir=Path(out_dir),
        options=SweepOptions(split=split, report_on=report_on),
    )


def serve(
    store: str | os.PathLike[str],
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    workers: int = 2,
    base_iri: str | None = None,
    union_default_graph: bool = False,
) -> None:
    """Publish an on-disk store over HTTP (SPARQL 1.1 endpoint, linked data, viewer) until interrupted.

    Read-only, with the defaults of ``craftrdf serve``; needs the ``craftrdf[server]``
    extra. ``union_default_graph``: queries that name no dataset see the union of every
    graph as their default graph (``craftrdf serve --union-default-graph``), for clients such
    as rdflib's SPARQLStore that never name a graph. See :func:`craftrdf.publishing.server.app.serve`
    for every option and docs/server.md.
    """
    try:
        from .publishing.server.app import serve as run
        from .publishing.server.config import ServerConfig
    except ImportError as exc:
        raise ConfigError(f"serving needs the server extra: pip install 'craftrdf[server]' ({exc})") from None
    config = ServerConfig(base_iri=base_iri or f"http://{host}:{port}/", union_default_graph=union_default_graph)
    run(store, config, host=host, port=port, workers=workers)


def train(
    store: ReadableStore,
    set_key: str,
    out: str | os.PathLike[str] | None = None,
    *,
    on: str = "train,dev",
    quick: bool = False,
    cache_dir: str | os.PathLike[str] | None = None,
) -> TrainReport:
    """Learn a matcher for ``set_key`` from the gold of the documents of ``on``; write the model folder ``out``.

    The names annotators wrote, each term's precision where it occurs, and the rules are
    learned from those documents only; configuration and threshold are chosen by
    document-level cross-validation (``quick``: a reduced selection). Apply the model with
    ``craftrdf annotate --model`` or :func:`craftrdf.matching.training.train.annotate_with_model`. See
    :func:`craftrdf.matching.training.train.train_set` and docs/training.md.
    """
    from .matching.training.train import TrainOptions, train_set

    report, _ = train_set(
        store,
        set_key,
        RunContext.create(cache_dir=Path(cache_dir) if cache_dir is not None else None),
        on=on,
        out=Path(out) if out is not None else None,
        options=TrainOptions(quick=quick),
    )
    return report
