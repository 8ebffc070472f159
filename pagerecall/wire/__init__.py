"""The resident server's wire: where its socket is, what a message looks like (``protocol``), and
the client side (``client``: the console script's forwarding of a command line, the CLI's parsed
requests, ``ping`` and ``stop``). Standard library only, and nothing imported here, so that the
console script's fast path stays at ``os``, ``sys``, ``json`` and ``socket``.

Below the interfaces: the console script (:mod:`pagerecall.app`), the CLI and the resident server
(:mod:`pagerecall.resident`) all use it; the server itself is an interface like the CLI, the MCP
server and the web page, and imports none of them.
"""
