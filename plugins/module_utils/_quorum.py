# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The KRaft metadata quorum as Kafka's own MetadataQuorumCommand reports it, and what a wait needs of it.

A controller answers no Metadata request, so no Kafka client library can bootstrap from one;
Kafka's tool can (--bootstrap-controller, KIP-919), on any Kafka from 3.7. The module
kafkaops.cluster.kafka_quorum_info runs it on a controller's host; the parsing and the decisions
here are pure functions, unit-tested on the tool's output.
"""

from __future__ import absolute_import, division, print_function


import re

TOOL_CLASS = "org.apache.kafka.tools.MetadataQuorumCommand"
# Statuses of the replication table: the first two are voters.
VOTER_STATUSES = ("Leader", "Follower")
OBSERVER_STATUS = "Observer"
WAIT_FOR = ("voter", "observer", "member")
COLUMNS = {"NodeId": "node_id", "DirectoryId": "directory_id", "LogEndOffset": "log_end_offset", "Lag": "lag",
           "Status": "status"}


# 'org.apache.kafka.common.errors.TimeoutException: Timed out ...', possibly after 'Caused by: '.
EXCEPTION_LINE = re.compile(r"^\s*(Caused by: )?((?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error)\b.*)$",
                            re.MULTILINE)


class QuorumOutputError(Exception):
    """The tool answered with something that is not the replication table."""


def describe_command(java, classpath, bootstrap_controllers, command_config=None, heap="128m"):
    """The command that prints the replication table of the quorum (describe --replication)."""
    # A tool that lives seconds: the client compiler alone and the serial collector take about half the CPU.
    command = [java, "-Xmx" + heap, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", classpath, TOOL_CLASS,
               "--bootstrap-controller", ",".join(bootstrap_controllers)]
    if command_config:
        command += ["--command-config", command_config]
    return command + ["describe", "--replication"]


def tool_error(text):
    """The line of a failed tool's output that says why: its last exception (the root cause), else its end."""
    causes = [match.group(2) for match in EXCEPTION_LINE.finditer(text or "")]
    if causes:
        return causes[-1].strip()[:400]
    return " ".join((text or "").split())[-400:] or "no output"


def parse_replication(text):
    """{leader_id, voters, observers} from the tool's replication table.

    voters and observers: lists of {node_id, directory_id, log_end_offset, lag, status}, in the order
    printed. Log lines before the header (a tool that logs to stdout) are skipped.
    """
    lines = [line for line in text.splitlines() if line.strip()]
    header_at = next((index for index, line in enumerate(lines) if line.split()[:1] == ["NodeId"]), None)
    if header_at is None:
        said = " ".join(text.split())[:300] or "nothing"
        raise QuorumOutputError("no replication table in the tool's output: %s" % said)
    header = [name.strip() for name in lines[header_at].split("\t")]
    missing = sorted(set(COLUMNS) - set(header))
    if missing:
        raise QuorumOutputError("the replication table lacks the columns %s (header: %s)" % (missing, header))
    quorum = dict(leader_id=None, voters=[], observers=[])
    for line in lines[header_at + 1:]:
        cells = [cell.strip() for cell in line.split("\t")]
        if len(cells) < len(header) - 1 or not re.match(r"^-?\d+$", cells[0]):
            raise QuorumOutputError("unexpected line in the replication table: %r" % line)
        row = dict((COLUMNS[name], cells[index]) for index, name in enumerate(header) if name in COLUMNS)
        for key in ("node_id", "log_end_offset", "lag"):
            row[key] = int(row[key])
        if row["status"] in VOTER_STATUSES:
            quorum["voters"].append(row)
            if row["status"] == "Leader":
                quorum["leader_id"] = row["node_id"]
        else:
            quorum["observers"].append(row)
    return quorum


def node_role(quorum, node_id):
    """'voter', 'observer' or None: where the node is in the quorum."""
    if any(row["node_id"] == node_id for row in quorum["voters"]):
        return "voter"
    if any(row["node_id"] == node_id for row in quorum["observers"]):
        return "observer"
    return None


def describe_wait(quorum, node_id, wait_for, max_lag):
    """What is still missing, or None when the quorum is where the wait wants it.

    Always: a leader. With node_id: the node is a voter (wait_for voter), an observer or a voter
    (observer: a controller that has not joined yet reads as an observer; member: either), and its lag
    is at most max_lag. Without node_id: every voter's lag is at most max_lag (the quorum can spare one).
    """
    if quorum["leader_id"] is None:
        return "the quorum has no leader"
    if node_id is None:
        behind = ["%d (lag %d)" % (row["node_id"], row["lag"]) for row in quorum["voters"] if row["lag"] > max_lag]
        return "voters behind the leader by more than %d records: %s" % (max_lag, ", ".join(behind)) if behind else None
    role = node_role(quorum, node_id)
    if role is None:
        return "node %d is neither a voter nor an observer (voters: %s)" % (
            node_id, [row["node_id"] for row in quorum["voters"]])
    if wait_for == "voter" and role != "voter":
        return "node %d is an observer, not a voter" % node_id
    rows = [row for row in quorum["voters"] + quorum["observers"] if row["node_id"] == node_id]
    lag = max(row["lag"] for row in rows)
    if lag > max_lag:
        return "node %d is %d records behind the leader (at most %d wanted)" % (node_id, lag, max_lag)
    return None
