"""The domino replay recorder: log format, replay engine, storage and analytics.

The data flow, one module a step: ``parse`` (bytes to documents) -> ``schema``
(shape) -> ``replay`` (the pure engine in ``engine`` over a ``rules.Ruleset``) ->
``storage`` (sqlite-utils) -> ``analysis`` (facts for the statistics) -> ``webui``.
"""

__version__ = "0.1.0"
FORMAT = "domino-log/1"
