"""The version of every JSON document Colosseum writes for other programs to read (the CLI's
``--format json`` outputs, a run's ``run.json``). It grows only when a field changes meaning or goes
away; adding a field keeps it, and so does a new claim status (a set that may grow: a reader treats
a status it does not know as not settled)."""

SCHEMA_VERSION = 1
