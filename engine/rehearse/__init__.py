"""The live table read (``radioplay rehearse``): a person reads some parts,
the engine plays the others on cue and records the takes.

runner.py walks the script and drives the Session; listener.py decides when
a live line is over; reader.py is the microphone or a simulated reader;
takes.py writes recorded takes; report.py the figures of a run.
"""
