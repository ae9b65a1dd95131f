"""A trained model's annotations written into the store as a run's set graph (``annotate --model --into-store``).

The graph is what a plain matcher run writes (:func:`~craftrdf.matcher.run.run_nquads`: the set's
description, the configuration as parameters, the annotations), each annotation with its
confidence (``craft:confidence``, :mod:`craftrdf.webanno`). The batch digest covers the model's
tables (their SHA-256 in model.json), so another model's run is never taken for this one's.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

from ...core.curie import CurieMap
from ...core.iris import mapping_graph, set_iri
from ...core.model import Annotation
from ...querying.indexes import Progress, write_set_batch
from ...querying.sets import SetRef
from ...store.local import WritableStore
from ..matcher.run import run_nquads
from .folder import Model


def write_model_run(
    store: WritableStore,
    name: str,
    ref: SetRef,
    model: Model,
    annotations: Mapping[str, list[Annotation]],
    texts: Mapping[str, str],
    curies: CurieMap,
    progress: Progress | None = None,
) -> tuple[str, int]:
    """Write set graph ``name`` (checked by the caller) with the model's annotations; (graph IRI, quads written)."""
    mgraph = mapping_graph(ref.key)
    h = hashlib.sha256(json.dumps([name, ref.key, model.meta["files"], ref.ontology], sort_keys=True).encode())
    for doc in sorted(texts):
        h.update(doc.encode() + b"\0" + hashlib.sha256(texts[doc].encode("utf-8")).digest())
    anns = [a for d in sorted(annotations) for a in annotations[d]]
    lines = run_nquads(
        name,
        config=model.config,
        dictionary=ref,
        mappings=mgraph if mgraph in store.batches() else None,
        annotations=anns,
        curies=curies,
    )
    return set_iri(name), write_set_batch(
        store, name, lines, anns, digest=h.hexdigest(), curies=curies, progress=progress
    )
