"""One view: a POST answered with a fixed ~2 KB JSON body, serialised on every request."""

from django.http import HttpRequest, JsonResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

PAYLOAD = {
    "jsonrpc": "2.0",
    "id": 1,
    "result": {
        "items": [
            {
                "id": f"ceiling-item-{number:02d}",
                "name": f"Ceiling item {number}",
                "description": "A fixed record, about the size of one skill's metadata in a list.",
                "version": "1.0.0",
            }
            for number in range(13)
        ]
    },
}


@csrf_exempt
@require_POST
def ceiling(request: HttpRequest) -> JsonResponse:
    return JsonResponse(PAYLOAD)


urlpatterns = [path("mcp", ceiling), path("", ceiling)]
