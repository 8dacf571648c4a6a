"""The issue's Must show on the bundled sample and the real voice:
``--preset podcast`` and ``--preset acx`` measured by an independent meter
(pyloudnorm and numpy on the files as libsndfile decodes them, mutagen for
the stream facts), report.json passing, and ``--daw reaper`` parsed back
(rpp) against the cue sheet. The sample's clips come voiced (``warm_sample_cache``): what is
measured here is what happens after synthesis."""

from __future__ import annotations

import json
import math

import mutagen
import numpy as np
import pyloudnorm
import pytest
import rpp
import soundfile as sf
import soxr

from engine.cli import main
from engine.project.fileformat import load_project
from tests.support.paths import SAMPLE


def _db(x: float) -> float:
    return 20 * math.log10(x) if x > 0 else -math.inf


@pytest.mark.integration
def test_sample_delivers_to_podcast_and_acx_and_hands_off_to_reaper(tmp_path, capsys, warm_sample_cache):
    project_path = tmp_path / SAMPLE.name
    project_path.write_bytes(SAMPLE.read_bytes())
    project = load_project(project_path)

    podcast = tmp_path / "podcast"
    assert main(["render", str(project_path), "-o", str(podcast), "--preset", "podcast", "--no-stems"]) == 0
    out = capsys.readouterr().out
    assert "Preset podcast: every requirement passes" in out
    assert " lines (0 synthesized, " in out  # the session's clips were found: the same keys as a render's
    audio, rate = sf.read(podcast / "mix.mp3", dtype="float32")
    loudness = pyloudnorm.Meter(rate).integrated_loudness(audio)
    true_peak = _db(float(np.max(np.abs(soxr.resample(audio, rate, 4 * rate)))))
    with capsys.disabled():
        print(f"podcast: {loudness:.2f} LUFS, true peak {true_peak:.2f} dBTP")
    assert rate == 44_100 and -17.0 <= loudness <= -15.0 and true_peak <= -1.0
    assert json.loads((podcast / "report.json").read_text())["passed"] is True

    acx = tmp_path / "acx"
    assert main(["render", str(project_path), "-o", str(acx), "--preset", "acx", "--daw", "reaper"]) == 0
    assert "Preset acx: every requirement passes" in capsys.readouterr().out
    files = sorted((acx / "chapters").iterdir())
    scenes = [s for s in project.scenes if any(line.scene == s.id for line in project.lines)]
    assert len(files) == len(scenes) == 5 and files[0].name.startswith("01_")
    for file in files:
        audio, rate = sf.read(file, dtype="float32")
        media = mutagen.File(file)
        rms = _db(float(np.sqrt(np.mean(np.square(audio, dtype=np.float64)))))
        peak = _db(float(np.max(np.abs(audio))))
        head = audio[: int(0.5 * rate)]
        floor = _db(float(np.sqrt(np.mean(np.square(head, dtype=np.float64)))))
        print(f"{file.name}: RMS {rms:.2f} dBFS, peak {peak:.2f} dBFS, room tone {floor:.1f} dB, "
              f"{media.info.bitrate / 1000:g} kbps {media.info.bitrate_mode}, {len(audio) / rate:.1f} s")
        assert rate == 44_100 and round(media.info.bitrate / 1000) == 192 and "CBR" in str(media.info.bitrate_mode)
        assert -23.0 <= rms <= -18.0 and peak <= -3.0 and floor <= -60.0
    report = json.loads((acx / "report.json").read_text())
    assert report["passed"] is True and len(report["files"]) == 5

    cues = json.loads((acx / "cues.json").read_text())["cues"]  # dialogue, and the sound lanes' clips
    tracks = rpp.loads((acx / "the-last-broadcast.rpp").read_text()).findall("TRACK")
    # The cast's dry lines and the sound lanes, then (the sample is staged) each role's rendered staging.
    assert [t.find("NAME")[1] for t in tracks] == ([r.name for r in project.cast] + [s.name for s in project.sound_lanes]
                                                   + [f"{r.name} (staged)" for r in project.cast])
    dry = [t for t in tracks if not t.find("NAME")[1].endswith(" (staged)")]
    items = {i.find("IGUID")[1].strip("{}"): (t.find("NAME")[1], i) for t in dry for i in t.findall("ITEM")}
    assert len(items) == len(cues) == len(project.lines) + len(project.sounds)
    worst = 0.0
    for cue in cues:
        track, item = items[cue["id"]]
        assert track == cue.get("role", cue.get("lane"))
        worst = max(worst, abs(float(item.find("POSITION")[1]) - cue["start"]),
                    abs(float(item.find("LENGTH")[1]) - (cue["end"] - cue["start"])))
    print(f"reaper: {len(items)} items, worst position/length difference {worst * 1000:.3f} ms")
    assert worst < 0.001
