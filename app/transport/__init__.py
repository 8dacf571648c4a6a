"""Transport: the play bar, the engine monitor and the table read."""
