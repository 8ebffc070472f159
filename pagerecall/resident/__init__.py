"""The resident server: a warm ``Searcher`` that answers the CLI's read commands on a Unix socket.

=======================  ======================================================================
``protocol``             the socket's place, its messages, the settings an answer depends on
                         (standard library only)
``client``               the console script's first step (forward a command line) and the
                         requests of the in-process CLI (standard library only)
``commands``             the read commands on a ``Searcher``, as the dicts the CLI prints
``server``               :class:`ResidentServer` and the detached start (``serve --background``)
=======================  ======================================================================

The server knows no interface: whoever starts it (the CLI's ``serve --resident``, the MCP server)
hands it the function that answers a forwarded command line. Nothing is imported here, so the
console script's fast path (:mod:`pagerecall.wire.client`) stays at ``os``, ``sys``, ``json``
and ``socket``.
"""
