"""lcabot: a grounded Life Cycle Assessment assistant.

The core package. It imports no cloud or chat SDK at module level; implementations of the ports are chosen in
:mod:`lcabot.wiring`.
"""

__version__ = "0.1.0"
