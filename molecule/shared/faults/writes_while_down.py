"""While a node is down or cut off: write 1,000 probe records and count the steady producer's records.

Usage: writes_while_down.py BOOTSTRAP_SERVERS STEADY_TOPIC (servers comma-separated). Prints one JSON
object: probe_acknowledged, probe_errors, steady_records_while_down, error (the step and exception that
stopped it, or null), seconds, offset_retries (what the consumer retried, counted). Any exception is
reported in the figures, which resilience.yml asserts on: a bare traceback is cut off in a CI summary.
"""

import collections
import json
import logging
import sys
import time

from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.errors import KafkaTimeoutError

PROBES = 1000


class CountRetries(logging.Handler):
    """Counts the fetcher's retries (a partition whose leader moved, or whose new leader does not know its
    high watermark yet)."""

    def __init__(self, counter):
        super().__init__()
        self.counter = counter

    def emit(self, record):
        if "retrying" in record.getMessage():
            self.counter[record.getMessage()] += 1


def end_offsets_total(servers, partitions, seconds=120):
    """The partitions' end offsets, summed, asked again with a new client (fresh metadata) until `seconds` have
    passed: a client that learnt of a broker before it was cut off may send it the request, which then waits for
    an answer that never comes (seen once in resilience, 2026-11-30: 120 s and no reading). Both readings of
    measure() go through here."""
    deadline = time.monotonic() + seconds
    while True:
        consumer = KafkaConsumer(bootstrap_servers=servers, request_timeout_ms=20000)
        try:
            return sum(consumer.end_offsets(partitions, timeout_ms=25000).values())
        except KafkaTimeoutError:
            if time.monotonic() >= deadline:
                raise
        finally:
            consumer.close()


def measure(servers, topic):
    """The figures the module docstring names, as a dict; servers is a list of host:port."""
    figures = {"probe_acknowledged": 0, "steady_records_while_down": 0, "probe_errors": [], "error": None}
    retries = collections.Counter()
    fetcher_log = logging.getLogger("kafka.consumer.fetcher")
    fetcher_log.setLevel(logging.DEBUG)
    fetcher_log.addHandler(CountRetries(retries))
    started, step = time.monotonic(), "reading the steady topic's end offsets"
    try:
        consumer = KafkaConsumer(bootstrap_servers=servers)
        partitions = [TopicPartition(topic, number) for number in consumer.partitions_for_topic(topic)]
        consumer.close()
        # A leader elected while ZooKeeper is short of its leader may answer "offset not available" until its
        # followers catch up or leave the ISR (replica.lag.time.max.ms, 30 s): asked again for 120 s, past that.
        before = end_offsets_total(servers, partitions)
        # Retried until the delivery timeout (the default), so a leader moving while ZooKeeper is short of its
        # leader costs time, not records.
        step = "writing %d probe records" % PROBES
        producer = KafkaProducer(bootstrap_servers=servers, acks="all")
        futures = [producer.send("probe", b"probe-%d" % index) for index in range(PROBES)]
        producer.flush(240)
        figures["probe_acknowledged"] = sum(1 for future in futures if future.succeeded())
        figures["probe_errors"] = sorted({repr(future.exception) for future in futures if future.failed()})
        producer.close()
        step = "watching the steady topic's end offsets"
        time.sleep(8)
        after = end_offsets_total(servers, partitions)
        figures["steady_records_while_down"] = after - before
    except Exception as error:  # noqa: BLE001 - reported, and failed by the playbook's assert
        figures["error"] = "%s: %r" % (step, error)
    figures["seconds"] = round(time.monotonic() - started, 1)
    figures["offset_retries"] = dict(retries.most_common(5))
    fetcher_log.removeHandler(fetcher_log.handlers[-1])
    return figures


if __name__ == "__main__":
    print(json.dumps(measure(sys.argv[1].split(","), sys.argv[2])))
