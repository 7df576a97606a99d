"""The screenshot check's PNG decoder reads back what a PNG encoder wrote, every filter type."""

import struct
import zlib

import pytest

from tests.landing import png


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _filtered(kind: int, line: bytes, previous: bytes, bpp: int) -> bytes:
    out = bytearray()
    for i, value in enumerate(line):
        left = line[i - bpp] if i >= bpp else 0
        up = previous[i]
        corner = previous[i - bpp] if i >= bpp else 0
        predictor = [0, left, up, (left + up) // 2, png._paeth(left, up, corner)][kind]
        out.append((value - predictor) & 0xFF)
    return bytes(out)


def encode(rows: list[bytes], width: int, colour: int, filters: list[int]) -> bytes:
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    raw, previous = bytearray(), bytes(width * bpp)
    for row, kind in zip(rows, filters, strict=True):
        raw += bytes([kind]) + _filtered(kind, row, previous, bpp)
        previous = row
    header = struct.pack(">IIBBBBB", width, len(rows), 8, colour, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(raw))
        + _chunk(b"IEND", b"")
    )


@pytest.mark.parametrize("colour", [0, 2, 6])
def test_every_filter_type_decodes_to_the_original_pixels(colour: int) -> None:
    width, bpp = 7, {0: 1, 2: 3, 6: 4}[colour]
    rows = [
        bytes((x * 37 + y * 91 + c * 13) % 256 for x in range(width) for c in range(bpp)) for y in range(5)
    ]
    image = png.decode(encode(rows, width, colour, [0, 1, 2, 3, 4]))
    assert (image.width, image.height, image.channels) == (width, 5, bpp)
    assert image.rows == rows
    assert image.pixels()[width + 1] == tuple(rows[1][bpp : 2 * bpp])


def test_a_damaged_file_is_refused() -> None:
    good = encode([b"\x00\x01\x02"], 1, 2, [0])
    with pytest.raises(ValueError, match="CRC"):
        png.decode(good[:20] + bytes([good[20] ^ 1]) + good[21:])
    with pytest.raises(ValueError, match="not a PNG"):
        png.decode(b"GIF89a")
