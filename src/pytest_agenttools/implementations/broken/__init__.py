"""Deliberately broken implementations: the suite must fail each on the clause naming its defect.

Shipped with the kit for ``agenttools selfcheck``, which runs the suite against every one of them
and prints the kill matrix (which clauses caught which defect).

Each module changes one behaviour of the reference, so every other clause still passes, and
ends in one value, ``BROKEN = Broken(...)`` (``_table.py``): its ``create`` (an in-process
factory), the clause ids that must fail (``caught_by``) and, optionally, the suite modules worth
running, extra pytest arguments for its run (a short ``--agenttools-call-timeout`` for a defect
that shows as a missed deadline) and the seconds its run waits. A broken implementation is the
reference with one part swapped through its constructor (an operations port, a tool's ``run``,
the ``present`` hook, the mutation queue); no module is patched. A broken server
(``served=True``, see ``_served.py``) has its defect in the stdio protocol layer (how lines are
read, which messages get answers, when the process ends): selfcheck runs it as ``python -m
pytest_agenttools.implementations.broken.NAME`` over stdio, which is the only way to reach that
layer.
"""
