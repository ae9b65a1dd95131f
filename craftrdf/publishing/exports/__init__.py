"""Publishing a store's annotation sets: exports to RDF, Web Annotation JSON-LD, PubAnnotation, BioNLP.

>>> from craftrdf.publishing.exports._base import ExportFormat
>>> [f.value for f in ExportFormat]
['turtle', 'trig', 'nquads', 'jsonld', 'pubannotation', 'bionlp']

From a store::

    from craftrdf.publishing.exports.sets import export_set
    with AnnotationStore.open("craft.store", mode="read") as store:
        report = export_set(store, "UBERON_EXT", "out/", format="bionlp")

See ``docs/exports.md`` for each format and how discontinuous annotations are written.
"""
