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
WIDEST_LINE = 1000


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
            message = line
            index += 1
            while index < len(lines) and lines[index].startswith(" ") and lines[index].strip():
                message = join_wrapped(message, lines[index - 1], lines[index])
                index += 1
            ignored = index < len(lines) and lines[index].strip() == "...ignoring"
            if not ignored:
                failures.append("%s %s" % (task, message))
            continue
        index += 1
    return failures


# pytest's own words for a run that did not pass: a failed or erroring test, a file that would not
# collect, a conftest that would not import, a crash inside pytest, a test stopped by its timeout, and
# the closing tally (which is all there is when, say, no test was collected).
PYTEST_LINES = re.compile(
    r"^(FAILED|ERROR) \S+::"
    r"|^ERROR \S+\.py( - .*)?$"
    r"|^ImportError while loading conftest"
    r"|^INTERNALERROR> \w*(Error|Exception)\b"
    r"|^\++ Timeout \++"
    r"|^=+ .*\b(failed|errors?|no tests ran|interrupted)\b")
# Molecule prints the verifier's output wrapped to its console's width: a word that does not fit goes
# to the next line, indented by two spaces, and a word longer than the line (a test's id) is cut
# there. So "FAILED" may stand alone with the test's id below it, cut in two. Without a terminal the
# console is 80 columns wide, 76 inside Molecule's frame.
WRAP_WIDTH = 76
CONTINUED = re.compile(r"^  +\S")
STARTS = re.compile(r"^(FAILED|ERROR|INTERNALERROR>|=+ )")


def join_wrapped(text, previous, line):
    """text with the continuation line added: after a space, or without one where previous, the physical
    line before it, filled the whole width (a word cut there)."""
    return text + ("" if len(previous) >= WRAP_WIDTH - 1 else " ") + line.strip()


def unwrapped(lines):
    """The lines with each continuation joined to the FAILED/ERROR/tally line it belongs to."""
    joined, previous = [], ""
    for line in lines:
        if joined and CONTINUED.match(line) and STARTS.match(joined[-1]):
            joined[-1] = join_wrapped(joined[-1], previous, line)
        else:
            joined.append(line)
        previous = line
    return joined


def pytest_failures(lines):
    return [line for line in unwrapped(lines) if PYTEST_LINES.search(line)]


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
