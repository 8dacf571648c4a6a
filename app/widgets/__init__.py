"""Widgets any feature may use: item delegates, the peak meter, the status bar."""
