"""Who is calling, and what they may see. Knows nothing of MCP."""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Caller:
    identity: str  # "token:<name>" or "github:<login>": never the token itself
    zdr_cleared: bool
