"""Export orchestration: a whole production through the scheduler, mixed by
the programme and written as one set of files (master, stems, captions, cue
sheet). Sits above sched and synth, beside the live session."""
