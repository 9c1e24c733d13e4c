# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Waiting until a broker is registered and serving metadata, optionally with every partition in sync.

The action kafkaops.cluster.kafka_broker_wait runs this on the controller with kafka-python's admin
client (the connection options of every admin module, so TLS and SASL work as they do there). While
the broker is not ready it lets a UnitWatch read the broker's unit on its host, at most every few
seconds, so that a broker that crashes ends the wait at once with its cause. A ready broker costs
one connection and one request (two with in_sync), no sleep and no read of the unit.
"""

from __future__ import absolute_import, division, print_function


import logging
import re
import time

from ansible_collections.kafkaops.cluster.plugins.module_utils._cluster import (
    read_brokers,
    read_topics,
    summarize_topics,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import (
    close_quietly,
    connection_argument_spec,
    failure_details,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._option_limits import NumberLimit
from ansible_collections.kafkaops.cluster.plugins.module_utils._service_watch import service_watch_argument_spec

LIMITS = dict(broker_id=NumberLimit(minimum=0), timeout=NumberLimit(minimum=1))
# Seconds between two polls of the cluster while the broker is not ready.
POLL_INTERVAL = 1.0
# Seconds between two reads of the unit: each is a module run on the broker's host (about 1.5 s).
UNIT_READ_INTERVAL = 2.5
# A connection attempt to a broker that is down lasts this long at first (kafka-python retries a
# refused connection until its deadline), so the unit is read every few seconds while the broker
# starts; later attempts last a quarter of the time waited so far, so that a slow TLS or SASL
# handshake gets its time too.
FIRST_CONNECT_SECONDS = 3.0
# A kafka-python log line that names an error class, such as 'KafkaConnectionError: 111 ECONNREFUSED'.
NAMED_ERROR = re.compile(r"\b[A-Z]\w*(Error|Exception)\b")
# How long kafka-python waits before its next attempt: noise in a message.
BACKOFF = re.compile(r"\s*\(backoff [^)]*\)$")


def broker_wait_argument_spec():
    """A fresh argument spec of kafka_broker_wait: the connection options, its own, service and log_file."""
    spec = connection_argument_spec()
    spec.update(
        broker_id=dict(type="int", required=True),
        in_sync=dict(type="bool", default=False),
        timeout=dict(type="int", default=120),
        **service_watch_argument_spec()
    )
    return spec


def read_broker_state(client, in_sync):
    """{broker_ids, controller_id, under_replicated_partitions, offline_partitions} in one request, two with in_sync.

    Without in_sync the partitions are not read and both lists are empty.
    """
    cluster = read_brokers(client)
    controller_id = cluster["controller_id"]
    summary = dict(broker_ids=[broker["id"] for broker in cluster["brokers"]],
                   controller_id=controller_id if controller_id is not None else -1,
                   under_replicated_partitions=[], offline_partitions=[])
    if in_sync:
        # Internal topics too: a rolling restart must not take the last in-sync replica of __consumer_offsets.
        under_replicated, offline = summarize_topics(read_topics(client, include_internal=True))
        summary.update(under_replicated_partitions=under_replicated, offline_partitions=offline)
    return summary


def describe_wait(summary, broker_id, in_sync):
    """What is still missing, or None when the broker is where it must be."""
    if broker_id not in summary["broker_ids"]:
        return "broker %d is not registered (registered: %s)" % (broker_id, summary["broker_ids"])
    if summary["controller_id"] < 0:
        return "no controller is known yet"
    if in_sync and summary["under_replicated_partitions"]:
        return "%d partitions under-replicated, e.g. %s" % (
            len(summary["under_replicated_partitions"]), summary["under_replicated_partitions"][:5])
    if in_sync and summary["offline_partitions"]:
        return "%d partitions offline, e.g. %s" % (
            len(summary["offline_partitions"]), summary["offline_partitions"][:5])
    return None


def connect_seconds(waited, time_left):
    """How long the next connection attempt may last: see FIRST_CONNECT_SECONDS; never past the wait's end."""
    return max(1.0, min(max(FIRST_CONNECT_SECONDS, waited / 4.0), time_left))


class KafkaLogTail(logging.Handler):
    """The latest line kafka-python logged that names an error, which says why a connection failed.

    kafka-python reports a failed connection only as a timeout (KafkaTimeoutError); the cause
    (refused, a TLS handshake, a SASL login) is in its log. Attached to its logger, this also keeps
    those lines off the console: on the controller no handler is set up, and Python would print
    every warning to the terminal.
    """

    def __init__(self):
        super(KafkaLogTail, self).__init__(logging.WARNING)
        self.last = None

    def emit(self, record):
        try:
            line = " ".join(record.getMessage().split())
        except Exception:  # pylint: disable=broad-except
            return
        # The timeout itself is what the wait already reports; the lines before it say why.
        if NAMED_ERROR.search(line) and "KafkaTimeoutError" not in line:
            self.last = BACKOFF.sub("", line)

    def __enter__(self):
        self.last = None
        logging.getLogger("kafka").addHandler(self)
        return self

    def __exit__(self, *unused):
        logging.getLogger("kafka").removeHandler(self)


def wait_for_broker(connect, watch, broker_id, in_sync, timeout, clock=None, log_tail=None):
    """Poll until the broker is ready; (True, result) then, else (False, result with msg and the unit's keys).

    connect(seconds): a connected admin client, trying for at most that long (raises when it cannot).
    watch: a UnitWatch of the broker's unit (its reads happen only while the broker is not ready,
    at most every UNIT_READ_INTERVAL seconds). clock: monotonic() and sleep(). log_tail: a
    KafkaLogTail whose last line is added to a failed connection's message.
    The client is kept from one poll to the next and closed at the end.
    """
    clock = clock or time
    started = clock.monotonic()
    client = None
    summary = None
    last_unit_read = None
    try:
        while True:
            poll_started = clock.monotonic()
            if log_tail is not None:
                log_tail.last = None
            try:
                if client is None:
                    waited = poll_started - started
                    client = connect(connect_seconds(waited, timeout - waited))
                summary = read_broker_state(client, in_sync)
                problem = describe_wait(summary, broker_id, in_sync)
                if problem is None:
                    return True, dict(summary, elapsed=round(clock.monotonic() - started, 1))
            except Exception as error:  # pylint: disable=broad-except
                # A broker that is down or starting refuses, times out or answers with an error:
                # all the same to a wait, which says what it last saw when time is up.
                problem = failure_details(error)["msg"]
                if log_tail is not None and log_tail.last and log_tail.last not in problem:
                    problem += " (kafka-python: %s)" % log_tail.last
                close_quietly(client)
                client = None
            now = clock.monotonic()
            timed_out = now - started >= timeout
            if timed_out or last_unit_read is None or now - last_unit_read >= UNIT_READ_INTERVAL:
                last_unit_read = now
                result = dict(summary or {}, elapsed=round(now - started, 1))
                failure = watch.failure(timed_out, "%s not ready within %d s: %s" % (watch.subject, timeout, problem),
                                        result)
                if failure is not None:
                    failure["elapsed"] = round(clock.monotonic() - started, 1)
                    return False, failure
            clock.sleep(max(0.0, poll_started + POLL_INTERVAL - clock.monotonic()))
    finally:
        close_quietly(client)
