"""What answering one POST to /mcp came to: the HTTP answer, and what the access log says
about it. Dispatch and every refusal return one; the view sends it and logs it."""

from dataclasses import dataclass

from django.http import HttpResponse

JSON = "application/json"


@dataclass(slots=True)  # made on every request: a frozen dataclass costs a setattr call a field
class Outcome:
    status: int
    body: bytes | None  # None: no body at all (202 for a notification)
    headers: tuple[tuple[str, str], ...] = ()
    rpc_method: str | None = None
    tool: str | None = None
    rpc_error: int | None = None
    registry_sha: str | None = None  # the snapshot the answer was read from
    era: str | None = None  # the protocol era the message spoke (mcpapi.eras), once known

    def response(self) -> HttpResponse:
        if self.body is None:
            response = HttpResponse(status=self.status)
        else:
            response = HttpResponse(self.body, status=self.status, content_type=JSON)
        for name, value in self.headers:
            response[name] = value
        return response
