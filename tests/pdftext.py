"""The text of each page of a PDF Chromium printed (`Page.printToPDF`), for the print tests:
no PDF library is installed, and Chromium's PDFs are simple (Flate streams, fonts with a
ToUnicode map, text shown as hex glyph ids with `Tj`/`TJ`)."""

from __future__ import annotations

import re
import zlib


def _objects(pdf: bytes) -> dict[int, tuple[bytes, bytes]]:
    """Each object's dictionary and its stream (decompressed), read by the stream's /Length
    (compressed bytes may hold "endobj" or "endstream")."""
    out: dict[int, tuple[bytes, bytes]] = {}
    at = 0
    while (m := re.compile(rb"(\d+) 0 obj\b").search(pdf, at)) is not None:
        end = pdf.find(b"endobj", m.end())
        start = pdf.find(b"stream", m.end())
        if start == -1 or start > end:
            out[int(m.group(1))] = (pdf[m.end():end], b"")
            at = end
            continue
        head = pdf[m.end():start]
        size = re.search(rb"/Length (\d+)(?! \d+ R)", head)
        body = start + len(b"stream") + (2 if pdf[start + 6:start + 8] == b"\r\n" else 1)
        stop = body + int(size.group(1)) if size else pdf.find(b"endstream", body)
        data = pdf[body:stop]
        out[int(m.group(1))] = (head, zlib.decompress(data) if b"FlateDecode" in head else data)
        at = pdf.find(b"endobj", stop)
    return out


def _unicode_map(cmap: bytes) -> dict[int, str]:
    table: dict[int, str] = {}
    for block in re.findall(rb"beginbfchar(.*?)endbfchar", cmap, re.S):
        for glyph, text in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", block):
            table[int(glyph, 16)] = bytes.fromhex(text.decode()).decode("utf-16-be", "replace")
    for block in re.findall(rb"beginbfrange(.*?)endbfrange", cmap, re.S):
        for lo, hi, start in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>",
                                        block):
            for i, glyph in enumerate(range(int(lo, 16), int(hi, 16) + 1)):
                table[glyph] = chr(int(start, 16) + i)
    return table


def pdf_pages(pdf: bytes) -> list[str]:
    """Each page's text in the order it is drawn, a line break after each text object."""
    objs = _objects(pdf)
    fonts = {n: _unicode_map(objs[int(m.group(1))][1]) for n, (head, _) in objs.items()
             if (m := re.search(rb"/ToUnicode (\d+) 0 R", head))}
    pages = []
    for body, _ in objs.values():
        if not re.search(rb"/Type\s*/Page\b", body):
            continue
        resources = body
        if (ref := re.search(rb"/Resources (\d+) 0 R", body)):
            resources = objs[int(ref.group(1))][0]
        names = re.search(rb"/Font\s*<<(.*?)>>", resources, re.S)
        by_name = {name: fonts.get(int(n), {}) for name, n in
                   re.findall(rb"/(\w+) (\d+) 0 R", names.group(1))} if names else {}
        contents = re.search(rb"/Contents (\d+) 0 R", body)
        drawn = objs[int(contents.group(1))][1] if contents else b""
        font: dict[int, str] = {}
        out = []
        for op in re.finditer(rb"/(\w+) [\d.]+ Tf|\[(.*?)\]\s*TJ|<([0-9A-Fa-f]*)>\s*Tj|(ET)",
                              drawn, re.S):
            if op.group(1):
                font = by_name.get(op.group(1), {})
            elif op.group(4):
                out.append("\n")
            else:
                runs = re.findall(rb"<([0-9A-Fa-f]*)>", op.group(2)) if op.group(2) is not None \
                    else [op.group(3)]
                out += [font.get(int(h[i:i + 4], 16), "?") for h in runs for i in range(0, len(h), 4)]
        pages.append("".join(out))
    return pages
