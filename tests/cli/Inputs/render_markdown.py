#!/usr/bin/env python3
"""Renders a Markdown report as GitHub does (cmark-gfm with the table,
autolink, strikethrough and tagfilter extensions) and prints its visible
text: one line per block, table cells joined with " | ". Fails when the
rendered HTML holds a tag the reports never write themselves (a link, an
image, emphasis, a heading above h3, raw HTML...): markup injected through
a file name or message.

  render_markdown.py REPORT.md
"""
import html.parser
import subprocess
import sys

ALLOWED = {"h3", "h4", "p", "strong", "table", "thead", "tbody", "tr", "th",
           "td", "code", "br"}
BLOCKS = {"h3", "h4", "p", "tr", "li"}


class Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.lines, self.line, self.cells = [], "", None
        self.bad = []

    def handle_starttag(self, tag, attrs):
        if tag not in ALLOWED:
            self.bad.append(tag)
        if tag == "tr":
            self.flush()
            self.cells = []
        elif tag in ("td", "th") and self.cells is not None:
            self.cells.append("")
        elif tag in BLOCKS:
            self.flush()

    def handle_endtag(self, tag):
        if tag == "tr":
            self.lines.append(" | ".join(c.strip() for c in self.cells))
            self.cells = None
        elif tag in BLOCKS:
            self.flush()

    def handle_data(self, data):
        if self.cells is not None and self.cells:
            self.cells[-1] += data
        else:
            self.line += data

    def flush(self):
        if self.line.strip():
            self.lines.append(" ".join(self.line.split()))
        self.line = ""


markdown = open(sys.argv[1], encoding="utf-8").read()
rendered = subprocess.run(
    ["cmark-gfm", "-e", "table", "-e", "autolink", "-e", "strikethrough",
     "-e", "tagfilter"], input=markdown, capture_output=True, text=True,
    check=True).stdout
text = Text()
text.feed(rendered)
text.flush()
print("\n".join(text.lines))
if text.bad:
    sys.exit("markup that is not the report's own: " + ", ".join(sorted(set(text.bad))))
