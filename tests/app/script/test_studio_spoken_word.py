"""The script lights the word being spoken while a line plays (real Session on
the null output, the sample's real voices), and a screenshot of it."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

import time

from app.script.model import Col
from app.script.spoken_word import SpokenWordDelegate, word_at
from engine.synth.wordmap import written_words
from tests.support.paths import ARTIFACTS, SAMPLE
from tests.support.studio import wait_engine


def test_word_at_follows_the_words_and_lets_a_pause_go_dark():
    words = (("one", 0.1, 0.4), ("two", 0.5, 0.8), ("three", 2.0, 2.5))
    assert [word_at(words, t) for t in (0.0, 0.1, 0.45, 0.5, 0.79, 1.2, 2.2, 2.8, 3.0)] == \
        [None, 0, 0, 1, 1, None, 2, 2, None]
    assert word_at((), 1.0) is None


def test_the_spoken_word_advances_through_the_playing_line(qtbot, make_window, warm_sample_cache):
    window = make_window(SAMPLE)
    window.resize(1600, 1000)
    wait_engine(qtbot, window)
    script, presenter = window.script, window.presenter
    delegate = script.view.itemDelegateForColumn(Col.TEXT)
    assert isinstance(delegate, SpokenWordDelegate)
    line = max(window.doc.project.lines[:8], key=lambda ln: len(ln.text.split()))  # a long line early on
    script.select_line(line.id)
    # The sample's clips come voiced (warm_sample_cache), but on a loaded machine playback can still
    # reach the line before the Session has it ready: play until the line has its clip, then play it
    # again from its start, voiced.
    window.play_from_line()

    def voiced_and_playing() -> bool:
        state = window.engine.state()
        return state is not None and state.transport.playing and \
            any(c.line_id == line.id and not c.estimated for c in state.clips)

    qtbot.waitUntil(voiced_and_playing, timeout=300_000)
    window.engine.stop_playback()
    # The first play (its transport, word and row) must be gone before the second play is watched:
    # a word still lit from it would pass for the second's.
    qtbot.waitUntil(lambda: not window.engine.state().transport.playing and presenter.spoken.word is None
                    and script.model.playing_line() is None, timeout=30_000)
    script.select_line(line.id)
    window.play_from_line()
    qtbot.waitUntil(lambda: presenter.spoken.word is not None and script.model.playing_line() == line.id,
                    timeout=180_000)  # generous: a loaded machine is slow, not wrong (failures report the load)

    seen: list[tuple[str, tuple[int, int, int] | None]] = []
    resets = []
    script.model.modelReset.connect(lambda: resets.append(1))
    deadline = time.monotonic() + 10.0  # the line lasts longer; stop once three words and the shot are in
    shot_taken = False
    while time.monotonic() < deadline and script.model.playing_line() == line.id and not (len(seen) >= 4 and shot_taken):
        qtbot.wait(25)
        word, lit = presenter.spoken.word, delegate.lit
        if word is not None and (not seen or seen[-1][0] != word):
            seen.append((word, lit))
        if len(seen) >= 3 and not shot_taken:
            image = window.grab().toImage()
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            path = ARTIFACTS / "script-spoken-word.png"
            assert image.save(str(path))
            print(f"\nscreenshot: {path}")
            shot_taken = True
    playing_row = script.model.row_of_line(line.id)
    spans = {(a, b) for _, a, b in written_words(line.text)}
    # At least three different words were lit, in the line's order, each on its own characters of the playing row.
    assert len(seen) >= 3, seen
    for word, lit in seen:
        assert lit is not None and lit[0] == playing_row and (lit[1], lit[2]) in spans
        assert line.text[lit[1]:lit[2]] == word
    positions = [lit[1] for _, lit in seen if lit is not None]
    assert positions == sorted(positions), seen
    assert not resets  # the word moves without resetting the script's model
    assert shot_taken
    window.engine.stop_playback()
    qtbot.waitUntil(lambda: presenter.spoken.word is None and delegate.lit is None, timeout=5_000)
