"""The one error of the contract, in a module of its own: the observation parsers raise it and
the contract types (which parse observations) re-export it, so neither imports the other back."""


class ContractViolation(Exception):
    """An implementation answered with something the contract does not allow."""
