# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The module kafka_consumer_group's logic without the network: its options, a reset's target offsets, the lag.

A partition is a (topic, partition number) tuple and an offset an int; the reads that give the
committed offsets and each partition's earliest, latest and by-timestamp offsets are in
_consumer_groups.py. Nothing here imports Ansible or kafka-python, so it is tested with plain data.
"""

from __future__ import absolute_import, division, print_function


import datetime
import re

from ansible_collections.kafkaops.cluster.plugins.module_utils._input_errors import InputError

RESETS = ("earliest", "latest", "timestamp", "offset", "shift")
# The option that gives the value of each reset that takes one.
RESET_VALUE_OPTIONS = dict(timestamp="reset_timestamp", offset="reset_offset", shift="reset_shift")

_MILLISECONDS = re.compile(r"^\d+$")
_ISO_8601 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?\s*(Z|z|[+-]\d{2}:?\d{2})?$")
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone(datetime.timedelta(0)))


class GroupSpecError(InputError):
    """An option of kafka_consumer_group cannot work; field names the option."""


def parse_timestamp(value):
    """Milliseconds since the epoch from a number of them or an ISO-8601 date and time with a time zone.

    A time without a zone is refused rather than read in the controller's local zone: the same
    playbook would reset to different offsets depending on where it runs.
    """
    text = str(value).strip()
    if _MILLISECONDS.match(text):
        return int(text)
    match = _ISO_8601.match(text)
    if not match:
        raise GroupSpecError("reset_timestamp", "%r is neither milliseconds since the epoch nor an ISO-8601 "
                                                "date and time such as 2024-05-01T08:00:00Z" % text)
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    if zone is None:
        raise GroupSpecError("reset_timestamp", "%r has no time zone; add Z (UTC) or an offset such as +02:00" % text)
    if zone in ("Z", "z"):
        offset = datetime.timedelta(0)
    else:
        digits = zone[1:].replace(":", "")
        offset = datetime.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        if zone[0] == "-":
            offset = -offset
    microseconds = int((fraction or "0").ljust(6, "0"))
    try:
        moment = datetime.datetime(int(year), int(month), int(day), int(hour), int(minute), int(second or 0),
                                   microseconds, tzinfo=datetime.timezone(offset))
    except ValueError as error:
        raise GroupSpecError("reset_timestamp", "%r is not a valid date and time: %s" % (text, error)) from None
    elapsed = moment - _EPOCH
    milliseconds = elapsed.days * 86400000 + elapsed.seconds * 1000 + elapsed.microseconds // 1000
    if milliseconds < 0:
        raise GroupSpecError("reset_timestamp", "%r is before 1970-01-01T00:00:00Z" % text)
    return milliseconds


def parse_topics(items):
    """[(topic, [partition numbers] or None for all)] from O(topics): items C(name) or C(name:0,2).

    A topic named twice has the union of its partitions (all when any item names it whole).
    """
    if items is None:
        return None
    order, partitions = [], {}
    for index, item in enumerate(items):
        field = "topics[%d]" % index
        name, separator, numbers = str(item).strip().partition(":")
        name = name.strip()
        if not name:
            raise GroupSpecError(field, "%r names no topic" % item)
        if separator:
            wanted = []
            for number in numbers.split(","):
                number = number.strip()
                if not number.isdigit():
                    raise GroupSpecError(field, "%r: partitions are numbers from 0 separated by commas "
                                                "(topic:0,1,2), not %r" % (item, number))
                wanted.append(int(number))
        else:
            wanted = None
        if name not in partitions:
            order.append(name)
            partitions[name] = wanted
        elif partitions[name] is not None:
            partitions[name] = None if wanted is None else sorted(set(partitions[name]) | set(wanted))
    if not order:
        raise GroupSpecError("topics", "give at least one topic, or leave the option out for the group's own topics")
    return [(name, sorted(set(partitions[name])) if partitions[name] is not None else None) for name in order]


def check_group_options(params):
    """The options as run needs them: {group, state, topics, reset, value}; GroupSpecError names a bad one.

    Runs before the module connects, so that no combination of options that cannot work costs a request.
    """
    group = params["group"]
    if not group or not group.strip():
        raise GroupSpecError("group", "give the name of a consumer group")
    reset, state = params.get("reset"), params["state"]
    if state == "absent":
        for option in ("reset", "topics") + tuple(RESET_VALUE_OPTIONS.values()):
            if params.get(option) is not None:
                raise GroupSpecError(option, "does not go with state=absent, which deletes the whole group "
                                             "with all its committed offsets")
    for kind, option in sorted(RESET_VALUE_OPTIONS.items()):
        if params.get(option) is not None and reset != kind:
            raise GroupSpecError(option, "goes only with reset=%s%s" % (
                kind, "" if reset is None else ", not with reset=%s" % reset))
    value = None
    if reset in RESET_VALUE_OPTIONS:
        option = RESET_VALUE_OPTIONS[reset]
        if params.get(option) is None:
            raise GroupSpecError(option, "is required with reset=%s" % reset)
        value = parse_timestamp(params[option]) if reset == "timestamp" else params[option]
    return dict(group=group, state=state, topics=parse_topics(params.get("topics")), reset=reset, value=value)


def clamp(offset, earliest, latest):
    """offset within the partition's log, as a consumer could start from it."""
    return max(earliest, min(offset, latest))


def plan_reset(reset, value, partitions, committed, earliest, latest, by_timestamp=None):
    """The offsets a reset commits, and which of them differ from the committed ones.

    reset: one of RESETS; value: the offset, the shift, or unused. partitions: those to reset.
    committed, earliest, latest: {partition: offset}; by_timestamp: {partition: the first offset
    whose record is at least as new as the timestamp, or None when none is}. Every target lies
    between the partition's earliest and latest offset, as a consumer would clamp it.

    Returns {targets: {partition: offset}, changes: [{topic, partition, before, after}], changed}.
    """
    targets = {}
    for partition in partitions:
        if reset == "earliest":
            wanted = earliest[partition]
        elif reset == "latest":
            wanted = latest[partition]
        elif reset == "timestamp":
            found = (by_timestamp or {}).get(partition)
            wanted = latest[partition] if found is None or found < 0 else found
        elif reset == "offset":
            wanted = value
        elif reset == "shift":
            if partition not in committed:
                raise GroupSpecError("reset_shift", "partition %s of topic %r has no committed offset to shift "
                                                    "from; reset it to an offset first" % (partition[1], partition[0]))
            wanted = committed[partition] + value
        else:
            raise GroupSpecError("reset", "must be one of %s, got %r" % (", ".join(RESETS), reset))
        targets[partition] = clamp(wanted, earliest[partition], latest[partition])
    changes = [dict(topic=partition[0], partition=partition[1], before=committed.get(partition), after=target)
               for partition, target in sorted(targets.items()) if committed.get(partition) != target]
    return dict(targets=targets, changes=changes, changed=bool(changes))


def offsets_by_topic(offsets):
    """{topic: {"partition": offset}} of {(topic, partition): offset}: the diff's shape (string keys, as JSON has)."""
    nested = {}
    for (topic, partition), offset in sorted(offsets.items()):
        nested.setdefault(topic, {})[str(partition)] = offset
    return nested


def lag_report(partitions, committed, log_start, log_end):
    """([{topic, partition, committed_offset, log_start_offset, log_end_offset, lag}], total lag).

    A partition without a committed offset has lag None: where its consumer would start depends on
    the consumer's auto.offset.reset, which the cluster does not know. The total counts the others.
    """
    rows, total = [], 0
    for partition in sorted(partitions):
        offset = committed.get(partition)
        end = log_end.get(partition)
        lag = max(0, end - offset) if offset is not None and end is not None else None
        total += lag or 0
        rows.append(dict(topic=partition[0], partition=partition[1], committed_offset=offset,
                         log_start_offset=log_start.get(partition), log_end_offset=end, lag=lag))
    return rows, total


def describe_members(members):
    """The members in words, for a refusal: member id, client id and host of each."""
    return "; ".join("member %s (client id %r, host %s%s)" % (
        member["member_id"], member["client_id"], member["host"],
        ", instance %s" % member["group_instance_id"] if member.get("group_instance_id") else "")
        for member in members)
