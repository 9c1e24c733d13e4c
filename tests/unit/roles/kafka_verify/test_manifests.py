"""Manifests as the verifier reads them."""

from kafkaops_verify.manifests import ranges_from_manifests
from sample_records import RUN, TOPIC


def test_manifest_ranges_of_one_run_are_merged():
    manifests = [
        {"topic": TOPIC, "run_id": RUN, "partitions": [{"partition": 0, "keys": {"a": [[0, 5]]}}]},
        {"topic": TOPIC, "run_id": RUN, "partitions": [{"partition": 0, "keys": {"a": [[3, 8], [10, 12]]}}]},
    ]
    assert ranges_from_manifests(manifests) == [(TOPIC, 0, RUN, "a", 0, 8), (TOPIC, 0, RUN, "a", 10, 12)]
