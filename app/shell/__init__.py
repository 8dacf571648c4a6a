"""The studio's frame: the main window, its menus, actions, panels and self-test."""
