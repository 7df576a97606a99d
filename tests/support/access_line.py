"""The fields of one access line (mcpapi.access_log), as the tests of the line and of its
formatter both write them."""

ACCESS_FIELDS = {
    "request_id": "0123456789abcdef0123456789abcdef",
    "caller": "token:env",
    "rpc_method": "tools/call",
    "tool": "skills_get",
    "status": 200,
    "rpc_error": None,
    "duration_ms": 0.42,
    "registry_sha": "0" * 40,
    "era": "legacy",
}
