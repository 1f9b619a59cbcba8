"""RLScheduler's training pipeline.

``train.py`` (the command), ``search.py`` (evolution strategies), ``checkpoint.py`` and
``select.py`` (the choice among seeds).

This package re-exports nothing.
"""
