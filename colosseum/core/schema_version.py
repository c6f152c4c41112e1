"""The version of every JSON document Colosseum writes for other programs to read (the CLI's
``--format json`` outputs, a run's ``run.json``). It grows when a field changes meaning or a value
set grows (e.g. a new claim status); adding a field keeps it."""

SCHEMA_VERSION = 1
