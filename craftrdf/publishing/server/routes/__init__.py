"""The server's routes, one module per resource: the SPARQL protocol, linked data, dumps and VoID, the viewer.

Each module's ``routes(ctx)`` gives its Starlette routes over one
:class:`~craftrdf.publishing.server.context.AppContext`;
:func:`craftrdf.publishing.server.app.create_app` puts them together.
"""
