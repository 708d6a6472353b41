"""The dependency rule (ARCHITECTURE.md), read from the imports themselves: the core imports no cloud SDK or chat
framework at module level outside ``lcabot/adapters`` and ``lcabot/dev``, no deployable (``lambdas``,
``bot_handlers``) outside ``lcabot/dev``, and the deployables use no private module or name of the core."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SDKS = ("boto3", "botocore", "opensearchpy", "anthropic", "slack_sdk", "slack_bolt", "botbuilder", "botframework",
        "moto", "aws_lambda_powertools")
DEPLOYABLES = ("lambdas", "bot_handlers")


def imports(path: Path, *, module_level: bool) -> Iterator[tuple[int, str]]:
    """``(line, dotted name)`` of every import in ``path`` (``from a.b import c`` gives ``a.b.c``): with
    ``module_level``, only those run on import — not inside functions or under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))

    def walk(nodes: list[ast.stmt]) -> Iterator[ast.stmt]:
        for node in nodes:
            yield node
            if module_level and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if module_level and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                yield from walk(node.orelse)
                continue
            for field in ("body", "orelse", "finalbody", "handlers"):
                yield from walk([n for n in getattr(node, field, []) if isinstance(n, ast.stmt | ast.excepthandler)])

    for node in walk(tree.body):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield from ((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)


def sources(folder: str, *, outside: tuple[str, ...] = ()) -> list[Path]:
    skip = tuple(ROOT / folder / o for o in outside)
    return sorted(p for p in (ROOT / folder).rglob("*.py") if not any(p.is_relative_to(s) for s in skip))


def offenders(paths: list[Path], roots: tuple[str, ...], *, module_level: bool) -> list[str]:
    return [f"{p.relative_to(ROOT)}:{line} imports {name}" for p in paths
            for line, name in imports(p, module_level=module_level) if name.split(".")[0] in roots]


def test_the_core_imports_no_cloud_sdk_or_chat_framework_at_module_level_outside_adapters_and_dev():
    core = sources("lcabot", outside=("adapters", "dev"))
    assert len(core) > 50 and ROOT / "lcabot" / "wiring.py" in core
    assert offenders(core, SDKS, module_level=True) == []


def test_the_core_imports_no_deployable_outside_dev():
    core = sources("lcabot", outside=("dev",))
    assert offenders(core, DEPLOYABLES, module_level=False) == []


@pytest.mark.parametrize("deployable", DEPLOYABLES)
def test_the_deployables_use_no_private_module_or_name_of_the_core(deployable):
    private = [f"{p.relative_to(ROOT)}:{line} imports {name}" for p in sources(deployable)
               for line, name in imports(p, module_level=False)
               if name.startswith("lcabot.") and any(part.startswith("_") for part in name.split("."))]
    assert private == []


def test_the_rule_reads_imports_as_python_runs_them(tmp_path):
    """The reader itself: module-level, lazy and type-only imports told apart, so the rules above can fail."""
    sample = tmp_path / "sample.py"
    sample.write_text("from __future__ import annotations\nimport boto3\nfrom typing import TYPE_CHECKING\n"
                      "if TYPE_CHECKING:\n    from slack_sdk import WebClient\nelse:\n    import json\n"
                      "try:\n    import anthropic\nexcept ImportError:\n    anthropic = None\n"
                      "def lazy():\n    from lambdas import runtime\n    from lcabot.wiring import _private\n",
                      encoding="utf-8")
    assert [n for _, n in imports(sample, module_level=True)] == [
        "__future__.annotations", "boto3", "typing.TYPE_CHECKING", "json", "anthropic"]
    assert {n for _, n in imports(sample, module_level=False)} >= {"slack_sdk.WebClient", "lambdas.runtime",
                                                                   "lcabot.wiring._private"}


def test_the_ontology_ships_as_package_data():
    from importlib import resources

    from lcabot.graph import ontology

    assert ontology.ONTOLOGY_PATH == resources.files("lcabot") / "data" / "ontology.json"
    assert 'lcabot = ["data/*.json"]' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert len(ontology.load().node_types) == 11


def test_importing_the_whole_core_loads_no_cloud_sdk_or_chat_framework():
    """Transitively too: every core module outside ``adapters`` and ``dev`` imported in a fresh interpreter."""
    import subprocess
    import sys

    modules = [".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
               for p in sources("lcabot", outside=("adapters", "dev"))]
    code = ("import importlib, sys\n"
            f"for m in {modules!r}: importlib.import_module(m)\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({SDKS!r})))")
    loaded = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"
