# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""ZooKeeper's four-letter words over a plain socket (ruok, srvr, mntr), standard library only."""

from __future__ import absolute_import, division, print_function


import socket


class ZooKeeperWordError(Exception):
    """The node could not be reached, or refused the word (not in 4lw.commands.whitelist)."""


def send_word(host, port, word, timeout):
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.settimeout(timeout)
            sock.sendall(word.encode("ascii"))
            chunks = []
            while True:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                chunks.append(chunk)
    except OSError as error:
        raise ZooKeeperWordError("%s:%s: %s" % (host, port, error)) from error
    answer = b"".join(chunks).decode("utf-8", "replace")
    if "is not executed because it is not in the whitelist" in answer:
        raise ZooKeeperWordError("%s:%s refuses '%s': add it to 4lw.commands.whitelist" % (host, port, word))
    return answer


def parse_srvr(text):
    """srvr answers 'Key: value' lines; the ones we use are Mode and Zxid."""
    fields = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip()] = value.strip()
    return {"mode": fields.get("Mode"), "zxid": fields.get("Zxid"), "version": fields.get("Zookeeper version")}


def parse_mntr(text):
    """mntr answers tab-separated key/value lines; numbers become ints."""
    metrics = {}
    for line in text.splitlines():
        key, sep, value = line.partition("\t")
        if not sep:
            continue
        try:
            metrics[key] = int(value)
        except ValueError:
            metrics[key] = value
    return metrics
