"""The timeline of lanes: clips, ruler, headers, drag, snap and zoom."""
