"""Time to a CFP study report for each study of the corpus, and peak memory. Prints figures, asserts nothing.

Run: ``.venv/bin/python bench/report_time.py [--studies DIR] [--cold]``

Warm: one process loads the embedding model once, then writes each study's report (parse, ephemeral index,
per-field retrieval, extractive filling, grounding, Markdown + Word + chart) and prints its seconds and seconds per
page. ``--cold`` also runs each report in a fresh interpreter (imports and model load included, as ``lcabot report``
pays them) and prints its wall time and that process's peak RSS. ``ANTHROPIC_API_KEY`` is ignored: the figures are
for the offline path.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_STUDIES = REPO.parent / "shared" / "corpus" / "studies"
_CHILD = """
import sys, time
from pathlib import Path
t0 = time.monotonic()
from lcabot.config import Settings
from lcabot.adapters.embedder import SentenceTransformerEmbedder
from lcabot.report import write_report
path, out = Path(sys.argv[1]), Path(sys.argv[2])
write_report(path.read_bytes(), path.name, out, settings=Settings(home=out / "home"),
             embedder=SentenceTransformerEmbedder())
print(time.monotonic() - t0)
"""


def peak_rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # Linux reports kilobytes


def warm(studies: list[Path]) -> None:
    from lcabot.adapters.embedder import SentenceTransformerEmbedder
    from lcabot.config import Settings
    from lcabot.report import write_report

    t0 = time.monotonic()
    embedder = SentenceTransformerEmbedder()
    embedder.embed(["warm-up"])
    print(f"model import + load: {time.monotonic() - t0:.1f} s")
    print(f"{'study':58} {'pages':>5} {'seconds':>8} {'s/page':>7}  files")
    with tempfile.TemporaryDirectory() as out:
        for path in studies:
            data = path.read_bytes()
            t = time.monotonic()
            files = write_report(data, path.name, Path(out), settings=Settings(home=Path(out) / "home"),
                                 embedder=embedder)
            seconds = time.monotonic() - t
            pages = files.report.n_pages
            print(f"{path.name:58} {pages:5d} {seconds:8.1f} {seconds / pages:7.2f}  {len(files.paths())}")
    print(f"peak RSS (this process): {peak_rss_mb():.0f} MB")


def cold(studies: list[Path]) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    print(f"{'cold run (fresh interpreter)':58} {'wall s':>8} {'peak RSS MB':>12}")
    for path in studies:
        with tempfile.TemporaryDirectory() as out:
            t = time.monotonic()
            subprocess.run([sys.executable, "-c", _CHILD, str(path), out], check=True, env=env, cwd=REPO,
                           stdout=subprocess.DEVNULL)
            wall = time.monotonic() - t
        print(f"{path.name:58} {wall:8.1f} {peak_rss_mb(resource.RUSAGE_CHILDREN):12.0f}")
    print("(peak RSS of children is the largest child so far)\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--studies", type=Path, default=DEFAULT_STUDIES)
    parser.add_argument("--cold", action="store_true", help="also time each report in a fresh interpreter")
    args = parser.parse_args()
    studies = sorted(args.studies.glob("*.pdf"))
    if not studies:
        sys.exit(f"no PDF in {args.studies}")
    os.environ.pop("ANTHROPIC_API_KEY", None)
    if args.cold:  # first, while this process is small: a forked child's peak RSS counts the parent's pages
        cold(studies)
    warm(studies)


if __name__ == "__main__":
    main()
