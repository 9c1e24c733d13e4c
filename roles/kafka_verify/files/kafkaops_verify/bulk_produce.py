"""Writes N deterministic records to a topic through Spark's Kafka sink, then their manifest.

Record i of a run belongs to key index k = i mod keys; key k gets sequences 0 .. n_k - 1 and goes
to partition k mod partitions, set explicitly, so the manifest says exactly what each partition
holds. Payloads derive from (run id, key, sequence) alone; the run id defaults to one derived from
the seed, so the same arguments write the same records (running twice makes duplicates on purpose).

Every record of a key is generated and sent by one Spark task, in sequence order, with acks=all
and an idempotent producer, so a key's records land in order. A job that succeeds had every
record acknowledged; spark.task.maxFailures=1 keeps a retried task from sending records twice
behind a success. The manifest is written only after success.
"""

import argparse
import os
import sys
import time
from datetime import UTC, datetime

from kafkaops_verify.connection import ConnectionSettingsError, add_connection_option, job_clients, print_failure
from kafkaops_verify.manifests import build_manifest, write_manifest
from kafkaops_verify.options import add_pairs_option
from kafkaops_verify.progress import add_progress_options, following
from kafkaops_verify.records import check_name, spark_payload_column, spark_value_column
from kafkaops_verify.session import add_spark_setting_option, build_session, spark_settings


def key_name(index):
    return "key-%06d" % index


def records_per_key(records, keys):
    """n_k for every key index: records spread as evenly as possible, the first keys taking the rest."""
    base, rest = divmod(records, keys)
    return [base + (1 if index < rest else 0) for index in range(keys)]


def partition_of(key_index, partitions):
    return key_index % partitions


def expected_manifest(run_id, topic, records, keys, partitions, **details):
    partition_keys = {partition: {} for partition in range(partitions)}
    for index, count in enumerate(records_per_key(records, keys)):
        if count:
            partition_keys[partition_of(index, partitions)][key_name(index)] = [[0, count]]
    return build_manifest("bulk", run_id, topic, partition_keys, **details)


def records_frame(spark, run_id, records, keys, partitions, payload_bytes, tasks):
    """key, value, partition columns of every record, generated in the JVM."""
    from pyspark.sql import functions as F

    base, rest = divmod(records, keys)
    key_indexes = spark.range(0, keys, 1, numPartitions=tasks)
    count = F.lit(base) + F.when(F.col("id") < rest, 1).otherwise(0)
    per_key = key_indexes.select(
        F.col("id").alias("key_index"),
        F.format_string("key-%06d", F.col("id")).alias("key"),
        count.alias("count"),
    ).where(F.col("count") > 0)
    # explode keeps a key's sequences in order inside its task.
    rows = per_key.select(
        "key_index", "key", F.explode(F.sequence(F.lit(0).cast("long"), F.col("count") - 1)).alias("sequence")
    )
    run = F.lit(run_id)
    payload = spark_payload_column(run, F.col("key"), F.col("sequence"), payload_bytes)
    return rows.select(
        F.col("key"),
        spark_value_column(run, F.col("key"), F.col("sequence"), payload).alias("value"),
        (F.col("key_index") % partitions).cast("int").alias("partition"),
    )


def topic_partitions(bootstrap_servers, topic, create_partitions, replication_factor, client_options):
    """The topic's partition count; creates the topic first when asked to and it is missing."""
    from kafka import KafkaAdminClient
    from kafka.errors import TopicAlreadyExistsError

    admin = KafkaAdminClient(bootstrap_servers=bootstrap_servers, **client_options)
    try:
        if create_partitions and topic not in admin.list_topics():
            try:
                admin.create_topics(
                    {topic: {"num_partitions": create_partitions, "replication_factor": replication_factor}},
                    wait_for_metadata=True,
                )
            except TopicAlreadyExistsError:
                pass
        described = admin.describe_topics([topic])
    finally:
        admin.close()
    partitions = described[0].get("partitions") if described else None
    if not partitions or described[0].get("error_code"):
        raise SystemExit("bulk_produce: topic %s does not exist (give --create-partitions to create it)" % topic)
    return len(partitions)


def argument_parser():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", maxsplit=1)[0])
    parser.add_argument("--bootstrap-servers", required=True, help="host:port[,host:port...]")
    parser.add_argument("--topic", required=True)
    parser.add_argument("--records", type=int, required=True, help="how many records to write")
    parser.add_argument("--keys", type=int, default=1000, help="distinct keys (1000)")
    parser.add_argument("--seed", type=int, default=0, help="selects the run: same seed, same records (0)")
    parser.add_argument("--run-id", default="", help="run id in every record (default: bulk-s<seed>)")
    parser.add_argument(
        "--payload-bytes", type=int, default=64, help="payload size; values are about 40 bytes longer (64)"
    )
    parser.add_argument("--manifest", required=True, help="where to write the manifest of acknowledged records")
    parser.add_argument("--create-partitions", type=int, default=0, help="create the topic with this many partitions")
    parser.add_argument("--replication-factor", type=int, default=1, help="when creating the topic (1)")
    parser.add_argument("--master", default="local[*]", help="any Spark master URL (local[*])")
    parser.add_argument(
        "--jars",
        default=os.environ.get("KAFKAOPS_SPARK_JARS", ""),
        help="comma-separated Kafka connector jars for spark.jars (default: $KAFKAOPS_SPARK_JARS)",
    )
    parser.add_argument("--tasks", type=int, default=0, help="Spark tasks writing (default: Spark's parallelism)")
    add_connection_option(parser)
    add_spark_setting_option(parser)
    add_progress_options(parser)
    add_pairs_option(parser, "--kafka-option", "a Java producer property for Spark's Kafka sink, e.g. linger.ms=50")
    add_pairs_option(
        parser, "--client-option", "a kafka-python KafkaAdminClient setting (topic lookup), e.g. client_id=bulk"
    )
    return parser


# Throughput defaults for the sink's producer; any of them can be overridden with --kafka-option.
PRODUCER_DEFAULTS = {
    "acks": "all",
    "enable.idempotence": "true",
    "linger.ms": "20",
    "batch.size": "262144",
    "compression.type": "lz4",
}


def write_records(args, run_id, producer_options, client_settings):
    """Writes the records; returns the topic's partition count and when the writing started."""
    partitions = topic_partitions(
        args.bootstrap_servers, args.topic, args.create_partitions, args.replication_factor, client_settings
    )
    spark = build_session(
        args.master,
        "kafkaops-bulk-produce %s" % args.topic,
        args.jars,
        {"spark.task.maxFailures": "1", **spark_settings(args.spark_setting)},
    )
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    started = time.monotonic()
    try:
        tasks = args.tasks or spark.sparkContext.defaultParallelism
        frame = records_frame(spark, run_id, args.records, args.keys, partitions, args.payload_bytes, tasks)
        writer = frame.write.format("kafka").option("kafka.bootstrap.servers", args.bootstrap_servers)
        writer = writer.option("topic", args.topic)
        for name, value in producer_options.items():
            writer = writer.option("kafka." + name, value)
        with following(spark, args.progress_file, "bulk_produce", None, args.progress_interval):
            writer.save()
    finally:
        spark.stop()
    return partitions, started_at, started


def main(argv=None):
    args = argument_parser().parse_args(argv)
    if args.records < 0 or args.keys < 1 or args.payload_bytes < 0:
        raise SystemExit("bulk_produce: --records >= 0, --keys >= 1 and --payload-bytes >= 0 please")
    run_id = check_name(args.run_id or "bulk-s%d" % args.seed, "run id")
    try:
        clients = job_clients(args.connection_file, args.kafka_option, args.client_option)
    except ConnectionSettingsError as error:
        raise SystemExit("bulk_produce: %s" % error) from None
    producer_options = {**PRODUCER_DEFAULTS, **clients.java_properties}
    if producer_options["acks"] not in ("all", "-1"):
        raise SystemExit("bulk_produce: acks must stay 'all': the manifest promises acknowledged records")
    try:
        partitions, started_at, started = write_records(args, run_id, producer_options, clients.python_settings)
    except Exception:  # its traceback, without secrets
        return print_failure("bulk_produce", clients, 1)
    elapsed = time.monotonic() - started
    manifest = expected_manifest(
        run_id,
        args.topic,
        args.records,
        args.keys,
        partitions,
        seed=args.seed,
        key_count=args.keys,
        payload_bytes=args.payload_bytes,
        started_at=started_at,
        elapsed_seconds=round(elapsed, 1),
    )
    write_manifest(args.manifest, manifest)
    print(
        "bulk_produce: %d records (%d keys, %d partitions) to %s in %.1f s, run %s; manifest %s"
        % (args.records, args.keys, partitions, args.topic, elapsed, run_id, args.manifest)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
