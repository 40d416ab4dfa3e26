#!/usr/bin/env python3
"""Checks the user documentation against the binary and itself:

- every --help (aimodel's and each command's) ends with a "Reference:" line,
  and every docs/*.md page a help names exists; each command's names
  docs/COMMAND.md;
- every rule `aimodel audit --list-rules` prints has its row in
  docs/rules.md, with the same name and severity, and the table holds no
  other rule;
- every relative link of README.md and docs/*.md leads to a file of the
  source tree, and a #fragment to a heading of that page (GitHub's anchors);
  the README links every docs/*.md page.

  check_docs.py SOURCE_DIR AIMODEL
"""
import os
import re
import subprocess
import sys

src, aimodel = sys.argv[1], sys.argv[2]
errors = []


def run(*args):
    return subprocess.run([aimodel, *args], check=True, capture_output=True,
                          text=True).stdout


def read(path):
    with open(os.path.join(src, path), encoding="utf-8") as f:
        return f.read()


# --help: the reference each names.
top = run("--help")
commands = []
listing = top.split("\nSubcommands:\n", 1)[1]
for line in listing.split("\n"):
    match = re.match(r"^  ([a-z][a-z-]*)\s{2,}", line)
    if match:
        commands.append(match.group(1))
if not commands:
    errors.append("aimodel --help lists no command")
helps = 0
for command in [None] + commands:
    text = run(command, "--help") if command else top
    name = "aimodel " + (command + " " if command else "") + "--help"
    lines = [l for l in text.split("\n") if l.strip()]
    if not lines or not lines[-1].startswith("Reference: "):
        errors.append(f"{name} does not end with a Reference: line")
        continue
    last = lines[-1]
    pages = re.findall(r"(?<![\w/])docs/[\w-]+\.md", last)
    if command and f"docs/{command}.md" not in pages:
        errors.append(f"{name} names {pages}, not docs/{command}.md")
    if not command and "README.md" not in last:
        errors.append(f"{name} does not name README.md")
    for page in pages:
        if not os.path.isfile(os.path.join(src, page)):
            errors.append(f"{name} names {page}, which does not exist")
    helps += 1

# Rules: the binary's catalogue against docs/rules.md's table.
listed = {}
for line in run("audit", "--list-rules").split("\n"):
    match = re.match(r"^(AIM\d{3})\s+(\S+)\s+\((error|warning|info)\)", line)
    if match:
        listed[match.group(1)] = (match.group(2), match.group(3))
if len(listed) < 10:
    errors.append(f"audit --list-rules lists {len(listed)} rules")
rows = {}
for line in read("docs/rules.md").split("\n"):
    match = re.match(r"^\| (AIM\d{3}) \| ([^|]+?) \| ([^|]+?) \|", line)
    if match:
        if match.group(1) in rows:
            errors.append(f"docs/rules.md: {match.group(1)} has two rows")
        rows[match.group(1)] = (match.group(2), match.group(3))
for rule, fact in listed.items():
    if rule not in rows:
        errors.append(f"docs/rules.md has no row for {rule} {fact[0]}")
    elif rows[rule] != fact:
        errors.append(f"docs/rules.md: {rule} is {rows[rule]}, --list-rules says {fact}")
for rule in rows:
    if rule not in listed:
        errors.append(f"docs/rules.md has {rule}, which --list-rules does not list")


# Links.
def slug(heading):
    text = re.sub(r"[`*_]", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text):
    seen = {}
    result = set()
    fenced = False
    for line in text.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"^#{1,6} ", line):
            base = slug(line.lstrip("#"))
            n = seen.get(base, 0)
            seen[base] = n + 1
            result.add(base if n == 0 else f"{base}-{n}")
    return result


def links(text):
    fenced = False
    for number, line in enumerate(text.split("\n"), 1):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        line = re.sub(r"`[^`]*`", "", line)
        yield from ((number, target) for target in
                    re.findall(r"\]\(([^)\s]+)\)", line))


# A link may wrap: join each paragraph's lines before looking.
def joined(text):
    return re.sub(r"(?<=\S)\n(?=[^\n#|`\-\s])", " ", text)


pages = ["README.md"] + sorted(
    "docs/" + f for f in os.listdir(os.path.join(src, "docs")) if f.endswith(".md"))
checked = 0
readme_targets = set()
for page in pages:
    text = read(page)
    folder = os.path.dirname(page)
    for number, target in links(joined(text)):
        if re.match(r"^[a-z]+:", target):
            continue  # a URL
        path, _, fragment = target.partition("#")
        resolved = os.path.normpath(os.path.join(folder, path)) if path else page
        if resolved.startswith(".."):
            errors.append(f"{page}: link {target} leaves the source tree")
            continue
        if not os.path.exists(os.path.join(src, resolved)):
            errors.append(f"{page}: link {target}: no {resolved}")
            continue
        if fragment and fragment not in anchors(read(resolved)):
            errors.append(f"{page}: link {target}: {resolved} has no heading #{fragment}")
        if page == "README.md":
            readme_targets.add(resolved)
        checked += 1
for page in pages[1:]:
    if page not in readme_targets:
        errors.append(f"README.md does not link {page}")

if errors:
    sys.exit("\n".join(errors))
print(f"docs ok: {helps} helps name their reference, {len(listed)} rules in "
      f"docs/rules.md, {checked} links of {len(pages)} pages resolve")
