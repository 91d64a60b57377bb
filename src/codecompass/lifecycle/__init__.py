"""Keeping an index healthy over time: moving it between backends."""
