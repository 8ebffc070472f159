"""The resident server: a warm ``Searcher`` that answers the CLI's read commands on a Unix socket.

=======================  ======================================================================
``server``               :class:`ResidentServer` and the detached start (``serve --background``)
``launch``               ``serve --resident`` / ``--background``, and the listener beside the
                         MCP server (started by :mod:`pagerecall.app`)
=======================  ======================================================================

An interface like the CLI, the MCP server and the web page: it answers the read commands of
:mod:`pagerecall.search.commands`; its protocol and client are :mod:`pagerecall.wire`.

The server knows no interface: whoever starts it (the CLI's ``serve --resident``, the MCP server)
hands it the function that answers a forwarded command line. Nothing is imported here.
"""
