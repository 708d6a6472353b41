"""The embedded ``SearchIndex``: one SQLite file with FTS5 (BM25) and float32 vectors (exact cosine in numpy)."""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lcabot import messages
from lcabot.errors import ConfigurationError, IndexWriteError, LibraryBusyError
from lcabot.models import Chunk, DocumentRecord, PageSpan, same_section

BUSY_TIMEOUT_S = 5.0  # how long a write waits for another process's write lock (an ingest) before giving up
_TABLES = {"meta", "documents", "chunks", "pages", "chunks_fts", "chunks_vocab"}
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY, source TEXT NOT NULL, source_key TEXT NOT NULL UNIQUE, title TEXT NOT NULL,
    perspective TEXT NOT NULL, n_pages INTEGER NOT NULL, n_chunks INTEGER NOT NULL,
    pages_without_text TEXT NOT NULL, page_labels TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
    rowid INTEGER PRIMARY KEY, chunk_id TEXT NOT NULL UNIQUE,
    doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL, section_path TEXT NOT NULL, page_start INTEGER NOT NULL, page_end INTEGER NOT NULL,
    page_label_start TEXT NOT NULL, page_label_end TEXT NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL,
    search_text TEXT NOT NULL, page_spans TEXT NOT NULL, vector BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id, ordinal);
CREATE TABLE IF NOT EXISTS pages (
    doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE, page INTEGER NOT NULL,
    text TEXT NOT NULL, PRIMARY KEY (doc_id, page)
);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    search_text, content='chunks', content_rowid='rowid', tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, search_text) VALUES (new.rowid, new.search_text);
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, search_text) VALUES ('delete', old.rowid, old.search_text);
END;
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vocab USING fts5vocab(chunks_fts, 'row');
INSERT OR IGNORE INTO meta(key, value) VALUES ('generation', '0');
"""
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_CHUNK_COLUMNS = (
    "chunk_id, doc_id, ordinal, section_path, page_start, page_end, page_label_start, page_label_end, kind, text, "
    "search_text, page_spans"
)


class SqliteIndex:
    """``SearchIndex`` over one SQLite file (WAL mode). Safe for one writer and many readers.

    Args:
        path: the database file; its parent directory is created.
        dimension: embedding size, stored with the index on first write; ``None`` reads it from the index
            (so listing and removing documents never load the embedding model).
        create: ``False`` for reading: a library never made reads as empty and no file is made.

    Raises:
        ConfigurationError: ``path``'s folder is a file, or the library cannot be opened or made there (a folder
            this user cannot write).
        LibraryBusyError: another process held the write lock while the library was being made.
    """

    def __init__(self, path: Path, dimension: int | None = None, create: bool = True) -> None:
        self._path = path
        self._lock = threading.Lock()
        if path.parent.exists() and not path.parent.is_dir():
            raise ConfigurationError(f"the data directory {path.parent} is a file, not a directory "
                                     "(check LCABOT_HOME)")
        if not create and not path.exists():  # a read of a library never made: empty, and nothing written
            self._conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            self._conn.executescript(_SCHEMA)
        else:
            self._conn = self._open(path)
        row = self._conn.execute("SELECT value FROM meta WHERE key = 'dimension'").fetchone()
        stored = int(row[0]) if row else None
        if stored is not None and dimension is not None and stored != dimension:
            raise ValueError(f"{path} holds {stored}-dimensional vectors, the embedder gives {dimension}; "
                             "use another LCABOT_HOME or re-ingest into a fresh one")
        self._dimension = stored or dimension or 0
        self._matrix_generation = -1
        self._matrix = np.zeros((0, self._dimension), dtype=np.float32)
        self._matrix_ids: list[str] = []
        self._matrix_docs: list[str] = []

    @staticmethod
    def _open(path: Path) -> sqlite3.Connection:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError) as err:
            raise ConfigurationError(f"the data directory {path.parent} is a file, not a directory "
                                     "(check LCABOT_HOME)") from err
        except PermissionError as err:
            raise ConfigurationError(f"the data directory {path.parent} cannot be made (check LCABOT_HOME)") from err
        try:
            conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, check_same_thread=False, isolation_level=None)
            conn.execute("PRAGMA foreign_keys=ON")
            present = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.OperationalError as err:
            raise ConfigurationError(f"the library {path} cannot be opened ({err}); LCABOT_HOME must be a folder "
                                     "this user can write (the index keeps its journal beside it)") from err
        if not _TABLES <= present:  # a new (or older) file: the only time opening writes
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.executescript(_SCHEMA)
            except sqlite3.OperationalError as err:
                raise _busy(err) or ConfigurationError(f"the library {path} cannot be created ({err}); "
                                                       "LCABOT_HOME must be a folder this user can write") from err
        return conn

    def close(self) -> None:
        self._conn.close()

    # -- writes ------------------------------------------------------------------------------------------------

    def upsert_document(
        self, record: DocumentRecord, chunks: Sequence[Chunk], vectors: np.ndarray, page_texts: Sequence[str]
    ) -> None:
        """Replace any earlier version (same ``source_key`` or ``doc_id``) by this one, atomically.

        Raises:
            ValueError: ``vectors`` is not ``(len(chunks), dimension)``.
            IndexWriteError: SQLite refused the write (disk full, locked, constraint); nothing was changed.
        """
        if not self._dimension:
            self._dimension = int(vectors.shape[1]) if vectors.ndim == 2 else 0
        if vectors.shape != (len(chunks), self._dimension):
            raise ValueError(f"vectors must have shape ({len(chunks)}, {self._dimension}), got {vectors.shape}")
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        try:
            self._write_document(record, chunks, vectors, page_texts)
        except sqlite3.Error as err:
            raise _busy(err) or IndexWriteError(f"{record.source}: the index refused the write ({err}); nothing was "
                                                "changed") from err

    def _write_document(
        self, record: DocumentRecord, chunks: Sequence[Chunk], vectors: np.ndarray, page_texts: Sequence[str]
    ) -> None:
        with self._lock, self._transaction() as cur:
            cur.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('dimension', ?)", (str(self._dimension),))
            cur.execute("DELETE FROM documents WHERE source_key = ? OR doc_id = ?", (record.source_key, record.doc_id))
            cur.execute(
                "INSERT INTO documents VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (record.doc_id, record.source, record.source_key, record.title, record.perspective, record.n_pages,
                 record.n_chunks, json.dumps(list(record.pages_without_text)), json.dumps(list(record.page_labels))),
            )
            cur.executemany(
                f"INSERT INTO chunks ({_CHUNK_COLUMNS}, vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(c.chunk_id, c.doc_id, c.ordinal, json.dumps(list(c.section_path)), c.page_start, c.page_end,
                  c.page_label_start, c.page_label_end, c.kind, c.text, c.search_text,
                  json.dumps([[s.start, s.page] for s in c.page_spans]), vectors[i].tobytes())
                 for i, c in enumerate(chunks)],
            )
            cur.executemany("INSERT INTO pages VALUES (?, ?, ?)",
                            [(record.doc_id, i + 1, t) for i, t in enumerate(page_texts)])
            self._bump(cur)

    def delete_document(self, doc_id: str) -> bool:
        """Delete a document, its chunks and pages. Returns False when it was not indexed.

        Raises:
            IndexWriteError: SQLite refused the delete (locked, disk full); nothing was deleted.
        """
        try:
            with self._lock, self._transaction() as cur:
                deleted = cur.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,)).rowcount
                self._bump(cur)
        except sqlite3.Error as err:
            raise _busy(err) or IndexWriteError(f"{doc_id}: the index refused the delete ({err}); nothing was "
                                                "deleted") from err
        return deleted > 0

    def _transaction(self) -> _Transaction:
        return _Transaction(self._conn)

    @staticmethod
    def _bump(cur: sqlite3.Cursor) -> None:
        cur.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")

    # -- reads -------------------------------------------------------------------------------------------------

    def documents(self) -> list[DocumentRecord]:
        rows = self._conn.execute("SELECT * FROM documents ORDER BY source").fetchall()
        return [_record(r) for r in rows]

    def document(self, doc_id: str) -> DocumentRecord | None:
        row = self._conn.execute("SELECT * FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
        return _record(row) if row else None

    def document_by_key(self, source_key: str) -> DocumentRecord | None:
        """The document indexed from ``source_key`` (an S3 key or an absolute path), or ``None``."""
        row = self._conn.execute("SELECT * FROM documents WHERE source_key = ?", (source_key,)).fetchone()
        return _record(row) if row else None

    def bm25(
        self, query: str, n: int, *, doc_ids: Sequence[str] | None = None, perspective: str | None = None
    ) -> list[tuple[str, float]]:
        """Top ``n`` chunks by BM25 for any of the query's terms, as ``(chunk_id, score)``; higher is better."""
        terms = sorted({t.lower() for t in _TOKEN.findall(query)})
        if not terms:
            return []
        match = " OR ".join(f'"{t}"' for t in terms)
        where, params = _filters(doc_ids, perspective)
        sql = (
            "SELECT c.chunk_id, -bm25(chunks_fts) AS score FROM chunks_fts JOIN chunks c ON c.rowid = chunks_fts.rowid "
            f"JOIN documents d ON d.doc_id = c.doc_id WHERE chunks_fts MATCH ? {where} ORDER BY score DESC LIMIT ?"
        )
        return [(r[0], float(r[1])) for r in self._conn.execute(sql, (match, *params, n))]

    def knn(
        self, vector: np.ndarray, n: int, *, doc_ids: Sequence[str] | None = None, perspective: str | None = None
    ) -> list[tuple[str, float]]:
        """Top ``n`` chunks by cosine similarity to a unit ``vector`` of shape ``(dimension,)``."""
        self._load_matrix()
        if not self._matrix_ids:
            return []
        scores = self._matrix @ np.asarray(vector, dtype=np.float32)
        allowed = self._allowed_docs(doc_ids, perspective)
        if allowed is not None:
            mask = np.fromiter((d in allowed for d in self._matrix_docs), dtype=bool, count=len(self._matrix_docs))
            scores = np.where(mask, scores, -np.inf)
        n = min(n, len(scores))
        top = np.argpartition(-scores, n - 1)[:n]
        top = top[np.argsort(-scores[top])]
        return [(self._matrix_ids[i], float(scores[i])) for i in top if np.isfinite(scores[i])]

    def chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        """Chunks in the order of ``chunk_ids`` (unknown ids are skipped)."""
        if not chunk_ids:
            return []
        marks = ",".join("?" * len(chunk_ids))
        rows = self._conn.execute(f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE chunk_id IN ({marks})", list(chunk_ids))
        by_id = {r[0]: _chunk(r) for r in rows}
        return [by_id[c] for c in chunk_ids if c in by_id]

    def vectors(self, chunk_ids: Sequence[str]) -> np.ndarray:
        """Stored vectors, shape ``(len(chunk_ids), dimension)``, in the given order."""
        self._load_matrix()
        pos = {c: i for i, c in enumerate(self._matrix_ids)}
        return self._matrix[[pos[c] for c in chunk_ids]] if chunk_ids else self._matrix[:0]

    def neighbours(self, chunk: Chunk) -> list[Chunk]:
        """The chunks just before and after ``chunk`` in the same section of the same document (the one after it may
        open a subsection)."""
        rows = self._conn.execute(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE doc_id = ? AND ordinal IN (?, ?) ORDER BY ordinal",
            (chunk.doc_id, chunk.ordinal - 1, chunk.ordinal + 1),
        )
        return [c for c in map(_chunk, rows) if same_section(c, chunk)]

    def page_text(self, doc_id: str, page: int) -> str | None:
        row = self._conn.execute("SELECT text FROM pages WHERE doc_id = ? AND page = ?", (doc_id, page)).fetchone()
        return row[0] if row else None

    def term_document_frequency(self, terms: Sequence[str]) -> tuple[dict[str, int], int]:
        """Number of chunks holding each (porter-stemmed by FTS5) term, and the total number of chunks."""
        total = self._conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        counts: dict[str, int] = {}
        for term in terms:
            row = self._conn.execute(
                "SELECT COUNT(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (f'"{term}"',)
            ).fetchone()
            counts[term] = int(row[0])
        return counts, int(total)

    def contains_text(self, text: str) -> bool:
        """True when the word ``text`` occurs, case-sensitively, in some chunk's search text (titles included)."""
        if not text or any(c in text for c in "*?[]"):
            return False
        pattern = f"*[^A-Za-z0-9]{text}[^A-Za-z0-9]*"
        row = self._conn.execute(
            "SELECT 1 FROM chunks WHERE instr(search_text, ?) > 0 AND (' ' || search_text || ' ') GLOB ? LIMIT 1",
            (text, pattern),
        ).fetchone()
        return row is not None

    def _allowed_docs(self, doc_ids: Sequence[str] | None, perspective: str | None) -> set[str] | None:
        if doc_ids is None and perspective is None:
            return None
        where, params = _filters(doc_ids, perspective)
        return {r[0] for r in self._conn.execute(f"SELECT d.doc_id FROM documents d WHERE 1=1 {where}", params)}

    def _load_matrix(self) -> None:
        generation = int(self._conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0])
        if generation == self._matrix_generation:
            return
        rows = self._conn.execute("SELECT chunk_id, doc_id, vector FROM chunks ORDER BY rowid").fetchall()
        self._matrix_ids = [r[0] for r in rows]
        self._matrix_docs = [r[1] for r in rows]
        self._matrix = (
            np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), self._dimension)
            if rows else np.zeros((0, self._dimension), dtype=np.float32)
        )
        self._matrix_generation = generation


class _Transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT``; any exception rolls everything back."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def __enter__(self) -> sqlite3.Cursor:
        self._cur = self._conn.cursor()
        self._cur.execute("BEGIN IMMEDIATE")
        return self._cur

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self._cur.execute("ROLLBACK" if exc_type else "COMMIT")


def _busy(err: sqlite3.Error) -> LibraryBusyError | None:
    """Another process held the write lock for :data:`BUSY_TIMEOUT_S` (an ingest writing a document)."""
    return LibraryBusyError(messages.library_busy()) if "locked" in str(err) or "busy" in str(err) else None


def _filters(doc_ids: Sequence[str] | None, perspective: str | None) -> tuple[str, list[str]]:
    where, params = "", list[str]()
    if doc_ids is not None:
        where += f" AND d.doc_id IN ({','.join('?' * len(doc_ids))})" if doc_ids else " AND 0"
        params.extend(doc_ids)
    if perspective is not None:
        where += " AND d.perspective = ?"
        params.append(perspective)
    return where, params


def _record(row: sqlite3.Row | tuple[Any, ...]) -> DocumentRecord:
    return DocumentRecord(
        doc_id=row[0], source=row[1], source_key=row[2], title=row[3], perspective=row[4], n_pages=row[5],
        n_chunks=row[6], pages_without_text=tuple(json.loads(row[7])), page_labels=tuple(json.loads(row[8])),
    )


def _chunk(row: tuple[Any, ...]) -> Chunk:
    return Chunk(
        chunk_id=row[0], doc_id=row[1], ordinal=row[2], section_path=tuple(json.loads(row[3])), page_start=row[4],
        page_end=row[5], page_label_start=row[6], page_label_end=row[7], kind=row[8], text=row[9],
        search_text=row[10], page_spans=tuple(PageSpan(s, p) for s, p in json.loads(row[11])),
    )
