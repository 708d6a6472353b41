"""Answer generators behind the :class:`lcabot.ports.Generator` protocol: Claude, and the offline extractive one."""
