"""Publishing a store over HTTP: the SPARQL 1.1 endpoint, linked data, dumps and the article viewer.

Needs the ``craftrdf[server]`` extra (Starlette and uvicorn). The parts: :mod:`.app` (the Starlette app and
:func:`serve`), :mod:`.config` (:class:`ServerConfig`), :mod:`.guard` (what a request may contain, checked
before the engine parses it), :mod:`.protocol` (SPARQL 1.1 Protocol requests and content negotiation),
:mod:`.workers` (the pool of query processes), :mod:`.pooled` (:class:`PooledStore`, the viewer's store over
the pool), :mod:`.jobs` (what a worker runs), :mod:`.sandbox` (the workers' seccomp network filter),
:mod:`.transport` (uvicorn's h11 protocol with a header deadline and a half-open cap, and the access log),
:mod:`.linked` (dereferenceable IRIs, VoID, dumps), :mod:`.pages` (the index and the query page),
:mod:`.viewer`, :mod:`.viewer_data`, :mod:`.viewer_classes` and :mod:`.viewer_placements` (the article
viewer). docs/server.md describes the routes, the limits and the security model.
"""
