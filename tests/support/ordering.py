"""The longest test files first (a plugin of tests/conftest.py).

pytest-xdist (``--dist loadfile``) hands whole files to its workers in the order they
were collected (`make test` passes ``--no-loadscope-reorder``: xdist's own order is by
the number of tests in a file, which sent the one-test files, the delivery sample's 52 s
among them, last). A long file handed out last runs alone while the other worker idles,
which is the run's tail; handed out first, the short files fill in around it (the
longest-first rule of scheduling). The list is measured (seconds of one idle `-n 2`
run, per-test `getrusage` plugin, docs/dev/testing.md), longest first; a file not on it
keeps its collected place after them. test_render.py leads: its setup voices the bundled
sample, and the sample's other files come after at least 150 s of other work on either
worker, so they find it voiced instead of waiting for it.
"""

from __future__ import annotations

import pytest

LONGEST_FIRST = (
    "tests/engine/export/test_render.py",  # 171 s: voices the sample (tests/support/sample_clips.py)
    "tests/engine/project/test_import_build.py",  # 87 s
    "tests/engine/check/test_measured_casting.py",  # 67 s
    "tests/engine/rehearse/test_rehearse_modes.py",  # 64 s, mostly waiting on real time
    "tests/engine/farm/test_farm.py",  # 59 s, mostly Ray starting
    "tests/engine/export/test_delivery_sample.py",  # 52 s, the voiced sample
    "tests/contracts/test_default_install.py",  # ~90 s at load 6-11: make's default install, the voiced sample
    "tests/engine/cli/test_benchmark.py",  # ~210 s at load 8-10 (~75 s of CPU): make gpu-check's form, bench's JSON
    "tests/engine/check/test_normalized_script.py",  # 42 s
    "tests/engine/audio/test_programme.py",  # 33 s
    "tests/engine/synth/test_kokoro.py",  # 32 s
    "tests/engine/check/test_check.py",  # 30 s (was 38: the check remembers its measures)
    "tests/app/transport/test_studio_table_read.py",  # 30 s
    "tests/engine/audio/test_playback_pulseaudio.py",  # 25 s, the voiced sample
    "tests/engine/rehearse/test_rehearse.py",  # 24 s
    "tests/app/live/test_studio_race.py",  # 24 s
    "tests/engine/export/test_export_set.py",  # 23 s
    "tests/engine/cli/test_play_cli.py",  # 22 s
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    # sort is stable: within a file, and among the files not listed, the collected order stays
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
