"""The programme: block mixer -> lane effects (+ sound lanes, ducked) -> master gain -> master chain.

One object turns the timeline into what the listener hears, block by block,
for both export (:mod:`engine.export.render`) and live playback (the mixer
thread), so what a producer hears is what they export. It only *uses* the
:class:`~engine.audio.mixer.BlockMixer`.

Per block: the mixer's stems go through their lanes' effect chains, are
scaled by the master gain (the loudness-normalizing gain) and summed; the
sum goes through the master preset stage and the true-peak limiter. The
stems returned are post lane effect and post master gain, pre master chain:
they sum to what enters the master chain. Sound lanes (effects, ambience,
music: :class:`~engine.audio.soundbus.SoundBus`) follow the roles' lanes in
the stems, ducked by a side-chain from the dialogue; :meth:`Programme.buses`
sums a block's stems into the DME buses (dialogue, effects, music).

Effects carry state from block to block, so unlike the block mixer the
programme is sequential: a block that does not follow the previous one is a
seek and resets the effects (as :meth:`Programme.reset` does). With every
lane dry, the per-block path up to the limiter allocates nothing: a dry lane
is one multiply into a preallocated buffer and never reaches pedalboard.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np

from engine.audio.effects import (
    LIMITER_CEILING_DB,
    EffectChain,
    MasterChain,
    lane_chain,
)
from engine.audio.limiter import LookaheadLimiter
from engine.audio.meters import LevelMeters
from engine.audio.mixer import BlockMixer
from engine.audio.normalize import ProgrammeAnalysis
from engine.audio.soundbus import SoundBus
from engine.project.presets import DEFAULT_LANE_EFFECT, DEFAULT_MASTER_EFFECT


class Programme:
    """Block mixer, lane effect chains and the master chain, as one stream.

    Threads: ``process``, ``mix``, ``flush``, ``reset`` and ``analyse`` run
    on one thread at a time (the export thread, or ``radioplay-mixer`` in
    live playback). ``set_lane_effect``, ``set_master_effect`` and
    ``set_master_gain`` may be called from any thread: each builds what it
    needs first and swaps it in with one reference assignment, so it takes
    effect at the next block and a block never sees half a change. The
    meters' snapshot is read from any thread (see :mod:`engine.audio.meters`).

    ``process(t, n)`` returns the master for frames [t - latency, t - latency
    + n) (the limiter looks ahead), exactly as the limiter delays it: an
    export drops the first :attr:`latency` frames and appends :meth:`flush`.
    """

    def __init__(self, mixer: BlockMixer, rate: int, lane_effects: Sequence[str] | None = None,
                 master_effect: str = DEFAULT_MASTER_EFFECT, gain_db: float = 0.0,
                 ceiling_db: float = LIMITER_CEILING_DB, meters: LevelMeters | None = None,
                 sounds: SoundBus | None = None) -> None:
        lanes = mixer.lanes
        names = list(lane_effects) if lane_effects is not None else [DEFAULT_LANE_EFFECT] * lanes
        if len(names) != lanes:
            raise ValueError(f"{len(names)} lane effects for {lanes} lanes")
        if mixer.max_block < EffectChain.MIN_FRAMES:
            raise ValueError(f"the mixer's blocks must hold at least {EffectChain.MIN_FRAMES} frames")
        self.mixer = mixer
        self.rate = rate
        self.lanes = lanes
        self.sounds = sounds
        if sounds is not None and sounds.max_block < mixer.max_block:
            raise ValueError("the sound bus's blocks must be as long as the mixer's")
        self.sound_lanes = sounds.lanes if sounds is not None else 0
        all_lanes = lanes + self.sound_lanes
        self.max_block = mixer.max_block
        self.meters = meters
        self._chains = [lane_chain(name, rate) for name in names]
        self._master = MasterChain(master_effect, rate, gain_db, ceiling_db)
        self._gain_db = gain_db
        self._gain = np.float32(10 ** (gain_db / 20))
        block = mixer.max_block
        self._stems = np.zeros((all_lanes, block, 2), dtype=np.float32)
        self._dme = np.zeros((3, block, 2), dtype=np.float32)
        self._premaster = np.zeros((block, 2), dtype=np.float32)
        # Frames mixed ahead for requests shorter than pedalboard accepts.
        ahead = EffectChain.MIN_FRAMES
        self._ahead_stems = np.zeros((all_lanes, ahead, 2), dtype=np.float32)
        self._ahead_master = np.zeros((ahead, 2), dtype=np.float32)
        self._ahead_at = 0
        self._ahead_n = 0
        self._next: int | None = None  # the frame the next block must start at (None: any)
        self._master_lock = threading.Lock()  # control threads only; never taken per block

    # --- settings (any thread) ------------------------------------------------------

    @property
    def lane_effects(self) -> tuple[str, ...]:
        return tuple(chain.name for chain in self._chains)

    @property
    def master_effect(self) -> str:
        return self._master.name

    @property
    def gain_db(self) -> float:
        return self._gain_db

    @property
    def limiter(self) -> LookaheadLimiter:
        """The master's true-peak limiter (its deepest reduction and working time, for reports)."""
        return self._master.limiter

    @property
    def latency(self) -> int:
        """Frames by which the master trails the stems (the limiter's look-ahead)."""
        return self._master.latency

    @property
    def dry(self) -> bool:
        """Every lane ``none``, the master ``clean`` and no line staged: the programme before the
        limiter is the plain mix, which the fast loudness analysis models exactly."""
        quiet = (self.sounds is None or not self.sounds.sounds) and not self.mixer.stereo
        return quiet and all(chain.dry for chain in self._chains) and self._master.stage.dry

    @property
    def tail_s(self) -> float:
        """How long the lane effects ring after the last clip ends."""
        return max((chain.tail_s for chain in self._chains), default=0.0)

    def set_lane_effect(self, lane: int, name: str) -> None:
        """Give a lane a fresh chain for preset ``name`` (from the next block)."""
        self._chains[lane] = lane_chain(name, self.rate)

    def set_master_effect(self, name: str) -> None:
        """Swap the master preset stage (the limiter plays on)."""
        with self._master_lock:
            self._master.set_preset(name)

    def set_master_gain(self, gain_db: float) -> None:
        """The loudness-normalizing gain, applied before the master chain."""
        with self._master_lock:
            self._master.set_gain_db(gain_db)
            self._gain_db = gain_db
            self._gain = np.float32(10 ** (gain_db / 20))

    # --- the stream (one thread) ----------------------------------------------------

    def reset(self) -> None:
        """Forget every effect's state and the limiter's delay line (a seek)."""
        for chain in self._chains:
            chain.reset()
        self._master.reset()
        self._ahead_n = 0
        self._next = None

    def mix(self, t: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Frames [t, t+n) before the limiter: (programme after the master gain
        and the master preset stage (n, 2), stems (lanes + sound lanes, n, 2):
        the roles' lanes first, then the sound lanes, ducked). Views of
        internal buffers, valid until the next call."""
        if not 0 < n <= self.max_block:
            raise ValueError(f"block of {n} frames; the programme handles 1..{self.max_block}")
        if self._next is not None and t != self._next:
            self.reset()
        premaster = self._premaster[:n]
        stems = self._stems[:, :n]
        done = 0
        if self._ahead_n:
            k = min(self._ahead_n, n)
            a = self._ahead_at
            premaster[:k] = self._ahead_master[a:a + k]
            stems[:, :k] = self._ahead_stems[:, a:a + k]
            self._ahead_at += k
            self._ahead_n -= k
            done = k
        left = n - done
        if left >= EffectChain.MIN_FRAMES or (left and self.dry):
            self._mix_into(t + done, left, premaster[done:], stems[:, done:])
        elif left:
            # Too short for pedalboard: mix a few frames ahead and keep the rest.
            ahead = EffectChain.MIN_FRAMES
            self._mix_into(t + done, ahead, self._ahead_master, self._ahead_stems)
            premaster[done:] = self._ahead_master[:left]
            stems[:, done:] = self._ahead_stems[:, :left]
            self._ahead_at, self._ahead_n = left, ahead - left
        self._next = t + n
        return premaster, stems

    def _mix_into(self, t: int, n: int, premaster: np.ndarray, stems: np.ndarray) -> None:
        _, mixed = self.mixer.process(t, n)
        gain = self._gain
        chains = self._chains
        for lane in range(self.lanes):
            chain = chains[lane]
            if chain.dry:
                np.multiply(mixed[lane], gain, out=stems[lane])
            else:
                np.multiply(chain.process(mixed[lane]), gain, out=stems[lane])
        sounds = self.sounds
        if sounds is not None:
            sound_stems = stems[self.lanes:]
            if sounds.sync_in_blocks:
                sounds.sync(self.mixer)
            sounds.process(t, n, sound_stems)
            sound_stems *= gain
        np.sum(stems, axis=0, out=premaster)
        stage = self._master.stage
        if not stage.dry:
            compressed = stage.process(premaster)
            if compressed is not premaster:
                premaster[...] = compressed

    def buses(self, stems: np.ndarray) -> np.ndarray:
        """The DME buses of a block's stems: (3, n, 2) dialogue (every role),
        effects (effects and ambience lanes), music. A view of an internal
        buffer, valid until the next call; they sum to the stems' sum."""
        n = stems.shape[1]
        dme = self._dme[:, :n]
        np.sum(stems[:self.lanes], axis=0, out=dme[0])
        dme[1:].fill(0.0)
        if self.sounds is not None:
            for k, kind in enumerate(self.sounds.kinds):
                dme[2 if kind == "music" else 1] += stems[self.lanes + k]
        return dme

    def process(self, t: int, n: int, out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(master after the limiter, delayed by :attr:`latency`, stems) for frames
        [t, t+n). With ``out`` ((n, 2) float32, e.g. a ring buffer's region) the
        master is written there and ``out`` is returned."""
        premaster, stems = self.mix(t, n)
        master = self._master.limiter.process(premaster)
        if out is not None:
            out[...] = master
            master = out
        if self.meters is not None:
            self.meters.update(master, stems, self._master.limiter.last_gain)
        return master, stems

    def flush(self) -> np.ndarray:
        """The last :attr:`latency` frames of the master, still in the limiter."""
        return self._master.flush()

    def render(self, frames: int) -> np.ndarray:
        """Frames [0, frames) of the master as one (frames, 2) array, as an export writes
        them: the limiter's look-ahead delay dropped, its last frames flushed. For a short
        programme held in memory (a take heard alone); the stream is reset before and after."""
        self.reset()
        latency = self.latency
        out = np.zeros((frames + latency, 2), dtype=np.float32)
        try:
            for t in range(0, frames, self.max_block):
                n = min(self.max_block, frames - t)
                self.process(t, n, out=out[t:t + n])
            out[frames:] = self.flush()[:latency]
        finally:
            self.reset()
        return out[latency:]

    def analyse(self, frames: int, block: int | None = None,
                check: Callable[[], None] | None = None) -> ProgrammeAnalysis:
        """Peaks and K-weighted power (1 ms grid) of frames [0, frames) before the
        limiter at unity master gain, for :meth:`ProgrammeAnalysis.solve_gain`.

        Dry: assembled from each clip's own analysis, no pass over the mix.
        Otherwise one pass through the real chain (mixer, lane effects,
        compressor): effects are not linear in the clips. The compressor's
        threshold follows the master gain, so what it does at unity gain is
        what it does at the solved gain, scaled. ``check`` runs between
        blocks (cancellation). The stream is reset afterwards.
        """
        if self.dry:
            return ProgrammeAnalysis.from_clips(self.rate, frames, self.mixer.audible_clips())
        block = block or self.max_block
        gain_db = self._gain_db
        self.set_master_gain(0.0)
        self.reset()
        analysis = ProgrammeAnalysis(self.rate)
        try:
            for t in range(0, frames, block):
                if check is not None:
                    check()
                analysis.feed(self.mix(t, min(block, frames - t))[0])
        finally:
            self.set_master_gain(gain_db)
            self.reset()
        return analysis
