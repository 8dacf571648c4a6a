"""Synthesis beyond one machine: Ray actors behind the scheduler (``--ray``).

``cluster`` connects to a Ray cluster (or starts a private local instance)
and fails with one line before any work when it cannot; ``actor`` is one
voice session in a Ray worker process; ``farm`` places the scheduler's lines
on those actors through the same weighted hash ring as local sessions. Ray is
the optional ``cluster`` extra: nothing outside this package imports it.
"""
