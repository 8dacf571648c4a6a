"""The studio's link to the engine Session and the presenter of its state."""
