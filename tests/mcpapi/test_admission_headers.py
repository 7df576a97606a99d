"""mcpapi.admission.Headers: a request's headers by name, case-insensitive, read from the WSGI
environ; each name's environ key is made once and kept, within a bound."""

from django.test import RequestFactory

from mcpapi import admission


def test_a_header_is_found_by_any_spelling_of_its_name_and_the_kept_keys_stay_bounded() -> None:
    names = [f"X-Probe-{number}" for number in range(3 * admission._ENVIRON_KEYS_KEPT)]
    request = RequestFactory().post(
        "/mcp", headers={name: f"value {number}" for number, name in enumerate(names)}
    )
    headers = admission.Headers(request)
    for _ in range(2):  # made, then (for the names kept) found
        for number, name in enumerate(names):
            assert (
                headers.get(name)
                == headers.get(name.upper())
                == headers.get(name.lower())
                == f"value {number}"
            )
    assert headers.get("MCP-Protocol-Version") is None
    assert headers.get("MCP-Protocol-Version", "absent") == "absent"
    assert len(admission._ENVIRON_KEYS) <= admission._ENVIRON_KEYS_KEPT
