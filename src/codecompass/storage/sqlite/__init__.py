"""The embedded backend's metadata: one SQLite file per workspace (see `db.py`)."""
