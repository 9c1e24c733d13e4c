"""How much logic the roles and playbooks write in Jinja, and a ceiling it must not pass (issue 34).

Counted: the lines of roles/**/*.yml and playbooks/**/*.yml that lie inside a Jinja expression
(`{{ ... }}`) or statement (`{% ... %}`) and apply a filter (`|`), a test (`is`, `is not`), an `if` or
a `for`. A plain variable reference (`{{ kafka_broker_port }}`) is not logic and is not counted; a
conditional written without braces (`when:`) is Ansible's own syntax and is not counted either. Logic
belongs in Python (filters and modules under plugins/, with unit tests): the ceiling only goes down.

Usage: python3 scripts/jinja-logic.py [--max N] [--top K] [ROOT]
Prints the total and the K files with the most such lines; with --max, exits 1 above N.
"""

import argparse
import glob
import os
import re
import sys

# A filter bar (not `||`), a test, an if or a for.
LOGIC = re.compile(r"(?<!\|)\|(?!\|)|\bis\s+(?:not\s+)?[A-Za-z_]|\bif\b|\bfor\b")
EXPRESSION = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)


def logic_lines(text):
    """The numbers (0-based) of the lines of text that hold Jinja logic."""
    found = set()
    for match in EXPRESSION.finditer(text):
        first = text.count("\n", 0, match.start())
        for offset, part in enumerate(match.group(0).split("\n")):
            if LOGIC.search(part):
                found.add(first + offset)
    return found


def count(root):
    """{path relative to root: number of lines with Jinja logic} for every YAML file of roles/ and playbooks/."""
    counts = {}
    for folder in ("roles", "playbooks"):
        for path in sorted(glob.glob(os.path.join(root, folder, "**", "*.yml"), recursive=True)):
            with open(path, encoding="utf-8") as handle:
                counts[os.path.relpath(path, root)] = len(logic_lines(handle.read()))
    return counts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=int, help="fail above this many lines")
    parser.add_argument("--top", type=int, default=5, help="list this many files, the most first")
    parser.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    options = parser.parse_args(argv)
    counts = count(options.root)
    total = sum(counts.values())
    print("Jinja logic in roles/ and playbooks/: %d lines" % total
          + ("" if options.max is None else " (ceiling %d)" % options.max))
    for path, lines in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:options.top]:
        print("  %4d  %s" % (lines, path))
    if options.max is not None and total > options.max:
        print("Above the ceiling by %d: move the new logic into a filter or module (plugins/), with unit tests."
              % (total - options.max))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
