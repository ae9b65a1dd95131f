"""``results.csv``: one row per configuration, appended as configurations finish, safe to resume.

Columns: the seven parameters (ConceptMapper names), ``tp,fp,fn,precision,recall,f1``
(exact spans and class), ``ser`` (Shared Task slot error rate), ``seconds`` (the
search and scoring of the run that produced the row; configurations that behave alike
share one run and its seconds).

Durability: every append writes complete lines in one ``write``, then flushes and
fsyncs, so a kill loses at most the rows not yet written. A kill during a write can
leave a last line without its newline; :func:`read_results` ignores it and
:class:`ResultsFile` cuts it off before appending, so the file is never corrupt.
"""

from __future__ import annotations

import csv
import io
import logging
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ...analysis.evaluation.metrics import RetrievalRates
from ...core.errors import ConfigError
from ..matcher.config import PARAMETERS, MatcherConfig

logger = logging.getLogger(__name__)

COLUMNS: tuple[str, ...] = (*PARAMETERS, "tp", "fp", "fn", "precision", "recall", "f1", "ser", "seconds")


@dataclass(frozen=True, slots=True)
class SweepRow(RetrievalRates):
    """The scores of one configuration: exact-span counts and rates, the Shared Task SER, seconds."""

    config: MatcherConfig
    tp: int
    fp: int
    fn: int
    ser: float
    seconds: float
    #: processor seconds of the run (not written to the file: with other work on the machine, the wall
    #: clock ``seconds`` overstate the cost; this does not)
    cpu_seconds: float = field(default=0.0, compare=False)

    def values(self) -> list[str]:
        """The CSV fields, in :data:`COLUMNS` order."""
        return [
            *self.config.params().values(),
            str(self.tp),
            str(self.fp),
            str(self.fn),
            f"{self.precision:.6f}",
            f"{self.recall:.6f}",
            f"{self.f1:.6f}",
            f"{self.ser:.6f}",
            f"{self.seconds:.3f}",
        ]

    @classmethod
    def from_values(cls, values: Sequence[str]) -> SweepRow:
        """A row from CSV fields in :data:`COLUMNS` order (ValueError/ConfigError when malformed)."""
        if len(values) != len(COLUMNS):
            raise ValueError(f"expected {len(COLUMNS)} fields, got {len(values)}")
        n = len(PARAMETERS)
        config = MatcherConfig.from_params(dict(zip(PARAMETERS, values[:n], strict=True)))
        tp, fp, fn = (int(v) for v in values[n : n + 3])
        return cls(config, tp, fp, fn, float(values[n + 6]), float(values[n + 7]))


def csv_line(values: Sequence[str]) -> str:
    """One CSV line (with its newline) of ``values``."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(values)
    return buf.getvalue()


def read_results(path: Path) -> dict[MatcherConfig, SweepRow]:
    """The complete rows of a results file, by configuration (empty when the file is missing).

    A last line without its newline (a write cut short) is ignored; any other bad line,
    or a header other than :data:`COLUMNS`, raises ConfigError naming the file and line.
    """
    try:
        data = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    lines = data.split("\n")
    if lines and lines[-1]:
        logger.warning("%s: ignoring an incomplete last line (a write was interrupted)", path)
    lines = lines[:-1]  # the piece after the last newline: empty, or the incomplete line
    if not lines:
        return {}
    if tuple(next(csv.reader([lines[0]]))) != COLUMNS:
        raise ConfigError(f"{path}: not a sweep results file (header is not {','.join(COLUMNS)}); choose another --out")
    out: dict[MatcherConfig, SweepRow] = {}
    for number, line in enumerate(lines[1:], start=2):
        try:
            row = SweepRow.from_values(next(csv.reader([line])))
        except (ValueError, StopIteration) as exc:
            raise ConfigError(f"{path}, line {number}: malformed row ({exc}); remove the line to resume") from None
        out[row.config] = row
    return out


class ResultsFile:
    """The results file of a sweep, opened for appending after its complete rows.

    ``rows`` holds what was already there (a resumed sweep skips those
    configurations). :meth:`append` writes rows durably. Use as a context manager.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows = read_results(path)
        self._repair()
        self._fh = open(path, "ab")  # noqa: SIM115 - closed in close()

    def _repair(self) -> None:
        """Write the header to a new file; cut an incomplete last line off an old one."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            tmp = self.path.with_name(self.path.name + ".tmp")
            with open(tmp, "wb") as fh:
                fh.write(csv_line(COLUMNS).encode("utf-8"))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
            return
        with open(self.path, "rb+") as fh:
            data = fh.read()
            keep = data.rfind(b"\n") + 1
            if keep < len(data):
                fh.truncate(keep)
                fh.flush()
                os.fsync(fh.fileno())

    def append(self, rows: Iterable[SweepRow]) -> None:
        """Write complete lines for ``rows`` in one write, flush and fsync."""
        rows = list(rows)
        if not rows:
            return
        self._fh.write("".join(csv_line(r.values()) for r in rows).encode("utf-8"))
        self._fh.flush()
        os.fsync(self._fh.fileno())
        for r in rows:
            self.rows[r.config] = r

    def close(self) -> None:
        """Close the file."""
        self._fh.close()

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def pareto_front(rows: Iterable[SweepRow]) -> list[SweepRow]:
    """Rows no other row beats on both precision and recall (at least as good on both, better on one).

    Sorted by recall. Rows with equal precision and recall are all kept.
    """
    rows = list(rows)
    front = []
    for r in rows:
        dominated = any(
            (o.precision >= r.precision and o.recall >= r.recall) and (o.precision > r.precision or o.recall > r.recall)
            for o in rows
        )
        if not dominated:
            front.append(r)
    return sorted(front, key=lambda r: (r.recall, -r.precision))


def best_rows(rows: Iterable[SweepRow], order: Sequence[MatcherConfig] | None = None) -> dict[str, SweepRow]:
    """The rows with the best ``precision``, ``recall``, ``f1`` and the lowest ``ser``.

    Ties go to the better F1, then the lower SER, then the configuration first in
    ``order`` (default: the grid order of the rows given). ConfigError when ``rows`` is empty.
    """
    rows = list(rows)
    if not rows:
        raise ConfigError("no results to select from")
    rank = {c: i for i, c in enumerate(order if order is not None else [r.config for r in rows])}

    def pick(key: str, sign: float) -> SweepRow:
        return min(rows, key=lambda r: (-sign * getattr(r, key), -r.f1, r.ser, rank.get(r.config, len(rank))))

    return {"precision": pick("precision", 1), "recall": pick("recall", 1), "f1": pick("f1", 1), "ser": pick("ser", -1)}
