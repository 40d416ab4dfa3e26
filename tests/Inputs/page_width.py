#!/usr/bin/env python3
"""Writes a copy of an HTML page that, once laid out, records how far its
content reaches past the window: <body data-overflow="PIXELS">. Rendered
by headless Chromium with --dump-dom at a given --window-size.

  page_width.py IN.html OUT.html
"""
import sys

page = open(sys.argv[1], encoding="utf-8").read()
probe = ("<script>document.body.setAttribute('data-overflow', "
         "String(Math.max(0, document.documentElement.scrollWidth - "
         "document.documentElement.clientWidth)));</script>")
assert "</body>" in page
open(sys.argv[2], "w", encoding="utf-8").write(page.replace("</body>", probe + "</body>"))
