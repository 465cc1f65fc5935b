"""Adapters: how the kit reaches an implementation (in-process Python, or a stdio child)."""

from pytest_agenttools.connect.base import Adapter, AdapterError, PendingCall, ProtocolError

__all__ = ["Adapter", "AdapterError", "PendingCall", "ProtocolError"]
