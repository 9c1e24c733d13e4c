"""A Spark job that only reads the topics, through the same session and Kafka source settings as the
verification job, and checks nothing: the least time any job built on Spark's Kafka source can take
here. bench/verify prints it beside the verification job so the job's own cost shows.

Usage: verify_spark_read.py --bootstrap-servers host:port --topics a,b [--master local[*]] [--jars ...]
(with roles/kafka_verify/files on PYTHONPATH, as bench/verify sets it)
Prints one JSON line: records read, value bytes, seconds.
"""

import argparse
import json
import os
import time

from kafkaops_verify.kafka_io import capture_offsets, read_topics
from kafkaops_verify.verify import verify_session


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", maxsplit=1)[0])
    parser.add_argument("--bootstrap-servers", required=True)
    parser.add_argument("--topics", required=True)
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--jars", default=os.environ.get("KAFKAOPS_SPARK_JARS", ""))
    parser.add_argument("--driver-memory", default="2g")
    args = parser.parse_args()
    started = time.monotonic()
    from pyspark.sql import functions as F

    bounds, missing = capture_offsets(args.bootstrap_servers, args.topics.split(","), {})
    if missing:
        raise SystemExit("no such topic: %s" % ", ".join(missing))
    spark = verify_session(args.master, args.jars, 0, args.driver_memory, "kafkaops-bench spark read")
    try:
        raw = read_topics(spark, args.bootstrap_servers, bounds, {})
        # Summing the lengths makes Spark materialize every key and value, as the checks must.
        row = raw.agg(F.count(F.lit(1)).alias("records"), F.sum(F.length("value")).alias("bytes")).collect()[0]
    finally:
        spark.stop()
    seconds = round(time.monotonic() - started, 1)
    print(json.dumps({"records": row.records, "value_bytes": row.bytes, "seconds": seconds}))


if __name__ == "__main__":
    main()
