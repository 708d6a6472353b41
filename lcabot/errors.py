"""The house exception hierarchy. Backend errors are translated into these at the port boundary."""


class LcabotError(Exception):
    """Base class of every error the core raises on purpose."""


class DocumentError(LcabotError):
    """A PDF cannot be ingested. ``reason`` is a short machine-readable code; ``str(err)`` is for people."""

    reason = "unreadable"

    def __init__(self, source: str, detail: str) -> None:
        super().__init__(f"{source}: {detail}")
        self.source = source
        self.detail = detail

    def __reduce__(self) -> tuple[type, tuple[str, str]]:  # picklable across the parse worker process
        return (type(self), (self.source, self.detail))


class NotAPdfError(DocumentError):
    reason = "not_a_pdf"


class EncryptedPdfError(DocumentError):
    reason = "encrypted"


class CorruptPdfError(DocumentError):
    reason = "corrupt"


class EmptyPdfError(DocumentError):
    reason = "no_text"


class FileUnavailableError(DocumentError):
    """A shared file can no longer be fetched from the chat platform (deleted or unshared)."""

    reason = "unavailable"


class ObjectExistsError(LcabotError):
    """An object key is already taken (a conditional write refused to replace it)."""


class TooLargeError(DocumentError):
    reason = "too_large"


class ConfigurationError(LcabotError):
    """A setting points at something unusable (the data directory, the embedding model)."""


class QuestionError(LcabotError):
    """The question cannot be asked as given (empty, or longer than the limit)."""


class IndexWriteError(LcabotError):
    """The search index refused a write; the index is left as it was before the write."""


class LibraryBusyError(IndexWriteError):
    """Another process holds the embedded index's write lock (an ingest writing); nothing was changed."""


class GenerationError(LcabotError):
    """The language model failed (timeout, API error, unusable output)."""


class IncompleteGenerationError(GenerationError):
    """The language model stopped before finishing (``stop_reason == "max_tokens"``)."""


class PromptTooLongError(GenerationError):
    """The Messages API refused the prompt as longer than the model's context (HTTP 400 "prompt is too long")."""


class UnknownDocumentError(LcabotError):
    """No indexed document matches the given name or id."""


class ObjectNotFoundError(LcabotError):
    """An object store has no object under the key."""
