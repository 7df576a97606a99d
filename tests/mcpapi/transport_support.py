"""The ping every transport test sends, and the JSON-RPC error of an answer."""

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def error_of(response) -> dict:
    body = response.json()
    assert body["jsonrpc"] == "2.0"
    return body["error"]
