"""Reading the landing page as a person sees it."""

from html.parser import HTMLParser


class _PreText(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.blocks: list[str] = []
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "pre":
            self._depth += 1
            self.blocks.append("")

    def handle_endtag(self, tag: str) -> None:
        self._depth -= tag == "pre"

    def handle_data(self, data: str) -> None:
        if self._depth:
            self.blocks[-1] += data


def code_blocks(html: str) -> list[str]:
    """The text of every <pre> as a person copies it (markup gone, entities decoded)."""
    parser = _PreText()
    parser.feed(html)
    return parser.blocks
