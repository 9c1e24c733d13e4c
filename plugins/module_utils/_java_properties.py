# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Java properties files (server.properties, meta.properties) read as key -> value."""

from __future__ import absolute_import, division, print_function


def parse_java_properties(text):
    """key -> value of a Java properties file's text (comments skipped; no line continuations)."""
    found = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#!":
            continue
        separator = min([index for index in (line.find("="), line.find(":")) if index >= 0] or [len(line)])
        found[line[:separator].strip()] = line[separator + 1:].strip()
    return found
