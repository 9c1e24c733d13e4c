"""Records, frames and reports for the verifier's tests: a few rows of one or two partitions."""

from pyspark.sql import functions as F

from kafkaops_verify.records import encode_value, make_payload
from kafkaops_verify.verify import verify

TOPIC = "orders"
RUN = "run-1"
RAW_SCHEMA = "topic string, partition int, offset long, key binary, value binary"


def value(key, sequence, run_id=RUN, size=16):
    payload = make_payload(run_id, key, sequence, size)
    return encode_value(run_id, key, sequence, payload)


def clean_rows(partition=0, keys=("a", "b"), per_key=3, first_offset=0):
    """Rows of one partition: the keys interleaved, sequences 0..per_key-1, offsets contiguous."""
    rows = []
    offset = first_offset
    for sequence in range(per_key):
        for key in keys:
            rows.append((TOPIC, partition, offset, key.encode(), value(key, sequence)))
            offset += 1
    return rows


def raw_frame(spark, rows):
    return spark.createDataFrame(rows, RAW_SCHEMA)


def ranges_for(keys=("a", "b"), per_key=3, partition=0):
    return [(TOPIC, partition, RUN, key, 0, per_key) for key in keys]


def bounds_for(rows):
    offsets = {}
    for topic, partition, offset, _key, _value in rows:
        start, end = offsets.get((topic, partition), (offset, offset + 1))
        offsets[(topic, partition)] = (min(start, offset), max(end, offset + 1))
    return offsets


def report_for(spark, rows, range_rows, bounds=None):
    frame = raw_frame(spark, rows)

    def read(partition_bounds):
        wanted = {f"{topic}:{partition}" for topic, partition in partition_bounds}
        return frame.where(F.concat_ws(":", "topic", "partition").isin(*wanted))

    return verify(spark, read, bounds if bounds is not None else bounds_for(rows), range_rows, 3)
