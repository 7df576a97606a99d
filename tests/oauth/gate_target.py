"""A module only tests/oauth/test_gate.py imports, through oauth.gate on a first request."""


def answer(calls: list[str], value: str) -> str:
    calls.append(value)
    return value
