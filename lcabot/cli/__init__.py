"""The ``lcabot`` command and its subcommands (ingest, ask, chat, sources, remove, eval, graph, report, dev)."""
