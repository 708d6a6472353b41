"""Cloud adapters of the ports (OpenSearch, …), imported only lazily by :mod:`lcabot.wiring`."""
