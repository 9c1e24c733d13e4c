"""The verification jobs: producers that write records the verifier can check, and the verifier.

Entry points, run with ``python -m`` with this package on the path (its folder, or the zip
``python -m kafkaops_verify.archive`` writes, which the kafka_verify role ships):

- ``kafkaops_verify.verify``: the PySpark job that proves every acknowledged record is in Kafka
  exactly once, in order per key and intact, and no record of an aborted transaction is visible.
- ``kafkaops_verify.bulk_produce``: writes deterministic records through Spark's Kafka sink.
- ``kafkaops_verify.steady_produce``: produces at a steady rate with kafka-python until stopped, or in
  transactions that it commits and aborts (transactions: which abort, and what came of each).

The rest: records (the record format), manifests (what a producer saw acknowledged), ranges
(sequence sets), connection (how the jobs reach the cluster: the connection file, turned into the
settings of Spark's Kafka connector and of kafka-python), options (NAME=VALUE arguments), kafka_io,
report, archive (the package as one zip) and session (the Spark session, which ships that zip to
executors), engines.sql and engines.scan (the checks, two ways), with engines.partition_scan (the
scan's side that runs in Spark's Python workers).
"""
