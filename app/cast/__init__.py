"""The cast: roles, their voices and designs, and getting more voices."""
