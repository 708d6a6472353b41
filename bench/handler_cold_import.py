"""Cold import time of each Lambda handler module, in a fresh interpreter per run (what a Lambda cold start pays
before the first event), and whether torch got imported. Prints figures, asserts nothing.

Run: ``.venv/bin/python bench/handler_cold_import.py [--runs 5]``

Only the import is timed: the embedding model loads on the first event that needs it (ingest, answer, report),
never at import. The bot handlers (``bot_handlers.slack.app``, ``bot_handlers.teams.app``) must also stay light:
they acknowledge Slack within 3 s.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

HANDLERS = ("lambdas.ingest.app", "lambdas.answer.app", "lambdas.report.app",
            "bot_handlers.slack.app", "bot_handlers.teams.app")
PROBE = ("import sys, time; t = time.perf_counter(); import {module}; "
         "print(time.perf_counter() - t, 'torch' in sys.modules, len(sys.modules))")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"{'handler':28} {'median s':>9} {'min s':>7} {'torch':>6} {'modules':>8}")
    for module in HANDLERS:
        times, torch, n_modules = [], False, 0
        for _ in range(args.runs):
            out = subprocess.run([sys.executable, "-c", PROBE.format(module=module)], capture_output=True,
                                 text=True, check=True, env={"POWERTOOLS_LOG_LEVEL": "WARNING", "PATH": ""})
            seconds, torch_loaded, count = out.stdout.split()
            times.append(float(seconds))
            torch = torch or torch_loaded == "True"
            n_modules = int(count)
        print(f"{module:28} {statistics.median(times):9.3f} {min(times):7.3f} {str(torch):>6} {n_modules:8d}")


if __name__ == "__main__":
    main()
