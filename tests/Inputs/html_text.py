"""The visible text of HTML: one line per block element, table cells joined
with " | ", style and script contents left out; the tags met are kept in
`tags`. Run as a script, prints the text of a DOM that Chromium dumped and
fails on one with no <body> (Chromium did not render the page).

  html_text.py DOM.html
"""
import html.parser
import sys

BLOCKS = {"p", "h1", "h2", "h3", "h4", "tr", "div", "title", "li"}


class Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.lines, self.line, self.cells = [], "", None
        self.skip = 0
        self.body = False
        self.tags = set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        if tag == "body":
            self.body = True
        if tag in ("style", "script", "head"):
            self.skip += 1
        elif tag == "tr":
            self.flush()
            self.cells = []
        elif tag in ("td", "th") and self.cells is not None:
            self.cells.append("")
        elif tag in BLOCKS:
            self.flush()

    def handle_endtag(self, tag):
        if tag in ("style", "script", "head"):
            self.skip -= 1
        elif tag == "tr" and self.cells is not None:
            self.lines.append(" | ".join(c.strip() for c in self.cells))
            self.cells = None
        elif tag in BLOCKS:
            self.flush()

    def handle_data(self, data):
        if self.skip:
            return
        if self.cells:
            self.cells[-1] += data
        else:
            self.line += data

    def flush(self):
        if self.line.strip():
            self.lines.append(" ".join(self.line.split()))
        self.line = ""


def visible_text(html_text):
    """(lines, tags met) of an HTML document or fragment."""
    parser = Text()
    parser.feed(html_text)
    parser.flush()
    return parser


if __name__ == "__main__":
    parser = visible_text(open(sys.argv[1], encoding="utf-8").read())
    if not parser.body:
        sys.exit("no <body> in the dumped DOM")
    print("\n".join(parser.lines))
