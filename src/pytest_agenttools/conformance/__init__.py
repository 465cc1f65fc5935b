"""The conformance suite. It reaches the implementation only through the tool client fixture
and checks effects on disk through the workspace, never through the implementation's own read."""
