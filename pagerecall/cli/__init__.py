"""The ``pagerecall`` command line: the only code that touches argv, stdout and exit codes.

=======================  ======================================================================
``commands``             :func:`main`: parse, run, exit code; build/update/rebuild/rollback
``parser``               every command, its arguments and its help
``running``              settings from flags, logging, errors as exit codes, the read commands
``output``               printers (human and ``--json``), the per-thread console
``progress``             progress bars on stderr
``serve``                ``pagerecall serve``: resident server control; MCP through a launcher
``forwarded``            a command line forwarded to the resident server, answered there
``ledger``               ``pagerecall ledger ...``
=======================  ======================================================================

Exit codes: 0 success; 1 an error pagerecall could name; 2 a usage mistake (among them a file, page
or search hit named that does not exist: ``pagerecall.errors.SourceArgumentError``, for every
command); 3 ``verify`` found the quote on another page than cited; 4 only a similar passage; 5
only in hidden text; 141 the reader of stdout went away.
The CLI imports neither the MCP server nor the web page: :mod:`pagerecall.app` hands it launchers.
"""
