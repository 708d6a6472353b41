"""``lcabot dev`` as a user runs it: the stack in one process, ``put``/``ask``/``rm`` from another, on the
embedded index."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import CORPUS, ROOT
from tests.stack.conftest import free_port

pytestmark = pytest.mark.corpus

CHIC = CORPUS / "perspectives" / "eu_funding" / "cordis-chic-256848-objective.pdf"
LCABOT = [sys.executable, "-m", "lcabot.cli.main"]


@pytest.fixture
def dev_stack(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LCABOT_", "AWS_", "ANTHROPIC_"))}
    env.update({"LCABOT_HOME": str(tmp_path / "home"), "NO_COLOR": "1", "COLUMNS": "200"})
    # started as a background job of a shell without job control is: with SIGINT ignored, which Ctrl-C must still stop
    server = subprocess.Popen([*LCABOT, "dev", "--port", str(free_port())], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    deadline = time.monotonic() + 60
    while not (tmp_path / "home" / "dev.json").exists():
        assert server.poll() is None, server.stdout.read()
        assert time.monotonic() < deadline, "lcabot dev did not start within 60 s"
        time.sleep(0.2)
    try:
        yield env
    finally:
        server.send_signal(signal.SIGINT)
        out, _ = server.communicate(timeout=30)
        assert server.returncode == 0, out
        assert "stopped" in out


def run(env, *args: str) -> str:
    done = subprocess.run([*LCABOT, "dev", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_put_ask_and_rm_through_the_local_stack(dev_stack):
    out = run(dev_stack, "put", str(CHIC), "--perspective", "eu_funding")
    assert "cordis-chic-256848-objective.pdf: indexed, 1 page" in out
    answer = run(dev_stack, "ask", "What is the objective of the CHIC Clean Hydrogen in European Cities project?")
    assert "cordis-chic-256848-objective.pdf" in answer and "p. 1" in answer
    removed = run(dev_stack, "rm", CHIC.name)
    assert "cordis-chic-256848-objective.pdf: removed from the library" in removed
    after = run(dev_stack, "ask", "What is the objective of the CHIC Clean Hydrogen in European Cities project?")
    assert "The library is empty" in after
