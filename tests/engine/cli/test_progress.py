"""The render progress bar: drawn on a terminal, silent otherwise."""

from __future__ import annotations

import io

from engine.progress import TerminalProgress


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_quiet_when_not_a_terminal():
    stream = io.StringIO()
    progress = TerminalProgress(stream)
    for i in range(10):
        progress("synthesizing", i + 1, 10)
    progress.close()
    assert stream.getvalue() == ""


def test_draws_bar_and_stages_on_a_terminal():
    stream = FakeTerminal()
    progress = TerminalProgress(stream, width=10)
    progress("synthesizing", 0, 4)
    progress("synthesizing", 4, 4)
    progress("writing", 2, 2)
    progress.close()
    out = stream.getvalue()
    assert "synthesizing  [----------] 0/4" in out
    assert "synthesizing  [##########] 4/4" in out
    assert "\n\rwriting" in out and "[##########] 2/2" in out
    assert out.endswith("\n")
