"""The HTTP view of POST /mcp, thin (MCP Streamable HTTP, stateless, JSON replies).

A POST to /mcp: admission (mcpapi.admission: method, Origin, size, token, rate limit,
media types, bounded body) -> parse one JSON-RPC message -> protocol.answer (its era and
headers, notifications, dispatch with the caller's snapshot view) -> one Outcome, sent and
written to the access log.
"""

import logging
import time

from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from accounts.callers import Caller
from mcpapi import access_log, admission, protocol, refusals
from mcpapi.jsonrpc import MalformedMessage
from mcpapi.jsonrpc import parse_message as parse_jsonrpc
from mcpapi.refusals import Refusal

logger = logging.getLogger(__name__)


@csrf_exempt
def mcp(request: HttpRequest) -> HttpResponse:
    started = time.perf_counter()
    request_id = access_log.request_id(request)
    caller: Caller | None = None
    headers = admission.Headers(request)
    try:
        caller = admission.caller(request)
        admission.check_budget(caller)
        message = parse_jsonrpc(admission.body(request))
        outcome = protocol.answer(message, caller, headers)
    except Refusal as refusal:
        outcome = refusal.outcome()
    except MalformedMessage as error:
        outcome = protocol.malformed(error, headers).outcome()
    except DatabaseError as error:
        # Outside dispatch (whose own boundary answers -32603): a JSON 503, never a 500 page.
        logger.warning("The database could not be read for /mcp (%s); answering 503", type(error).__name__)
        outcome = refusals.unavailable().outcome()
    response = outcome.response()
    response["X-Request-ID"] = request_id
    access_log.write(request_id, caller, outcome, round((time.perf_counter() - started) * 1000, 2))
    return response
