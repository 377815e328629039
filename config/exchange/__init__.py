"""Moving data in and out: each app's documents as JSON Lines (``export_data``/``import_data``, the
Import / export screens) and the report of what an import rewrote or refused."""
