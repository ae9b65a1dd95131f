"""``craftrdf reproduce``: build or reuse a store, compute every section, write report.md and figures."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ...building.builder import build_store, check_craft_dir
from ...core.context import RunContext
from ...core.errors import ConfigError
from ...core.iris import ontology_name
from ...core.model import Annotation
from ...matching.matcher.config import MatcherConfig
from ...matching.sweeps.entry import SweepOptions, SweepReport
from ...matching.sweeps.grid import load_grid
from ...matching.sweeps.run import Progress
from ...matching.sweeps.termfilter import TermFilter
from ...matching.training.evaluate import SplitPlan, Training, collect_trained, start_training
from ...matching.training.train import TrainOptions
from ...querying.sets import resolve_set
from ...runtime.executors import SweepExecutor
from ...store.local import AnnotationStore
from .figures import ser_figure, similarity_figure
from .published import Published, load_published
from .report import Measured, render_report
from .sections import (
    SimilarityDistribution,
    count_causes,
    count_rows,
    documents_of,
    gold_only_sets,
    run_sweeps,
    sets_with_ontology,
    similarity_distribution,
    uberon_nesting,
    uberon_stats,
)
from .warmup import WarmUp, start_warm_up

logger = logging.getLogger(__name__)

#: The sets whose ontology CRAFT ships in a size that fits (those of the Shared Task comparison).
SWEEP_SETS = ("CL", "CL_EXT", "GO_MF", "GO_MF_EXT", "MOP", "MOP_EXT", "SO", "SO_EXT", "UBERON", "UBERON_EXT")
PAPER_SETS = ("UBERON", "UBERON_EXT")
#: The set of section 5 (the similarity of the matcher's classes to gold).
SIMILARITY_SET = "UBERON_EXT"


@dataclass(frozen=True, slots=True)
class ReproduceResult:
    """What a run wrote and how long it took."""

    report: Path
    files: tuple[Path, ...]
    seconds: float
    quick: bool
    skipped: tuple[str, ...]
    #: Wall-clock seconds per stage: build, counts and statistics, sweeps, similarity (--quick: training runs on
    #: the workers meanwhile), training (what is left of it), figures.
    stages: tuple[tuple[str, float], ...] = ()


def reproduce(
    craft_dir: Path,
    out_dir: Path,
    *,
    store_path: Path | None = None,
    quick: bool = False,
    conceptmapper_faithful: bool = False,
    executor: SweepExecutor | None = None,
    progress: Callable[[str], Progress | None] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> ReproduceResult:
    """Rebuild the corpus papers' tables in ``out_dir/report.md`` (with PNG figures beside it).

    The store is ``store_path`` (default ``out_dir/craft.store``), built from ``craft_dir``
    or brought up to date (unchanged batches are skipped). ``quick`` sweeps the reduced
    ``quick`` grid on UBERON and UBERON_EXT and only the default configuration on the
    other sets; otherwise all 576 configurations on every set. ``progress(stage)`` gives a
    progress callback per stage (or None). Sets whose ontology is absent are skipped and
    listed in the report. Sentence splits and dictionaries are cached in ``out_dir/cache``.
    The sweeps apply CRAFT's post-processing rules and prefer labels over synonyms
    (craftrdf's best), unless ``conceptmapper_faithful``. ``quick`` trains section 4's matcher
    on ``executor`` too (one task per set) while this process computes the similarity distribution.
    """
    t0 = clock()
    stages: list[tuple[str, float]] = []

    def lap(stage: str) -> None:
        stages.append((stage, clock() - t0 - sum(s for _, s in stages)))

    check_craft_dir(craft_dir)  # before anything is created in out_dir
    if out_dir.exists() and not out_dir.is_dir():
        raise ConfigError(f"{out_dir} exists and is not a directory: give a directory for the report")
    out_dir.mkdir(parents=True, exist_ok=True)
    ctx = RunContext.create(cache_dir=out_dir / "cache", executor=executor)
    published = load_published()
    with AnnotationStore.open(store_path or out_dir / "craft.store") as store:
        build_store(craft_dir, store, ctx, progress=progress("build store") if progress else None)
        lap("build")
        grid = load_grid("quick" if quick else "all")
        m = _measure(
            store,
            grid,
            ctx,
            published=published,
            out_dir=out_dir,
            mode=(quick, conceptmapper_faithful),
            progress=progress,
            lap=lap,
        )
    grid_name = f"the quick grid, {len(grid)} configurations" if quick else f"all {len(grid)} configurations"
    sweeps, similarity = m.sweeps, m.similarity
    files = _figures(sweeps, similarity, published, out_dir)
    lap("figures")
    seconds = clock() - t0
    resumed = {k: v.result.resumed for k, v in sweeps.items() if v.result.resumed}
    header = _header(
        craft_dir, seconds, stages, grid_name, m.skipped, resumed, quick=quick, faithful=conceptmapper_faithful
    )
    text = render_report(
        m,
        sweeps={k: v for k, v in sweeps.items() if k in PAPER_SETS},
        quick=quick,
        published=published,
        grid=grid_name,
        header=header,
    )
    report = out_dir / "report.md"
    report.write_text(text, encoding="utf-8")
    files = [report, *files, *(f for rep in sweeps.values() for f in rep.files)]
    return ReproduceResult(report, tuple(files), seconds, quick, tuple(m.skipped), tuple(stages))


def _measure(
    store: AnnotationStore,
    grid: tuple[MatcherConfig, ...],
    ctx: RunContext,
    *,
    published: Published,
    out_dir: Path,
    mode: tuple[bool, bool],
    progress: Callable[[str], Progress | None] | None,
    lap: Callable[[str], None],
) -> Measured:
    """Counts and statistics, then the sweeps of every set with an ontology, then the similarity distribution.

    ``mode`` is :func:`reproduce`'s ``(quick, conceptmapper_faithful)``; ``ctx`` holds its executor and
    ``out_dir/cache``. ``lap`` marks the end of each stage; sets without an ontology in the store are
    skipped (and listed).
    """
    quick, conceptmapper_faithful = mode
    executor = ctx.executor
    # the workers idle until the sweeps: they split the texts and place the similarity section's classes meanwhile
    warm = _warm_up(store, executor, out_dir / "cache")
    counts = count_rows(store, published.counts)
    public = documents_of(store, ("train", "dev"))
    test = documents_of(store, ("test",))
    fetched: dict[str, list[Annotation]] = {}  # each set's annotations read once for all sections
    causes = count_causes(store, counts, fetched=fetched)
    stats = uberon_stats(store, public)
    nesting = uberon_nesting(store, PAPER_SETS, public, fetched=fetched)
    if warm is not None:
        warm.wait_for_sentences()
        # the workers idle while this process sweeps the one-configuration sets: the similarity section's
        # kernels compile there (numba, when its disk cache is cold) instead of in this process later
        warm.compile_kernels()
    lap("counts and statistics")
    sweeps: dict[str, SweepReport] = {}
    with_ontology = sets_with_ontology(store)
    skipped = [k for k in SWEEP_SETS if k not in with_ontology]
    for key in skipped:
        logger.warning("reproduce: skipped %s: the store holds no ontology for it", key)
    for key in (k for k in SWEEP_SETS if k in with_ontology):
        # --quick: the other sets run the default configuration alone; one configuration runs faster in
        # this process than shipped to workers (measured: 10 s against 13-18 s for the eight sets)
        configs = grid if key in PAPER_SETS or not quick else (MatcherConfig(),)
        sweeps |= run_sweeps(
            store,
            [key],
            configs,
            ctx if len(configs) > 1 else ctx.with_(executor=None),
            out_dir=out_dir / "sweeps",
            options=SweepOptions(
                apply_craft_rules=not conceptmapper_faithful,
                prefer_labels=not conceptmapper_faithful,
                plot=len(configs) > 1,
                term_filter=TermFilter(),
            ),
            progress=progress,
            fetched=fetched,
        )
    lap("sweeps")
    # the sets train on the sweeps' executor while this process computes the similarity distribution
    training = _train(store, with_ontology, ctx, quick=quick, out_dir=out_dir, fetched=fetched)
    similarity = (
        similarity_distribution(
            store,
            SIMILARITY_SET,
            test,
            ctx.with_(cache_dir=out_dir / "cache"),
            fetched=fetched,
            placements=warm.structural_placements() if warm is not None else None,
        )
        if test
        else None
    )
    lap("similarity")
    trained = collect_trained(training)
    lap("training")
    return Measured(counts, public, test, causes, stats, nesting, sweeps, skipped, similarity, trained)


def _warm_up(store: AnnotationStore, executor: SweepExecutor | None, cache_dir: Path) -> WarmUp | None:
    """Start the warm-up tasks on ``executor`` (None without one, or when the store lacks the section's ontology)."""
    if executor is None:
        return None
    ontology = resolve_set(store, SIMILARITY_SET).ontology if SIMILARITY_SET in sets_with_ontology(store) else None
    if ontology is None:
        return None
    return start_warm_up(store, executor, ontology=ontology_name(ontology), cache_dir=cache_dir)


def _train(
    store: AnnotationStore,
    with_ontology: set[str],
    ctx: RunContext,
    *,
    quick: bool,
    out_dir: Path,
    fetched: dict[str, list[Annotation]],
) -> Training:
    """Start the trained matcher of section 4: every set with an ontology, in a full run the sets without one too.

    The sets train on ``ctx.executor`` (one task per set, largest first; the same models as in this
    process), while this process computes section 5. Shipping every normalization's dictionary of
    the ten sets with an ontology costs each worker about 0.8 GB (bench/bench_train.py).
    """
    keys = [k for k in SWEEP_SETS if k in with_ontology]
    if not quick:  # from gold names alone
        keys += sorted(k for k in gold_only_sets(store) if k not in keys)
    return start_training(
        store,
        keys,
        ctx.with_(cache_dir=out_dir / "cache"),
        SplitPlan(options=TrainOptions(quick=quick), out_dir=out_dir / "models"),
        fetched=fetched,
    )


def _figures(
    sweeps: dict[str, SweepReport], similarity: SimilarityDistribution | None, published: Published, out_dir: Path
) -> list[Path]:
    """The report's PNG figures: SER per set beside the Shared Task's, and the similarity histogram."""
    ours = {k: v.report["ser"].ser for k, v in sweeps.items() if v.report is not None}
    files = [ser_figure(ours, published.ser, out_dir / "ser.png")]
    if similarity is not None:
        files.append(similarity_figure(similarity, out_dir / "similarity.png"))
    return files


def _header(
    craft_dir: Path,
    seconds: float,
    stages: list[tuple[str, float]],
    grid_name: str,
    skipped: list[str],
    resumed: dict[str, int],
    *,
    quick: bool,
    faithful: bool,
) -> str:
    """The report's first paragraph: how it was made, how long each stage took, what was left out."""
    return (
        f"Made by `craftrdf reproduce{' --quick' if quick else ''}` from {craft_dir} in {seconds:.0f} s ("
        + ", ".join(f"{name} {s:.0f} s" for name, s in stages)
        + (
            "; the trained matcher's sets were trained on the sweeps' workers during the similarity stage, "
            "training counts what was left"
            if quick
            else ""
        )
        + "). "
        f"Sweeps: {grid_name} on UBERON and UBERON_EXT"
        + ("; the default configuration on the other sets" if quick else " and on every other set")
        + (
            "; ConceptMapper's behaviour (no CRAFT rules, no label preference)."
            if faithful
            else "; CRAFT's post-processing rules applied to the matcher's output and labels preferred over "
            "synonyms (`--apply-craft-rules --prefer-labels`; `--conceptmapper-faithful` turns both off)."
        )
        + (f" Skipped (no ontology file): {', '.join(skipped)}." if skipped else "")
        + (
            " Configurations resumed from an earlier run in the same output directory (their time is not in "
            "the total): " + ", ".join(f"{k} {n}" for k, n in resumed.items()) + "."
            if resumed
            else ""
        )
    )
