"""The embedded ``StatusStore``: the document statuses in one SQLite file (stdlib ``sqlite3``)."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from dataclasses import astuple, fields, replace
from pathlib import Path
from typing import Any

from lcabot.models import DocumentStatus

_COLUMNS = tuple(f.name for f in fields(DocumentStatus))
# one row per key: DocumentStatus's fields as columns, pages_without_text as a JSON array
_SCHEMA = """
CREATE TABLE IF NOT EXISTS status (
    source_key TEXT PRIMARY KEY, status TEXT NOT NULL, message TEXT NOT NULL, doc_id TEXT, title TEXT,
    perspective TEXT, n_pages INTEGER NOT NULL, n_chunks INTEGER NOT NULL, pages_without_text TEXT NOT NULL,
    reason TEXT, etag TEXT, updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS status_doc_id ON status (doc_id);
"""
_UPSERT = f"INSERT OR REPLACE INTO status ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})"
TIMEOUT_S = 30.0  # another process's write holds the file at most this long


class SqliteStatusStore:
    """``StatusStore`` over the ``status`` table of the SQLite file ``path`` (made, with its folder, on the first
    write; reading a file never made finds nothing and makes nothing). One connection per call: safe from several
    threads (the ingest deadline watch writes from a timer thread) and processes.

    Raises:
        sqlite3.Error: the file cannot be opened, read or written (not a database, no permission, locked for longer
            than :data:`TIMEOUT_S`).
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def put(self, status: DocumentStatus) -> None:
        with closing(self._connect(create=True)) as db, db:
            db.execute(_UPSERT, _row(status))

    def put_if_unchanged(self, status: DocumentStatus, since: DocumentStatus) -> bool:
        """Write ``status`` only if the key's status is still ``since`` (same status, message, ETag and time): a
        status written meanwhile (the outcome) is never overwritten. ``False`` when it was not written."""
        if not self.path.exists():
            return False
        assignments = ", ".join(f"{name} = ?" for name in _COLUMNS)
        with closing(self._connect()) as db, db:
            cursor = db.execute(
                f"UPDATE status SET {assignments} WHERE source_key = ? AND status = ? AND message = ? AND etag IS ? "
                "AND updated_at = ?",
                (*_row(status), status.source_key, since.status, since.message, since.etag, since.updated_at))
            return cursor.rowcount == 1

    def get(self, source_key: str) -> DocumentStatus | None:
        if not self.path.exists():
            return None
        with closing(self._connect()) as db:
            row = db.execute(f"SELECT {', '.join(_COLUMNS)} FROM status WHERE source_key = ?", (source_key,)).fetchone()
        return None if row is None else _status(row)

    def with_doc_id(self, doc_id: str) -> list[DocumentStatus]:
        """Every key whose last status names ``doc_id``, sorted by key."""
        if not self.path.exists():
            return []
        with closing(self._connect()) as db:
            rows = db.execute(f"SELECT {', '.join(_COLUMNS)} FROM status WHERE doc_id = ? ORDER BY source_key",
                              (doc_id,)).fetchall()
        return [_status(row) for row in rows]

    def _connect(self, *, create: bool = False) -> sqlite3.Connection:
        if create:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=TIMEOUT_S)
        if create:
            db.executescript(_SCHEMA)
        return db


def _row(status: DocumentStatus) -> tuple[Any, ...]:
    return astuple(replace(status, pages_without_text=json.dumps(list(status.pages_without_text))))  # type: ignore[arg-type]


def _status(row: tuple[Any, ...]) -> DocumentStatus:
    values = dict(zip(_COLUMNS, row, strict=True))
    values["pages_without_text"] = tuple(json.loads(values["pages_without_text"] or "[]"))
    return DocumentStatus(**values)
