"""Deliberately broken implementations: the suite must fail each on the clause naming its defect.

Shipped with the kit for ``agenttools selfcheck``, which runs the suite against every one of them
and prints the kill matrix (which clauses caught which defect).

Each module exposes ``create()`` (an in-process factory) and ``CAUGHT_BY``: the clause ids that
must fail. They patch one behaviour of the reference, so every other clause still passes.
An optional ``SUITE_MODULES`` (e.g. ``["test_write"]``) runs only those suite modules.
"""
