#!/usr/bin/python3
"""Renders a .gnn file highlighted by gnn.tmLanguage.json to a PNG.

  tools/editor/render-highlight.py FILE -o out.png [--scale 1]

Tokens come from the TextMate grammar (through tmgrammar.py), so the picture
shows what VS Code and other TextMate editors color; the palette is a light
theme keyed by scope prefix. Needs Pillow (Debian python3-pil, which
python3-matplotlib pulls in) and a monospace font (fonts-dejavu-core).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tmgrammar import Grammar  # noqa: E402

# Longest matching scope prefix wins.
PALETTE = {
    "comment": (106, 115, 125),
    "string": (3, 47, 98),
    "constant.numeric": (0, 92, 197),
    "constant.language": (0, 92, 197),
    "keyword.operator": (215, 58, 73),
    "keyword": (215, 58, 73),
    "support.type": (0, 92, 197),
    "support.function": (111, 66, 193),
    "entity.name": (111, 66, 193),
    "variable.other.property": (227, 98, 9),
    "variable": (227, 98, 9),
}
TEXT, BACKGROUND = (36, 41, 46), (255, 255, 255)
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"


def color(scope):
    best = None
    for prefix, rgb in PALETTE.items():
        if scope.startswith(prefix) and (best is None or len(prefix) > len(best)):
            best = prefix
    return PALETTE[best] if best else TEXT


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--size", type=int, default=13, help="font size")
    args = parser.parse_args()
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        sys.exit("render-highlight: error: needs Pillow (apt-get install python3-pil)")
    grammar = Grammar(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                   "gnn.tmLanguage.json"))
    try:
        text = open(args.file, encoding="utf-8").read().expandtabs(4)
    except OSError as e:
        sys.exit("render-highlight: error: %s" % e)
    lines = text.rstrip("\n").split("\n")
    font = ImageFont.truetype(FONT, args.size)
    cw = font.getlength("M")
    lh = int(args.size * 1.45)
    pad = 12
    width = int(pad * 2 + cw * max(len(l) for l in lines))
    image = Image.new("RGB", (width, pad * 2 + lh * len(lines)), BACKGROUND)
    draw = ImageDraw.Draw(image)
    colors = {}  # (line, column) -> color of the token starting there
    spans = []
    for ln, col, scope, tok in grammar.tokenize(text):
        spans.append((ln, col, len(tok), color(scope)))
    for ln, line in enumerate(lines, 1):
        rgb = [TEXT] * len(line)
        for sl, col, n, c in spans:
            if sl == ln:
                for i in range(col - 1, min(col - 1 + n, len(line))):
                    rgb[i] = c
        y = pad + (ln - 1) * lh
        for i, ch in enumerate(line):
            if ch != " ":
                draw.text((pad + i * cw, y), ch, fill=rgb[i], font=font)
    image.save(args.output, optimize=True)
    print("wrote %s (%dx%d)" % (args.output, image.width, image.height))


if __name__ == "__main__":
    main()
