"""HTTP views: thin. /healthz here; POST /mcp is added by the MCP endpoint work."""

from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from catalog.index import active_snapshot


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    ref = active_snapshot()
    if ref is None:
        return JsonResponse({"status": "empty", "registry_sha": None, "published_at": None}, status=503)
    return JsonResponse(
        {"status": "ok", "registry_sha": ref.sha, "published_at": ref.published_at.isoformat()}
    )
