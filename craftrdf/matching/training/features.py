"""Features of every (candidate, class) option: what the learned decision (:mod:`.learn`) sees.

One row per class a candidate may take (:class:`~.select.FoldView`'s allowed classes: the
ontology's, and gold names written outside the documents left out). Every count comes
from the training documents *not* left out, so a row of a document never carries what
that document taught. The columns (:data:`FEATURES`):

- the term's record: its key's finds and true positives, its written form's, and the key's
  with the word before it and with the word after it (:func:`~.engine.context_terms`),
  each as a smoothed precision and a count; today's estimate (:class:`~.engine.Decision`);
- the ontology's evidence: whether the class has the name in the ontology, in how many
  training documents annotators wrote it;
- the candidate itself: tokens, characters, capitals, digits, a symbol, pieces, how many
  classes compete for it and this class's rank among them;
- its neighbours: the best estimate of a longer candidate covering it, of one it covers,
  of one it overlaps; how often the document has the key, how many other candidates of
  the document have the class with an estimate of at least one half;
- abbreviations (Schwartz & Hearst 2003, :mod:`.abbreviations`): whether it is a short form
  the document defines, or ends where a defined long form ends; whether it stands alone in
  parentheses;
- its passage (:mod:`.window`): the mean lift of the tokens within ``span`` tokens of it, the
  sum of their negative lifts and of their positive ones; the same three over the name's own
  lifts of the passage's distinct tokens (all 0 when ``span`` is 0: no window);
- its discourse: those six averaged over every find of the same name (key, class) in the
  document, itself included. A word keeps one sense through a document (Gale, Church &
  Yarowsky 1992, "One sense per discourse"), so a name whose passages say "retina" in most
  of a document's places is read so in the places whose own passage says nothing.
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ...core.bulk import no_cycle_collection
from ..matcher.annotate import MatchingSession
from ..matcher.config import TextNormalization
from .engine import Candidate, Term, context_terms, surface_term
from .family import is_family
from .select import Prepared
from .window import DocumentWindows, NameLifts, Windows, lifts, window_features

FEATURES = (
    "estimate",
    "key_precision",
    "key_finds",
    "key_hits",
    "form_precision",
    "form_finds",
    "before_precision",
    "before_finds",
    "after_precision",
    "after_finds",
    "unseen",
    "ontology_name",
    "gold_name_documents",
    "classes",
    "rank",
    "margin",
    "tokens",
    "characters",
    "all_capitals",
    "first_capital",
    "digit",
    "symbol",
    "pieces",
    "covered_by",
    "covers",
    "overlaps",
    "key_in_document",
    "class_in_document",
    "short_form",
    "long_form_end",
    "in_parentheses",
    "family",
    "window_mean",
    "window_against",
    "window_for",
    "name_window_mean",
    "name_window_against",
    "name_window_for",
    "discourse_window_mean",
    "discourse_window_against",
    "discourse_window_for",
    "discourse_name_window_mean",
    "discourse_name_window_against",
    "discourse_name_window_for",
)
#: The passage's columns, averaged over the document's finds of one name (:func:`_discourse`).
_PASSAGE = slice(FEATURES.index("window_mean"), FEATURES.index("name_window_for") + 1)


@dataclass(frozen=True, slots=True)
class Window:
    """What of a find's passage the learned decision reads.

    ``span`` tokens each side (0: no passage), whether each name's own lifts of them
    (``names``), and whether the passage's columns averaged over the document's finds of
    the name (``discourse``). The columns a window does not read are left out of the fit
    (:meth:`unread`): rows made with a wider window serve a narrower one.
    """

    span: int = 0
    names: bool = False
    discourse: bool = False

    @property
    def label(self) -> str:
        """``0``, ``25``, ``25+names``, ``25+discourse``, ``25+names+discourse``: as model.json and reports name it."""
        parts = [str(self.span), *(["names"] if self.names else []), *(["discourse"] if self.discourse else [])]
        return "+".join(parts)

    def unread(self) -> tuple[int, ...]:
        """The indices of the :data:`FEATURES` this window does not read."""
        read = set(FEATURES[_PASSAGE][:3] if self.span else ())  # the set-wide passage
        if self.span and self.names:
            read |= set(FEATURES[_PASSAGE][3:])
        if self.discourse:
            read |= {f"discourse_{f}" for f in read}
        return tuple(i for i in range(_PASSAGE.start, len(FEATURES)) if FEATURES[i] not in read)

    def windows(self, session: MatchingSession, normalization: TextNormalization) -> Windows | None:
        """The token windows rows reading this window are made with (None: no passage)."""
        return Windows(session, normalization, self.span, names=self.names) if self.span else None


#: The window of a decision that reads no passage.
NO_WINDOW = Window()

_ZERO = (0, 0)
_NO_PASSAGE = (0.0, 0.0, 0.0)


@dataclass(frozen=True, slots=True, eq=False)
class Rows:
    """Options of some documents: each row's candidate and class, its features, its document."""

    candidates: tuple[Candidate, ...]
    classes: tuple[str, ...]
    x: npt.NDArray[np.float64]

    def __len__(self) -> int:
        return len(self.classes)


def _p(tp: int, n: int, prior: float) -> float:
    return (tp + prior) / (n + 1)


def _backoff(tp: int, n: int, estimate: float) -> float:
    return (tp + 2.0 * estimate) / (n + 2.0)


@no_cycle_collection()  # a row list per option, the leave-out counts: many small objects, no cycles
def option_rows(
    prepared: Prepared,
    counts: Mapping[str, Mapping[tuple[Term, bool], int]],
    totals: Mapping[Term, Sequence[int]],
    documents: Sequence[str],
    leave_out: frozenset[str],
    *,
    families: bool = True,
    windows: Windows | None = None,
) -> Rows:
    """The rows of ``documents`` with counts ``totals`` less those of the ``leave_out`` documents.

    ``totals`` maps a term to its ``[true positives, finds]`` over every training document
    (contexts counted, :func:`.learn.context_counts`); ``counts`` gives each document's own.
    ``families``: whether word-family candidates (:mod:`.family`) get rows; ``windows``: the
    windows whose tokens' terms (:mod:`.window`, counted in ``totals``) the rows read (None: 0s).
    """
    own: dict[Term, list[int]] = {}
    for d in leave_out:
        for (term, hit), k in counts.get(d, {}).items():
            c = own.setdefault(term, [0, 0])
            if hit:
                c[0] += k
            c[1] += k

    def stats(term: Term) -> tuple[int, int]:
        t = totals.get(term, _ZERO)
        o = own.get(term, _ZERO) if own else _ZERO
        return t[0] - o[0], t[1] - o[1]

    cands: list[Candidate] = []
    classes: list[str] = []
    rows: list[list[float]] = []
    lift = None
    if windows is not None:
        for doc in documents:  # every window first: the vocabulary the lifts are over is complete
            windows.of(doc, prepared.candidates[doc])
        lift = lifts(windows.tokens(), stats)
    vocabulary = windows.tokens() if windows is not None and windows.names else None
    named = NameLifts(stats)
    for doc in sorted(documents):
        passages = None
        if windows is not None and lift is not None:
            found = windows.of(doc, prepared.candidates[doc])
            near = window_features(found, lift)
            passages = {
                id(c): (near[i], _words(found, i, vocabulary) if vocabulary is not None else None)
                for i, c in enumerate(prepared.candidates[doc])
            }
        _document_rows(prepared, doc, stats, leave_out, (families, passages, named), cands, classes, rows)
    x = np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FEATURES))
    return Rows(tuple(cands), tuple(classes), x)


def _words(found: DocumentWindows, i: int, vocabulary: Sequence[str]) -> Callable[[], list[str]]:
    """Window ``i``'s distinct tokens, listed when first asked for (most finds' names have no lifts to read)."""
    return functools.cache(lambda: [vocabulary[t] for t in found.distinct(i)])


def _document_rows(
    prepared: Prepared,
    doc: str,
    stats: Callable[[Term], tuple[int, int]],
    leave_out: frozenset[str],
    reads: tuple[bool, Mapping[int, tuple[npt.NDArray[np.float64], Callable[[], list[str]] | None]] | None, NameLifts],
    cands: list[Candidate],
    classes: list[str],
    rows: list[list[float]],
) -> None:
    text = prepared.session.texts[doc]
    onto, name_docs = prepared.ontology, prepared.names.documents
    families, passages, named = reads
    options = _records(prepared.candidates[doc], stats, onto, name_docs, leave_out, families)
    if not options:
        return
    best = [max(f[0] for _, f in opts) for _, opts in options]
    starts = [c.start for c, _ in options]
    key_count: dict[tuple[str, ...], int] = {}
    class_count: dict[str, int] = {}
    for (c, opts), b in zip(options, best):
        key_count[c.key] = key_count.get(c.key, 0) + 1
        for cls, f in opts:
            if f[0] >= 0.5 and f[0] == b:
                class_count[cls] = class_count.get(cls, 0) + 1
    first = len(rows)
    short = {(s, e) for sf in prepared.short_forms(doc) for s, e in sf.occurrences}
    long_ends = {sf.long_end for sf in prepared.short_forms(doc)}
    for i, (c, opts) in enumerate(options):
        s, e = c.start, c.end
        covered_by, covers, overlaps = _neighbours(options, starts, best, i)
        surface = text[s:e]
        ests = sorted((f[0] for _, f in opts), reverse=True)
        shared = [
            float(len(c.key)),
            float(e - s),
            float(len(surface) > 1 and surface.isupper()),
            float(surface[:1].isupper()),
            float(any(ch.isdigit() for ch in surface)),
            float(not any(ch.isalnum() for ch in surface)),
            float(len(c.spans)),
            covered_by,
            covers,
            overlaps,
            math.log1p(key_count[c.key] - 1),
        ]
        near, words = passages[id(c)] if passages is not None else (_NO_PASSAGE, None)
        parens = float(s > 0 and text[s - 1] == "(" and text[e : e + 1] == ")")
        for cls, f in opts:
            rank = sum(1 for v in ests if v > f[0])
            margin = f[0] - (ests[1] if f[0] == ests[0] and len(ests) > 1 else ests[0])
            own_class = class_count.get(cls, 0) - (1 if f[0] >= 0.5 and f[0] == best[i] else 0)
            cands.append(c)
            classes.append(cls)
            rows.append(
                [
                    *f,
                    float(len(opts)),
                    float(rank),
                    margin,
                    *shared,
                    math.log1p(max(own_class, 0)),
                    float((s, e) in short),
                    float(e in long_ends),
                    parens,
                    float(is_family(c.key)),
                    *near,
                    *(named.features(words, (c.key, cls)) if words is not None else _NO_PASSAGE),
                ]
            )
    _discourse(cands, classes, rows, first)


def _discourse(cands: Sequence[Candidate], classes: Sequence[str], rows: list[list[float]], first: int) -> None:
    """Append to each row from ``first`` on (one document's) its name's mean passage columns over those rows."""
    by_name: dict[Term, list[int]] = {}
    for i in range(first, len(rows)):
        by_name.setdefault((cands[i].key, classes[i]), []).append(i)
    for members in by_name.values():
        mean = np.asarray([rows[i][_PASSAGE] for i in members]).mean(axis=0).tolist()
        for i in members:
            rows[i].extend(mean)


Options = list[tuple[Candidate, list[tuple[str, list[float]]]]]


def _neighbours(options: Options, starts: Sequence[int], best: Sequence[float], i: int) -> tuple[float, float, float]:
    """The best estimate of a candidate covering option ``i``'s candidate, of one it covers, of one it overlaps."""
    s, e = options[i][0].start, options[i][0].end
    covered_by = covers = overlaps = 0.0
    for k in range(bisect.bisect_left(starts, s - 200), bisect.bisect_left(starts, e)):
        if k == i:
            continue
        o = options[k][0]
        if o.end <= s:
            continue
        if o.start <= s and o.end >= e:
            covered_by = max(covered_by, best[k])
        elif o.start >= s and o.end <= e:
            covers = max(covers, best[k])
        else:
            overlaps = max(overlaps, best[k])
    return covered_by, covers, overlaps


def _records(
    candidates: Sequence[Candidate],
    stats: Callable[[Term], tuple[int, int]],
    onto: Mapping[tuple[str, ...], frozenset[str]],
    name_docs: Mapping[Term, frozenset[str]],
    leave_out: frozenset[str],
    families: bool,
) -> Options:
    """Each candidate's allowed classes, with the features of their records (the first 13 columns)."""
    options: Options = []
    for c in candidates:
        if not families and is_family(c.key):
            continue
        on = onto.get(c.key, ())
        opts = []
        for cls in sorted(c.classes):  # not the frozenset's hash order: the fitted model must not vary by process
            in_onto = cls in on
            docs = name_docs.get((c.key, cls))
            name_n = len(docs - leave_out) if docs is not None else 0
            if not in_onto and name_n == 0:
                continue
            tp, n = stats((c.key, cls))
            stp, sn = stats(surface_term(c.surface, cls))
            before, after = context_terms(c, cls)
            btp, bn = stats(before)
            atp, an = stats(after)
            key_p = _p(tp, n, 0.5)
            est = _backoff(stp, sn, key_p)
            opts.append(
                (
                    cls,
                    [
                        est,
                        key_p,
                        math.log1p(n),
                        math.log1p(tp),
                        _p(stp, sn, 0.5),
                        math.log1p(sn),
                        _backoff(btp, bn, est),
                        math.log1p(bn),
                        _backoff(atp, an, est),
                        math.log1p(an),
                        float(n == 0),
                        float(in_onto),
                        math.log1p(name_n),
                    ],
                )
            )
        if opts:
            options.append((c, opts))
    return options
