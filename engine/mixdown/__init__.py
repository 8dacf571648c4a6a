"""What live playback and export both mix: the mix plan (a project's clips
and sounds laid out as one Programme), sound placement, the live master
gain and the memo of solved gains. Below engine.session and engine.export,
so what is heard is what is exported without one importing the other."""
