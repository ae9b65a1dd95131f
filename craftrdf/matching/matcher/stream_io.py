"""The edges of a streamed annotation job: documents found lazily, the progress file, the outputs.

:mod:`craftrdf.matching.matcher.stream` runs the job; this module holds what touches the disk and the
store, so each piece can be tested alone:

- :func:`iter_sources`: the documents of the inputs (text files, folders of ``*.txt``, CRAFT
  directories), one at a time, without reading their texts;
- :func:`read_source`: one document's text, or a :class:`DocumentFailure` saying why not;
- :class:`ProgressFile`: ``progress.jsonl`` in the output folder, one line per finished batch
  (the documents done and failed), the commit point of a batch; a rerun skips what it lists;
- :func:`write_batch_files`: a batch's ``<document>.bionlp`` files, each replaced atomically;
- :class:`StoreTarget`: the set graph the annotations are appended to, batch by batch, in a
  local store or a remote one (:class:`AppendableStore`).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol, runtime_checkable

from ...core.errors import ConfigError, InputError
from ...ingest.corpus import read_splits
from ...store.local import WritableStore
from .run import parse_splits

logger = logging.getLogger(__name__)

#: The progress file in the output folder: a header line, then one line per finished batch.
PROGRESS_FILE = "progress.jsonl"
#: Documents that could not be annotated: document, source, stage, message (tab-separated).
FAILURES_FILE = "failures.tsv"
_FORMAT = "craftrdf-annotate-progress-1"


@runtime_checkable
class AppendableStore(WritableStore, Protocol):
    """A writable store that also adds quads to an existing batch, each call atomic.

    :class:`~craftrdf.store.local.AnnotationStore` (one bulk load) and
    :class:`~craftrdf.store.remote.RemoteStore` (one Graph Store Protocol ``POST``) are.
    """

    def append_batch(self, graph: str, lines: Iterable[str]) -> int:
        """Add N-Quads ``lines`` (all in ``graph``) to the graph in one transaction; returns lines sent."""
        ...

    def optimize(self) -> None:
        """Compact the store after many appended batches (a no-op where the server does it)."""
        ...


@dataclass(frozen=True, slots=True)
class Source:
    """A document to annotate: its id and the file its text is in."""

    document: str
    path: Path


@dataclass(frozen=True, slots=True)
class DocumentFailure:
    """A document left out: its id, its file, the stage that failed (``read``, ``annotate``), why."""

    document: str
    source: str
    stage: str
    message: str


def iter_sources(inputs: Sequence[Path], *, split: str | None = None) -> Iterator[Source]:
    """The documents of ``inputs``, lazily, in a stable order (folders sorted by file name).

    Same inputs and document ids as :func:`~craftrdf.matching.matcher.annotate.read_inputs` (a CRAFT
    directory's articles limited to ``split``; a file's id is its name up to the first dot),
    but texts are not read here. A missing input, an empty folder or ``split`` without a CRAFT
    directory raise ConfigError/InputError before the first document is yielded.
    """
    splits = parse_splits(split)
    kinds: list[tuple[str, Path]] = []
    for path in inputs:
        if path.is_dir() and (path / "articles" / "txt").is_dir():
            kinds.append(("craft", path))
        elif path.is_dir():
            if not any(path.glob("*.txt")):
                raise InputError("no *.txt files in this folder (and it is not a CRAFT directory)", source=str(path))
            kinds.append(("folder", path))
        elif path.is_file():
            kinds.append(("file", path))
        else:
            raise InputError("no such file or directory", source=str(path))
    if split is not None and splits is not None and not any(k == "craft" for k, _ in kinds):
        raise ConfigError("--split applies to a CRAFT directory input; none was given")
    return _sources(kinds, splits)


def _sources(kinds: list[tuple[str, Path]], splits: tuple[str, ...] | None) -> Iterator[Source]:
    for kind, path in kinds:
        if kind == "file":
            yield Source(path.name.split(".")[0], path)
        elif kind == "folder":
            for f in sorted(path.glob("*.txt")):
                yield Source(f.name.split(".")[0], f)
        else:
            split_of = read_splits(path) if splits is not None else {}
            for f in sorted((path / "articles" / "txt").glob("*.txt")):
                if splits is None or split_of.get(f.stem) in splits:
                    yield Source(f.stem, f)


def read_source(source: Source) -> str | DocumentFailure:
    """The UTF-8 text of ``source``, or a failure (unreadable file, not UTF-8) naming file and byte."""
    try:
        return source.path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        return DocumentFailure(source.document, str(source.path), "read", f"not UTF-8 at byte {exc.start}")
    except OSError as exc:
        return DocumentFailure(source.document, str(source.path), "read", exc.strerror or str(exc))


class ProgressFile:
    """``progress.jsonl`` of an output folder: which documents a run has finished (or given up on).

    The first line names the run (``run``: a digest of everything that shapes the output);
    each further line is one batch, ``{"done": [...], "failed": [...]}``, appended and
    flushed to disk after the batch's outputs are written, so a listed document's outputs
    are complete. A last line cut short by a kill is ignored. Opening a folder that holds
    another run's progress raises ConfigError unless ``restart`` (which starts it afresh).
    Holds the finished ids in memory (one string per document).
    """

    def __init__(self, out_dir: Path, run: str, *, restart: bool = False) -> None:
        self.path = out_dir / PROGRESS_FILE
        self.failures_path = out_dir / FAILURES_FILE
        self.run = run
        self.finished: set[str] = set()
        self.failed = 0
        self.resumed = False
        out_dir.mkdir(parents=True, exist_ok=True)
        if self.path.exists() and not restart:
            self._read()
        else:
            self._start()
        self._fh: IO[str] = open(self.path, "a", encoding="utf-8")  # noqa: SIM115  # closed by close()

    def _start(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"format": _FORMAT, "run": self.run}) + "\n", encoding="utf-8")
        os.replace(tmp, self.path)
        self.failures_path.write_text("document\tsource\tstage\tmessage\n", encoding="utf-8")

    def _read(self) -> None:
        with open(self.path, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        try:
            head = json.loads(lines[0])
        except (json.JSONDecodeError, IndexError):
            raise InputError("not a progress file of craftrdf annotate", source=str(self.path), line=1) from None
        if not isinstance(head, dict) or head.get("format") != _FORMAT:
            raise InputError("not a progress file of craftrdf annotate", source=str(self.path), line=1)
        if head.get("run") != self.run:
            raise ConfigError(
                f"{self.path.parent} holds the progress of another run (other set, configuration, model or "
                "store name): use another --out, or --restart to start this folder afresh"
            )
        for line in lines[1:]:
            try:
                batch = json.loads(line)
            except json.JSONDecodeError:  # a line cut short by a kill: its batch is redone
                continue
            self.finished.update(batch.get("done", []))
            self.finished.update(batch.get("failed", []))
            self.failed += len(batch.get("failed", []))
        self.resumed = True
        if not self.failures_path.exists():
            self.failures_path.write_text("document\tsource\tstage\tmessage\n", encoding="utf-8")

    def commit(self, done: Sequence[str], failures: Sequence[DocumentFailure]) -> None:
        """Record a batch as finished: its failures first, then its progress line, flushed to disk."""
        if failures:
            with open(self.failures_path, "a", encoding="utf-8") as fh:
                for f in failures:
                    fields = (f.document, f.source, f.stage, f.message)
                    fh.write("\t".join(" ".join(x.split()) for x in fields) + "\n")
        self._fh.write(json.dumps({"done": list(done), "failed": [f.document for f in failures]}) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self.finished.update(done)
        self.finished.update(f.document for f in failures)
        self.failed += len(failures)

    def close(self) -> None:
        """Close the file (the progress stays on disk)."""
        self._fh.close()


def write_batch_files(out_dir: Path, files: Iterable[tuple[str, str]]) -> int:
    """Write ``(document, BioNLP text)`` as ``<document>.bionlp``, each through a temporary file and a rename.

    A kill leaves every file whole (old or new); returns the number written.
    """
    n = 0
    for doc, text in files:
        path = out_dir / f"{doc}.bionlp"
        tmp = out_dir / f".{doc}.bionlp.tmp"
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
        n += 1
    return n


@dataclass(frozen=True, slots=True)
class StoreTarget:
    """Where annotations go in a store: set graph ``graph``, described by ``header`` (N-Quads lines).

    ``key`` is the set's key (``graph`` is its IRI).
    ``digest`` names the run (the header's batch manifest); :meth:`start` loads the header
    and :meth:`append` adds one batch's quads in one transaction (Oxigraph: one
    ``Store.load``; a remote store: one Graph Store Protocol ``POST``).
    """

    store: AppendableStore
    graph: str
    header: tuple[str, ...]
    digest: str
    key: str

    def start(self, *, resume: bool) -> None:
        """Prepare the graph: replace it by the header (a fresh run), or check it is this run's (a resumed one).

        A resumed run whose graph holds another run raises ConfigError; one whose graph is
        absent (killed before the header was written) loads the header.
        """
        present = self.store.contains_named_graph(self.graph)
        if resume and present:
            if not self.store.has_batch(self.graph, self.digest):
                raise ConfigError(
                    f"the store's {self.graph} holds another run than the one in the output folder; "
                    "use --restart to redo the run, or another --into-store name"
                )
            return
        if present:
            logger.info("replacing %s (a new run)", self.graph)
            self.store.remove_batch(self.graph)
        self.store.load_batch(self.graph, self.header, digest=self.digest)

    def append(self, lines: Iterable[str]) -> int:
        """Add one batch's N-Quads lines to the graph atomically; returns the lines sent."""
        return self.store.append_batch(self.graph, lines)

    def optimize(self) -> None:
        """Compact the store (see :meth:`craftrdf.store.local.AnnotationStore.optimize`)."""
        self.store.optimize()
