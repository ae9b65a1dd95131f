"""A trained model as a folder of plain files a person can read, and reading it back strictly.

::

    MODEL/
      model.json   format and version, set, ontology, configuration, decision, rules, the training
                   documents' ids and splits, the cross-validated scores, each file's SHA-256
      names.tsv    gold names: normalized tokens, class, annotations, documents, forms as written
      terms.tsv    every term found in training: normalized tokens, class, true positives, finds,
                   precision estimate, kept (yes/no)
      forms.tsv    the same counts per written form (lower-cased) and class
      contexts.tsv the same counts per key with the word before it (side <) or after it (side >),
                   per token near a find of any class (side @, class *: :mod:`.window`) and near
                   a find of one name (side @, its class and tokens), read by the learned
                   decision (model.json ``learned``; header only without it)

A folder of another format version, of another set, a file changed since it was written
(its digest differs) or a line that cannot be read raises :class:`~craftrdf.core.errors.InputError`
or :class:`~craftrdf.core.errors.ConfigError` naming the file and line; nothing is half-read.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.bulk import no_cycle_collection
from ...core.errors import ConfigError, InputError
from ..matcher.config import MatcherConfig
from .engine import AFTER, BEFORE, SURFACE, Decision, Key, Term, surface_term
from .rules import Rules
from .window import WINDOW

if TYPE_CHECKING:
    from .learn import Learned

FORMAT = "craftrdf-trained-matcher"
#: Bumped when the files' layout or meaning changes; a model of another version is refused.
#: Version 2: contexts.tsv and the learned decision (model.json ``learned``), confidences.
VERSION = 2
NAMES = "names.tsv"
TERMS = "terms.tsv"
FORMS = "forms.tsv"
CONTEXTS = "contexts.tsv"
NAMES_HEADER = ("tokens", "class", "annotations", "documents", "written")
TERMS_HEADER = ("tokens", "class", "true_positives", "finds", "estimate", "kept")
FORMS_HEADER = ("form", "class", "true_positives", "finds")
CONTEXTS_HEADER = ("side", "class", "word", "tokens", "true_positives", "finds")


@dataclass(frozen=True, slots=True)
class NameRow:
    """One gold name: its term, how many gold annotations wrote it, in how many documents, the forms."""

    term: Term
    annotations: int
    documents: int
    written: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True, order=True)
class TermRow:
    """One term's counts in training: exact true positives and finds."""

    term: Term
    tp: int
    n: int


@dataclass(frozen=True, slots=True)
class Model:
    """A trained model: ``meta`` is model.json as read; the tables as records."""

    meta: Mapping[str, Any]
    names: tuple[NameRow, ...]
    terms: tuple[TermRow, ...]

    @property
    def set_key(self) -> str:
        """The set it was trained for."""
        return str(self.meta["set"])

    @property
    def config(self) -> MatcherConfig:
        """The matcher configuration selected."""
        return MatcherConfig.from_params(self.meta["configuration"])

    @property
    def decision(self) -> Decision:
        """The decision selected."""
        d = self.meta["decision"]
        return Decision(float(d["threshold"]), float(d["prior"]), float(d["weight"]), float(d["backoff"]))

    @property
    def rules(self) -> Rules:
        """The rules selected."""
        return Rules.from_json(self.meta["rules"])

    @property
    def learned(self) -> Learned | None:
        """The learned decision, when the cross-validation chose it over the threshold decision."""
        entry = self.meta.get("learned")
        if not entry or not entry.get("chosen"):
            return None
        # deferred: learn loads numpy and the selection machinery (importing this module: 300 ms, with it 480)
        from .learn import Learned

        return Learned.from_json(entry)

    @property
    def documents(self) -> tuple[str, ...]:
        """The ids of the documents it was trained on."""
        return tuple(self.meta["trained_on"]["documents"])


def _tsv(rows: Sequence[Sequence[object]], header: Sequence[str]) -> str:
    lines = ["\t".join(header)]
    lines += ["\t".join(str(v) for v in row) for row in rows]
    return "\n".join(lines) + "\n"


def _tokens(key: Key) -> str:
    return " ".join(key)


def write_model(
    out: Path, meta: Mapping[str, Any], names: Sequence[NameRow], terms: Sequence[TermRow], decision: Decision
) -> Path:
    """Write the folder atomically: into a temporary sibling, then renamed over ``out``.

    ``out`` may not exist, or be a model folder (replaced); anything else is refused
    before anything is written.
    """
    if out.exists() and not (out.is_dir() and (not any(out.iterdir()) or (out / "model.json").is_file())):
        raise ConfigError(f"{out} exists and is not a model folder: give a new folder for the model")
    name_rows = [
        (_tokens(r.term[0]), r.term[1], r.annotations, r.documents, "; ".join(f"{w}:{n}" for w, n in r.written))
        for r in names
    ]
    term_rows = []
    form_rows = []
    context_rows = []
    for r in terms:
        if r.term[0][:1] in ((BEFORE,), (AFTER,), (WINDOW,)):
            context_rows.append((r.term[0][0], r.term[1], r.term[0][1], _tokens(r.term[0][2:]), r.tp, r.n))
            continue
        if r.term[0][:1] == (SURFACE,):
            form_rows.append((r.term[0][1], r.term[1], r.tp, r.n))
            continue
        p = decision.estimate(r.tp, r.n)
        term_rows.append(
            (_tokens(r.term[0]), r.term[1], r.tp, r.n, f"{p:.4f}", "yes" if p >= decision.threshold else "no")
        )
    files = {
        NAMES: _tsv(name_rows, NAMES_HEADER),
        TERMS: _tsv(term_rows, TERMS_HEADER),
        FORMS: _tsv(form_rows, FORMS_HEADER),
        CONTEXTS: _tsv(context_rows, CONTEXTS_HEADER),
    }
    full = dict(meta)
    full["files"] = {k: hashlib.sha256(v.encode("utf-8")).hexdigest() for k, v in files.items()}
    files["model.json"] = json.dumps(full, indent=2, ensure_ascii=False) + "\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}-"))
    try:
        for k, v in files.items():
            (tmp / k).write_text(v, encoding="utf-8")
        if out.exists():
            old = out.with_name(f".{out.name}-old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(out, old)
            os.replace(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def _read_meta(folder: Path) -> dict[str, Any]:
    path = folder / "model.json"
    if not folder.is_dir():
        raise InputError("no such model folder", source=str(folder))
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("not a model folder (no model.json)", source=str(folder)) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"unreadable: {exc}", source=str(path)) from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise InputError(f"not a {FORMAT} model", source=str(path))
    if meta.get("version") != VERSION:
        raise InputError(
            f"model format version {meta.get('version')!r}; this craftrdf reads version {VERSION}: train it again",
            source=str(path),
        )
    for field in ("set", "configuration", "decision", "rules", "trained_on", "files"):
        if field not in meta:
            raise InputError(f"lacks {field!r}", source=str(path))
    if not isinstance(meta["files"], dict):
        raise InputError("'files' must map each table to its SHA-256", source=str(path))
    return meta


def _lines(folder: Path, name: str, digest: str, header: Sequence[str]) -> list[tuple[int, list[str]]]:
    path = folder / name
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", source=str(path)) from None
    if hashlib.sha256(data).hexdigest() != digest:
        raise InputError(
            "changed since the model was written (SHA-256 differs from model.json): train again", source=str(path)
        )
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 (byte {exc.start})", source=str(path)) from None
    if not lines or tuple(lines[0].split("\t")) != tuple(header):
        raise InputError(f"header must be {' | '.join(header)}", source=str(path), line=1)
    out = []
    for i, line in enumerate(lines[1:], start=2):
        cells = line.split("\t")
        if len(cells) != len(header) or not cells[0] or not cells[1]:
            raise InputError(f"expected {len(header)} tab-separated cells", source=str(path), line=i)
        out.append((i, cells))
    return out


def _int(cell: str, path: Path, line: int) -> int:
    try:
        v = int(cell)
    except ValueError:
        raise InputError(f"not a count: {cell!r}", source=str(path), line=line) from None
    if v < 0:
        raise InputError(f"negative count: {cell!r}", source=str(path), line=line)
    return v


@no_cycle_collection()  # hundreds of thousands of rows, no cycles (core.bulk)
def read_model(folder: Path, *, set_key: str | None = None) -> Model:
    """Read and check a model folder; ``set_key``: the set it must have been trained for."""
    meta = _read_meta(folder)
    if set_key is not None and str(meta["set"]).casefold() != set_key.casefold():
        raise ConfigError(f"model {folder} was trained for set {meta['set']}, not {set_key}: train one for {set_key}")
    files = meta["files"]
    # each path made once: a model's tables have hundreds of thousands of lines
    names_path, terms_path, forms_path, contexts_path = (folder / n for n in (NAMES, TERMS, FORMS, CONTEXTS))
    names = []
    for i, cells in _lines(folder, NAMES, str(files.get(NAMES)), NAMES_HEADER):
        written = []
        for part in filter(None, cells[4].split("; ")):
            form, _, count = part.rpartition(":")
            written.append((form, _int(count, names_path, i)))
        term = (tuple(cells[0].split(" ")), cells[1])
        names.append(NameRow(term, _int(cells[2], names_path, i), _int(cells[3], names_path, i), tuple(written)))
    terms = []
    for i, cells in _lines(folder, TERMS, str(files.get(TERMS)), TERMS_HEADER):
        tp, n = _int(cells[2], terms_path, i), _int(cells[3], terms_path, i)
        if tp > n:
            raise InputError("more true positives than finds", source=str(terms_path), line=i)
        terms.append(TermRow((tuple(cells[0].split(" ")), cells[1]), tp, n))
    for i, cells in _lines(folder, FORMS, str(files.get(FORMS)), FORMS_HEADER):
        tp, n = _int(cells[2], forms_path, i), _int(cells[3], forms_path, i)
        if tp > n:
            raise InputError("more true positives than finds", source=str(forms_path), line=i)
        terms.append(TermRow(surface_term(cells[0], cells[1]), tp, n))
    for i, cells in _lines(folder, CONTEXTS, str(files.get(CONTEXTS)), CONTEXTS_HEADER):
        tp, n = _int(cells[4], contexts_path, i), _int(cells[5], contexts_path, i)
        if tp > n or cells[0] not in (BEFORE, AFTER, WINDOW):
            raise InputError("side must be <, > or @, true positives at most finds", source=str(contexts_path), line=i)
        tokens = cells[3].split(" ") if cells[3] else ()  # a window term has none
        terms.append(TermRow(((cells[0], cells[2], *tokens), cells[1]), tp, n))
    try:
        model = Model(meta, tuple(names), tuple(terms))
        model.config, model.decision, model.rules, model.learned  # noqa: B018 - validated here, once
    except (ConfigError, KeyError, TypeError, ValueError) as exc:
        raise InputError(
            f"bad configuration, decision, rules or learned decision: {exc}",
            source=str(folder / "model.json"),
        ) from None
    return model
