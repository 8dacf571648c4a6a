"""``radioplay serve``: a project's cast as a local HTTP text-to-speech service.

- :mod:`engine.serve.app`: the aiohttp applications (``/tts``, ``/roles``,
  ``/renders`` on one port, ``/metrics`` on another) and their handlers;
- :mod:`engine.serve.security`: bearer-token auth, per-client rate limiting
  and HMAC-signed render links;
- :mod:`engine.serve.server`: configuration, start-up, graceful shutdown
  (``run`` for the CLI, ``start_in_thread`` for tests and embedding);
- :mod:`engine.serve.probe`: ``radioplay probe``, a terminal view of a
  running service's ``/metrics``.

Every request goes through the same :class:`~engine.sched.scheduler.Scheduler`
(origin SERVICE) and clip cache the studio and the renderer use, so the
service voices a line exactly as the studio does and never keeps a private
copy of engine logic.
"""
