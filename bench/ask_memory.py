"""Peak memory and wall time of one ``lcabot ask "…"`` process (interpreter start, imports, model load, retrieval,
extractive answer). Prints figures, asserts nothing.

Run: ``.venv/bin/python bench/ask_memory.py [--home .lcabot] [--runs 1] ["question"]``

Peak RSS comes from ``/usr/bin/time -v`` when it exists, otherwise from ``getrusage(RUSAGE_CHILDREN)`` (the largest
child so far, which is the ``lcabot`` process here). ``ANTHROPIC_API_KEY`` is removed from the child's environment,
so the figures are for the offline extractive path.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_QUESTION = ("What functional unit did Nab & Maslin use for their coffee carbon footprint, "
                    "and which standard framed the scope?")
GNU_TIME = "/usr/bin/time"


def lcabot_command() -> list[str]:
    """The ``lcabot`` console script of this interpreter's environment, else ``python -m lcabot.cli.main``."""
    script = Path(sys.executable).parent / "lcabot"
    return [str(script)] if script.exists() else [sys.executable, "-m", "lcabot.cli.main"]


def run_once(question: str, env: dict[str, str], use_gnu_time: bool) -> tuple[float, float, int]:
    """Peak RSS in MB, wall seconds and exit code of one ``lcabot ask``."""
    cmd = [*lcabot_command(), "ask", question]
    if not use_gnu_time:
        start = time.perf_counter()
        proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - start
        _report_failure(proc)
        return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, wall, proc.returncode
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        start = time.perf_counter()
        proc = subprocess.run([GNU_TIME, "-v", "-o", report.name, *cmd], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - start
        text = report.read()
    _report_failure(proc)
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    rss_mb = int(match.group(1)) / 1024 if match else float("nan")
    return rss_mb, wall, proc.returncode


def _report_failure(proc: subprocess.CompletedProcess) -> None:
    """The child's stderr (model-loading progress bars) is shown only when it failed."""
    if proc.returncode:
        sys.stderr.write(proc.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Peak memory of one `lcabot ask`.")
    parser.add_argument("question", nargs="?", default=DEFAULT_QUESTION)
    parser.add_argument("--home", type=Path, default=Path(".lcabot"), help="LCABOT_HOME holding index.sqlite3")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args(argv)
    if not (args.home / "index.sqlite3").is_file():
        print(f"no index at {args.home / 'index.sqlite3'}; run `lcabot ingest` (or make demo) first", file=sys.stderr)
        return 2
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env["LCABOT_HOME"] = str(args.home)
    use_gnu_time = os.access(GNU_TIME, os.X_OK)
    method = f"{GNU_TIME} -v" if use_gnu_time else "getrusage(RUSAGE_CHILDREN)"
    print(f"lcabot ask {args.question!r} on {args.home}; peak RSS via {method}; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    status = 0
    for i in range(1, args.runs + 1):
        rss_mb, wall, code = run_once(args.question, env, use_gnu_time)
        status = status or code
        print(f"run {i}: peak RSS {rss_mb:.0f} MB, wall {wall:.1f} s, exit code {code}")
    return status


if __name__ == "__main__":
    sys.exit(main())
