#!/usr/bin/env python3
"""Renders a Markdown report as GitHub does (cmark-gfm with the table,
autolink, strikethrough and tagfilter extensions) and prints its visible
text (tests/Inputs/html_text.py). Fails when the rendered HTML holds a tag
the reports never write themselves (a link, an image, emphasis, a heading
above h3, raw HTML...): markup injected through a file name or message.

  render_markdown.py REPORT.md
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "Inputs"))
from html_text import visible_text  # noqa: E402

ALLOWED = {"h3", "h4", "p", "strong", "table", "thead", "tbody", "tr", "th",
           "td", "code", "br", "ul", "li"}

markdown = open(sys.argv[1], encoding="utf-8").read()
rendered = subprocess.run(
    ["cmark-gfm", "-e", "table", "-e", "autolink", "-e", "strikethrough",
     "-e", "tagfilter"], input=markdown, capture_output=True, text=True,
    check=True).stdout
text = visible_text(rendered)
print("\n".join(text.lines))
bad = text.tags - ALLOWED
if bad:
    sys.exit("markup that is not the report's own: " + ", ".join(sorted(bad)))
