"""How large one answer may be for a real client to hand it to its model whole
(docs/reference.md#answer-sizes): the one home of that figure.

Claude Code refuses an MCP tool answer above MAX_MCP_OUTPUT_TOKENS, 25,000 tokens unless the
user raises it; Claude Code and Codex hand the model structuredContent serialized, one copy
(OpenCode hands it the text content, the same JSON). No tokenizer of either model is
available offline, so tokens are estimated from the UTF-8 bytes of that JSON at three bytes
a token: JSON of English prose tokenizes at about four, hex digests and CJK text nearer
three, so the estimate errs on the large side.
"""

import math
from typing import Any

from mcpapi.jsonrpc import dumps_text

ANSWER_TOKENS = 25_000  # Claude Code's default MAX_MCP_OUTPUT_TOKENS
BYTES_PER_TOKEN = 3
ANSWER_BYTES = ANSWER_TOKENS * BYTES_PER_TOKEN
# What the default page sizes are chosen for (docs/reference.md#answer-sizes): Claude Code moves
# an answer of more characters into a file the model reads back, and OpenCode cuts at 50 KiB.
DEFAULT_PAGE_CHARS = 50_000
# What a list page's items may hold: the answer less its other fields (the registry's three,
# next_cursor of at most 512 characters, the keys), rounded up generously.
PAGE_ITEM_BYTES = ANSWER_BYTES - 1024


def model_text(seen: Any) -> str:
    """The JSON a client hands its model for a result: structuredContent (or, for a protocol
    method, the result), compact, characters as they are."""
    return dumps_text(seen)


def utf8_size(text: str) -> int:
    """The UTF-8 bytes of `text`, without encoding it when it is ASCII (str.isascii is O(1))."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "backslashreplace"))


def estimated_tokens(json_text: str) -> int:
    return math.ceil(utf8_size(json_text) / BYTES_PER_TOKEN)
