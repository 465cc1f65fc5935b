"""How each alternative presents one tool's results: the rewrites, dialects and ports its
style module (``alternatives/<style>.py``) picks, one module per tool."""
