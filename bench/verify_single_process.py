"""The verifier's checks in one Python process with kafka-python: the baseline bench/verify compares to.

Reads the topics from each partition's log start to the end offsets captured at start and applies
the checks of kafkaops_verify.verify (lost, duplicates, out_of_order, corrupt, offset_gaps) record
by record, parsing with kafkaops_verify.records. Prints the counts as one JSON line.

Usage: verify_single_process.py --bootstrap-servers host:port --manifest m.json [--topics a,b]
(with roles/kafka_verify/files on PYTHONPATH, as bench/verify sets it)
"""

import argparse
import json
import sys
import time
import zlib

from kafkaops_verify.manifests import manifest_ranges, read_manifest
from kafkaops_verify.ranges import SequenceRanges
from kafkaops_verify.records import CRC_MAX, RecordFormatError, decode_value


def contains(ranges, sequence):
    """Whether a SequenceRanges holds sequence; the last range first, where records usually land."""
    if ranges.ends and ranges.starts[-1] <= sequence < ranges.ends[-1]:
        return True
    import bisect

    index = bisect.bisect_right(ranges.starts, sequence) - 1
    return index >= 0 and sequence < ranges.ends[index]


def overlap(found, start, end):
    """How many sequences of [start, end) a SequenceRanges holds."""
    total = 0
    for found_start, found_end in zip(found.starts, found.ends, strict=True):
        low, high = max(found_start, start), min(found_end, end)
        if high > low:
            total += high - low
    return total


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", maxsplit=1)[0])
    parser.add_argument("--bootstrap-servers", required=True)
    parser.add_argument("--topics", default="")
    parser.add_argument("--manifest", action="append", default=[])
    args = parser.parse_args(argv)

    from kafka import KafkaConsumer, TopicPartition

    started = time.monotonic()
    manifests = [read_manifest(path) for path in args.manifest]
    topics = sorted({topic for topic in args.topics.split(",") if topic} | {m["topic"] for m in manifests})
    consumer = KafkaConsumer(
        bootstrap_servers=args.bootstrap_servers,
        enable_auto_commit=False,
        fetch_max_bytes=64 * 1024 * 1024,
        max_partition_fetch_bytes=16 * 1024 * 1024,
        receive_buffer_bytes=4 * 1024 * 1024,
        max_poll_records=50000,
        check_crcs=False,  # the Java clients used by Spark and by the raw read skip nothing either way
    )
    partitions = [TopicPartition(topic, number) for topic in topics for number in consumer.partitions_for_topic(topic)]
    starts = consumer.beginning_offsets(partitions)
    ends = consumer.end_offsets(partitions)
    pending = {tp for tp in partitions if ends[tp] > starts[tp]}
    consumer.assign(partitions)
    for tp in partitions:
        consumer.seek(tp, starts[tp])

    counts = dict.fromkeys(("records", "lost", "duplicates", "out_of_order", "corrupt", "offset_gaps"), 0)
    seen = {}  # (topic, partition, run, key) -> SequenceRanges of first copies
    last_sequence = {}  # same key -> last first-copy sequence, by offset
    next_offset = {tp: starts[tp] for tp in partitions}
    while pending:
        batches = consumer.poll(timeout_ms=1000)
        for tp, records in batches.items():
            end = ends[tp]
            for record in records:
                if record.offset >= end:
                    break
                counts["records"] += 1
                counts["offset_gaps"] += record.offset - next_offset[tp]
                next_offset[tp] = record.offset + 1
                try:
                    parsed = decode_value(record.value)
                except RecordFormatError:
                    counts["corrupt"] += 1
                    continue
                if record.key is None or record.key.decode(errors="replace") != parsed.key:
                    counts["corrupt"] += 1
                elif zlib.crc32(parsed.payload) & CRC_MAX != parsed.crc:
                    counts["corrupt"] += 1
                identity = (tp.topic, tp.partition, parsed.run_id, parsed.key)
                ranges = seen.get(identity)
                if ranges is None:
                    ranges = seen[identity] = SequenceRanges()
                if contains(ranges, parsed.sequence):
                    counts["duplicates"] += 1
                    continue
                previous = last_sequence.get(identity)
                if previous is not None and parsed.sequence < previous:
                    counts["out_of_order"] += 1
                last_sequence[identity] = parsed.sequence
                ranges.add(parsed.sequence)
            if next_offset[tp] >= end or consumer.position(tp) >= end:
                pending.discard(tp)
                consumer.pause(tp)
    consumer.close()
    for tp in partitions:
        counts["offset_gaps"] += max(ends[tp] - next_offset[tp], 0)

    expected = 0
    for manifest in manifests:
        for topic, partition, run_id, key, start, end in manifest_ranges(manifest):
            expected += end - start
            found = seen.get((topic, int(partition), run_id, key))
            counts["lost"] += (end - start) - (overlap(found, start, end) if found else 0)
    checks = ("lost", "duplicates", "out_of_order", "corrupt", "offset_gaps")
    report = {
        "ok": not any(counts[check] for check in checks),
        **counts,
        "expected": expected,
        "elapsed_seconds": round(time.monotonic() - started, 1),
    }
    print(json.dumps(report, sort_keys=True))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
