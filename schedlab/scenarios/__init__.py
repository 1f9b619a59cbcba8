"""Scenarios shipped with the package: the ones the ``schedlab`` command runs itself.

``trace_replay`` is what ``schedlab replay`` runs (and what ``scenarios/trace_replay.py``
extends). The scenarios of the seed papers live as scripts in the repository's
``scenarios/`` folder; they follow the same shape (``Config``, ``cells``, ``build``,
``measure``).
"""
