"""The command line's own error: bad input, found before anything ran."""

from __future__ import annotations


class UsageError(ValueError):
    """Bad input or flags, refused before a run is recorded: the command exits 2.

    Only errors of this kind (and the settings', catalog's and gateway config's own) mean
    "bad input". Any other ``ValueError`` raised while a run goes on (a model's answer a
    schema refused, say) is a failed run, not a usage error.
    """
