"""The version of the public JSON outputs (``check``, ``dag``, ``obligations`` ... ``--format json``).

Every JSON output carries ``"schema_version"``: fields are only ever added and status values may
grow (a reader treats a value it does not know as not settled); the version goes up only when a
field changes its meaning or goes away."""

SCHEMA_VERSION = 1
