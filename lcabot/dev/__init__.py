"""The serverless stack on this machine (moto): the only part of ``lcabot`` that imports ``lambdas``, ``bot_handlers``
and moto."""
