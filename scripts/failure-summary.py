"""Print what failed in a Molecule run's log, briefly, so that it is the last thing a reader sees.

Molecule tears the scenario down after a failure and prints its recap, which pushes the failed task
or test far up a long log; a CI page that shows only the tail would then say "Verifier tests failed"
and nothing else. This reads the saved log and prints the failed Ansible tasks (not those whose
errors were ignored) and pytest's short summary lines.

Usage: python scripts/failure-summary.py LOG
"""

import re
import sys

ESCAPES = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# Molecule frames each step's output with a box-drawing bar (and spaces) at the start of the line.
FRAME = re.compile(r"^\s*[\u2502\u250c\u2514] ?")
MOST_LINES = 40
WIDEST_LINE = 400


def plain_lines(text):
    return [FRAME.sub("", ESCAPES.sub("", line)).rstrip() for line in text.splitlines()]


def ansible_failures(lines):
    """Each failed task as its TASK line and the fatal message (joined across wrapped lines)."""
    failures, task = [], ""
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("TASK [") or line.startswith("RUNNING HANDLER ["):
            task = line.split("]")[0] + "]"
        if line.startswith("fatal: [") or line.startswith("failed: ["):
            message = [line]
            index += 1
            while index < len(lines) and lines[index].startswith(" ") and lines[index].strip():
                message.append(lines[index].strip())
                index += 1
            ignored = index < len(lines) and lines[index].strip() == "...ignoring"
            if not ignored:
                failures.append("%s %s" % (task, " ".join(message)))
            continue
        index += 1
    return failures


def pytest_failures(lines):
    return [line for line in lines if re.match(r"^(FAILED|ERROR) \S+::", line)]


def main(path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        lines = plain_lines(handle.read())
    found = ansible_failures(lines) + pytest_failures(lines)
    print("=== what failed (from %s) ===" % path)
    if not found:
        print("no failed task or test found in the log; see the lines above")
    for line in found[-MOST_LINES:]:
        print(line if len(line) <= WIDEST_LINE else line[:WIDEST_LINE] + " ...")


if __name__ == "__main__":
    main(sys.argv[1])
