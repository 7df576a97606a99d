"""A client of MCP revision 2026-07-28 over django.test.Client: every request carries the
per-request `_meta` and the mirrored headers, unless a test says otherwise."""

import itertools
import json
from typing import Any

from django.http import HttpResponse
from django.test import Client

from tests.mcpapi.conftest import READ_TOKEN

MODERN = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
META = {
    VERSION_KEY: MODERN,
    CAPABILITIES_KEY: {},
    CLIENT_INFO_KEY: {"name": "tests", "version": "1"},
}
_NAME_BEARING = {"tools/call": "name", "resources/read": "uri"}
_DEFAULT = object()


class ModernMcp:
    """POSTs 2026-07-28 requests to /mcp. `headers` overrides the computed ones (a value of
    None drops that header); `meta` replaces params._meta (None: send none)."""

    def __init__(self, token: str = READ_TOKEN) -> None:
        self.http = Client()
        self.token = token
        self._ids = itertools.count(1)
        self.last_id: int | None = None

    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        meta: Any = _DEFAULT,
        headers: dict[str, str | None] | None = None,
        notification: bool = False,
    ) -> HttpResponse:
        body_params = dict(params or {})
        if meta is _DEFAULT:
            body_params["_meta"] = META
        elif meta is not None:
            body_params["_meta"] = meta
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": body_params}
        if not notification:
            self.last_id = next(self._ids)
            message["id"] = self.last_id
        computed: dict[str, str | None] = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
        key = _NAME_BEARING.get(method)
        if key is not None and isinstance(body_params.get(key), str):
            computed["Mcp-Name"] = body_params[key]
        computed.update(headers or {})
        sent = {name: value for name, value in computed.items() if value is not None}
        sent["Accept"] = "application/json, text/event-stream"
        sent["Authorization"] = f"Bearer {self.token}"
        return self.http.post("/mcp", data=json.dumps(message), content_type="application/json", headers=sent)

    def result(self, method: str, params: dict[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
        """A successful result, which carries resultType and the server's identity."""
        response = self.send(method, params, **kwargs)
        assert response.status_code == 200, (response.status_code, response.content)
        reply = response.json()
        assert reply["id"] == self.last_id
        assert "error" not in reply, reply
        result = reply["result"]
        assert result["resultType"] == "complete", result
        assert result["_meta"][SERVER_INFO_KEY]["name"] == "skills-registry"
        return result

    def error(
        self, method: str, params: dict[str, Any] | None = None, *, status: int, **kwargs: Any
    ) -> dict[str, Any]:
        """The error of a refused request, sent with `status` and echoing the request id."""
        response = self.send(method, params, **kwargs)
        assert response.status_code == status, (response.status_code, response.content)
        assert response["Content-Type"] == "application/json"
        reply = response.json()
        assert set(reply) == {"jsonrpc", "id", "error"}, reply
        assert reply["id"] == self.last_id
        return reply["error"]

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """A CallToolResult; its text content mirrors structuredContent."""
        result = self.result("tools/call", {"name": tool, "arguments": arguments})
        [content] = result["content"]
        assert json.loads(content["text"]) == result["structuredContent"]
        return result
