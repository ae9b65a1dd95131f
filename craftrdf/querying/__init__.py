"""Reading a store: the query library (``querying/queries/*.rq``), annotation sets, Web Annotation, view indexes."""
