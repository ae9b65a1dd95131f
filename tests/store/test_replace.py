"""Replacing a batch is atomic: old or new, never neither, even under ``kill -9`` (issue 17).

A replacement used to drop the graph and then bulk-load the new version: killed between the
two, the set was absent. The kill test below runs replacements in a child process and sends
SIGKILL once in each phase of the replacement, from before it starts to after it ends (a
dozen delays in the long sweep); after each kill the store is opened again and the graph must be exactly the old
version or exactly the new one. The versions are built here, so what "exactly" means is
known without the code under test.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import IO

import pyoxigraph as ox
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from craftrdf.store.local import AnnotationStore

G = "https://w3id.org/craftrdf/set/KILL"
N = 10_000

# The child reads the version from a file rather than importing this module, whose imports
# (pytest, Hypothesis) would add a third to the start-up paid at every kill point.
CHILD = """
import sys, time
from pathlib import Path
from craftrdf.store.local import AnnotationStore
path, graph, which, lines = sys.argv[1:5]
version = Path(lines).read_text(encoding="utf-8").splitlines()
with AnnotationStore.open(path) as store:
    print("READY", flush=True)
    t = time.perf_counter()
    store.load_batch(graph, version, digest=which)
    print("DONE", time.perf_counter() - t, flush=True)
"""


def version(which: str) -> list[str]:
    """N-Quads of one version: ``new`` changes 30% of ``old``'s literals and its blank node triples."""
    out = []
    for i in range(N):
        changed = which == "new" and i % 10 < 3
        out.append(f'<https://example.org/s{i}> <https://example.org/p{i % 5}> "v{i}{"*" if changed else ""}" <{G}> .')
    out.append(f"<https://example.org/root> <https://example.org/has> _:b <{G}> .")
    out.append(f'_:b <https://example.org/tag> "{which}" <{G}> .')
    return out


def expected(which: str) -> tuple[frozenset[str], str]:
    """(triples without blank nodes plus the manifest, the blank node's tag), from the version's text."""
    plain = {line.rsplit(" <", 1)[0] for line in version(which) if "_:" not in line}
    plain.add(f'<{G}> <https://w3id.org/craftrdf/vocab#digest> "{which}"')
    return frozenset(plain), which


def observed(path: Path, mode: str) -> tuple[frozenset[str], str] | None:
    """What the store holds in G, in the shape of :func:`expected`; None when G is absent."""
    with AnnotationStore.open(path, mode=mode) as store:  # type: ignore[arg-type]
        g = ox.NamedNode(G)
        plain: set[str] = set()
        tags = []
        for q in store.raw.quads_for_pattern(None, None, None, g):
            if isinstance(q.subject, ox.BlankNode):
                tags.append(q.object.value)  # type: ignore[union-attr]
            elif not isinstance(q.object, ox.BlankNode):
                plain.add(f"{q.subject} {q.predicate} {q.object}")
        if not plain and not tags:
            return None
        return frozenset(plain), ",".join(tags)


def run_child(path: Path, which: str, kill_after: float | str | None) -> float | None:
    """Replace G by ``which`` in a child; SIGKILL it ``kill_after`` s after it is ready. Its duration if it ended.

    ``kill_after="done"`` kills it once ``load_batch`` has returned, before the store is closed.
    """
    lines = path.parent / f"{which}.nq"
    if not lines.exists():
        lines.write_text("\n".join(version(which)) + "\n", encoding="utf-8")
    with subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), G, which, str(lines)], stdout=subprocess.PIPE, text=True
    ) as child:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "READY"
        if kill_after is None:
            done = child.stdout.readline().split()
            child.wait(timeout=120)
            return float(done[1])
        if kill_after == "done":
            assert child.stdout.readline().startswith("DONE")
        else:
            time.sleep(float(kill_after))
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
        return None


def set_to(path: Path, which: str | None) -> None:
    """Make G hold ``which`` (None: no G). A function, so the store is released when it returns."""
    with AnnotationStore.open(path) as store:
        if which is None:
            store.remove_batch(G)
        elif not store.has_batch(G, which):
            store.load_batch(G, version(which), digest=which)


def _spread(points: int) -> tuple[float, ...]:
    """``points - 1`` delays (fractions of an unkilled run) from 0 to 1.2, evenly spaced; "done" is the last point."""
    return tuple(1.2 * i / (points - 2) for i in range(points - 1))


# A replacement (two unkilled runs at load 4: 0.43 and 0.51 s) spools the new lines (the first 2%),
# dumps the old graph (to 18-36%), computes the difference (from 24-41% to 53-67%), runs its one
# update transaction (to 100%), then closes the store. The default kills once per phase: before the
# load (0), in the dump (0.12), in the difference (0.45), in the transaction (0.85), while closing
# (1.2), and committed but not closed ("done"). A first load is one bulk load: before it (0),
# inside it (0.6), after it (1.2) and "done". The long sweep spreads 12 and 6 points evenly.
_SWEEP = pytest.mark.long("the full sweep of kill points (the default suite kills once per phase)")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("start", "delays"),
    [
        ("old", (0.0, 0.12, 0.45, 0.85, 1.2)),
        ("absent", (0.0, 0.6, 1.2)),
        pytest.param("old", _spread(12), marks=_SWEEP),
        pytest.param("absent", _spread(6), marks=_SWEEP),
    ],
    ids=["old-phases", "absent-phases", "old-12", "absent-6"],
)
def test_a_killed_load_leaves_the_old_version_or_the_new_one(
    tmp_path: Path, start: str, delays: tuple[float, ...]
) -> None:
    """``old``: a replacement; ``absent``: a first load (its "old" is no graph); killed once per delay.

    Delays are fractions of the duration of an unkilled run; the last kill comes once ``load_batch``
    has returned (committed, not yet flushed or closed), so the new version must be there.
    """
    path = tmp_path / "store"
    before = expected("old") if start == "old" else None
    after = expected("new")
    set_to(path, "old" if start == "old" else None)
    duration = run_child(path, "new", None)
    assert duration is not None and observed(path, "read") == after
    outcomes = []
    for i, fraction in enumerate([*delays, "done"]):
        delay: float | str = duration * fraction if isinstance(fraction, float) else fraction
        set_to(path, "old" if start == "old" else None)
        run_child(path, "new", delay)
        seen = observed(path, "read")
        assert seen in (before, after), f"kill {i} at {delay} s: neither old nor new"
        assert observed(path, "write") == seen  # the next writer's opening (orphans removed) sees the same
        outcomes.append("new" if seen == after else "old")
    assert outcomes[0] == "old" and outcomes[-1] == "new", outcomes


def test_replacing_writes_only_the_difference_and_keeps_blank_nodes_right(tmp_path: Path) -> None:
    with AnnotationStore.open(tmp_path / "s") as store:
        store.load_batch(G, version("old"), digest="old")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            store.load_batch(G, version("new"), digest="new")
    assert observed(tmp_path / "s", "read") == expected("new")
    with AnnotationStore.open(tmp_path / "s", mode="read") as store:
        roots = list(store.raw.quads_for_pattern(None, ox.NamedNode("https://example.org/has"), None))
        assert len(roots) == 1 and isinstance(roots[0].object, ox.BlankNode)
        (tag,) = store.raw.quads_for_pattern(roots[0].object, None, None)
        assert tag.object.value == "new"  # type: ignore[union-attr]


def test_the_update_deletes_and_inserts_only_changed_triples() -> None:
    from craftrdf.store.replace import nquads_file, replacement_update

    def nq(which: str) -> IO[bytes]:
        return nquads_file(ox.parse("\n".join(version(which)), ox.RdfFormat.N_QUADS))

    with nq("old") as old, nq("new") as new:
        diff = replacement_update([G], old, new)
    # by hand: 3 in 10 of N literals change, so 3,000 go out and 3,000 come in; both blank-node triples each way
    assert (diff.removed, diff.added, diff.blank_old, diff.blank_new) == (3000, 3000, 2, 2)
    assert diff.update.count('*" .') == 3000


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)


@settings(max_examples=60, deadline=None)
@given(old=st.lists(_TEXT, max_size=8), new=st.lists(_TEXT, max_size=8), lang=st.sampled_from(["", "@en", "@de-CH"]))
def test_any_literal_text_is_replaced_exactly(old: list[str], new: list[str], lang: str) -> None:
    """Whatever text the input holds (quotes, backslashes, newlines, NUL, braces), the graph ends as the new version.

    The oracle is pyoxigraph's own parse of the new version's lines, compared as term sets.
    """
    from craftrdf.core.rdf import literal

    def lines(values: list[str]) -> list[str]:
        return [
            f"<https://example.org/s{i}> <https://example.org/p> {literal(v)}{lang} <{G}> ."
            for i, v in enumerate(values)
        ]

    store = AnnotationStore.memory()
    store.load_batch(G, lines(old), digest="old")
    store.load_batch(G, lines(new), digest="new")
    got = {(q.subject, q.predicate, q.object) for q in store.raw.quads_for_pattern(None, None, None, ox.NamedNode(G))}
    want = {(q.subject, q.predicate, q.object) for q in ox.parse("\n".join(lines(new)), ox.RdfFormat.N_QUADS)}
    want.add((ox.NamedNode(G), ox.NamedNode("https://w3id.org/craftrdf/vocab#digest"), ox.Literal("new")))
    assert got == want
