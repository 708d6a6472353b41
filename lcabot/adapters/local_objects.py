"""The embedded ``ObjectStore``: a local folder standing in for an S3 bucket."""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from pathlib import Path

from lcabot.errors import ObjectNotFoundError
from lcabot.ports import ObjectInfo

TMP_PREFIX = ".tmp-"  # a write in progress: written under this name, then renamed over the object
STALE_TMP_S = 3600  # no write takes an hour: an older temporary file is what a killed process left


class LocalObjectStore:
    """Objects as files under ``root``; ``key`` ``a/b.json`` is ``root/a/b.json``. Writes are atomic (rename).

    Raises:
        ValueError: a key that is empty, absolute, or climbs out of ``root`` (``..``).
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._sweep()

    def _sweep(self) -> None:
        """Remove temporary files older than :data:`STALE_TMP_S`: a write interrupted by a kill (no ``finally``
        runs) leaves one; a younger one may be another process's write in progress."""
        if not self.root.is_dir():
            return
        cutoff = time.time() - STALE_TMP_S
        for path in self.root.rglob(f"{TMP_PREFIX}*"):
            try:
                if path.is_file() and path.stat().st_mtime < cutoff:
                    path.unlink()
            except OSError:  # gone already, or not ours to remove: the next sweep tries again
                continue

    def _path(self, key: str) -> Path:
        parts = key.split("/")
        if not key or key.startswith("/") or any(p in ("", ".", "..") for p in parts):
            raise ValueError(f"invalid object key {key!r}")
        return self.root.joinpath(*parts)

    def get(self, key: str) -> bytes:
        try:
            return self._path(key).read_bytes()
        except (FileNotFoundError, IsADirectoryError):
            raise ObjectNotFoundError(f"no object {key!r} in {self.root}") from None

    def put(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=TMP_PREFIX)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)

    def head(self, key: str) -> ObjectInfo | None:
        path = self._path(key)
        if not path.is_file():
            return None
        data = path.read_bytes()
        return ObjectInfo(key, len(data), hashlib.md5(data, usedforsecurity=False).hexdigest())

    def keys(self, prefix: str = "") -> list[str]:
        if not self.root.is_dir():
            return []
        found = (p.relative_to(self.root).as_posix() for p in self.root.rglob("*") if p.is_file())
        return sorted(k for k in found if k.startswith(prefix) and not k.rsplit("/", 1)[-1].startswith(TMP_PREFIX))
