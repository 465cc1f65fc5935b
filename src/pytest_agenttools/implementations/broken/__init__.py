"""Deliberately broken implementations: the suite must fail each on the clause naming its defect.

Shipped with the kit for ``agenttools selfcheck``, which runs the suite against every one of them
and prints the kill matrix (which clauses caught which defect).

Each module exposes ``create()`` (an in-process factory) and ``CAUGHT_BY``: the clause ids that
must fail. Each changes one behaviour of the reference, so every other clause still passes.
An optional ``SUITE_MODULES`` (e.g. ``["test_write"]``) runs only those suite modules, and an
optional ``PYTEST_ARGS`` adds options to that run (a short ``--agenttools-call-timeout`` for a
defect that shows as a missed deadline). A broken implementation is the reference with one part
swapped through its constructor (an operations port, a tool's ``run``, the ``present`` hook, the
mutation queue); no module is patched. A broken server (``SERVED = True``, see ``_served.py``)
has its defect in the stdio protocol layer (how lines are read, which messages get answers,
when the process ends): selfcheck runs it as ``python -m
pytest_agenttools.implementations.broken.NAME`` over
stdio, which is the only way to reach that layer.
"""
