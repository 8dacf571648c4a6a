"""Engine metrics: bounded ring structures, a thread-safe hub, anomaly flags, Prometheus export.

Scheduler and worker threads write into one :class:`~engine.metrics.hub.MetricsHub`; the GUI polls
``hub.snapshot()`` at 10-30 Hz and ``radioplay serve`` exposes the same numbers in the Prometheus
text format (:mod:`engine.metrics.prometheus`, which alone imports ``prometheus_client``, lazily).
Everything is held in fixed-size numpy rings, so memory stays flat however long a render runs.
"""
