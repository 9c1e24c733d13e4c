"""The manifest: what a producer run saw acknowledged, as JSON::

    {"format": "kafkaops-manifest/1", "producer": "bulk" | "steady", "run_id": "...", "topic": "...",
     "acknowledged": <records>,
     "partitions": [{"partition": 0, "count": <records>, "keys": {"<key>": [[start, end], ...]}}],
     ...producer details...}

Sequence ranges are half-open: ``[0, 5]`` means sequences 0 to 4.

A transactional run (the steady producer's --transaction-records mode, transactions.py) writes format
``kafkaops-manifest/2``: the same fields, its committed records as the acknowledged ones, and::

     "transactional": true, "aborted": <records>, "aborted_keys": {"<key>": [[start, end], ...]},
     "uncertain": <records>, "transactions": {"committed": n, "aborted": n, "uncertain": n}, ...

Aborted ranges are by key over the whole topic, not by partition. Plain manifests keep format 1, so
every manifest written before stays readable; a transactional one gets its own number so that a verifier
that knows nothing of transactions refuses it rather than read the topic uncommitted (seeing aborted
records as unacknowledged ones and transaction markers as offset gaps).
"""

import json
import os
import tempfile

from kafkaops_verify.ranges import merge_ranges

MANIFEST_FORMAT = "kafkaops-manifest/1"
TRANSACTIONAL_MANIFEST_FORMAT = "kafkaops-manifest/2"


class ManifestError(ValueError):
    """A manifest file that cannot be used."""


def build_manifest(producer, run_id, topic, partition_keys, **details):
    """partition_keys: {partition: {key: [[start, end], ...]}}."""
    partitions = []
    for partition in sorted(partition_keys):
        keys = {key: ranges for key, ranges in sorted(partition_keys[partition].items()) if ranges}
        count = sum(end - start for ranges in keys.values() for start, end in ranges)
        partitions.append({"partition": partition, "count": count, "keys": keys})
    manifest = {
        "format": TRANSACTIONAL_MANIFEST_FORMAT if details.get("transactional") else MANIFEST_FORMAT,
        "producer": producer,
        "run_id": run_id,
        "topic": topic,
        "acknowledged": sum(entry["count"] for entry in partitions),
        "partitions": partitions,
    }
    manifest.update(details)
    return manifest


def write_manifest(path, manifest):
    """Written to a temporary file and renamed, so a reader never sees half a manifest."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".manifest-", suffix=".tmp")
    with os.fdopen(handle, "w") as stream:
        json.dump(manifest, stream, indent=1, sort_keys=True)
        stream.write("\n")
    os.replace(temporary, path)


def read_manifest(path):
    with open(path) as stream:
        try:
            manifest = json.load(stream)
        except ValueError as error:
            raise ManifestError("%s: not JSON: %s" % (path, error)) from error
    formats = (MANIFEST_FORMAT, TRANSACTIONAL_MANIFEST_FORMAT)
    if not isinstance(manifest, dict) or manifest.get("format") not in formats:
        raise ManifestError("%s: not a %s manifest" % (path, " or ".join(formats)))
    required = ["run_id", "topic", "partitions"]
    if manifest["format"] == TRANSACTIONAL_MANIFEST_FORMAT:
        required.append("aborted_keys")
    for field in required:
        if field not in manifest:
            raise ManifestError("%s: missing %s" % (path, field))
    return manifest


def is_transactional(manifest):
    return manifest.get("format") == TRANSACTIONAL_MANIFEST_FORMAT


def manifest_ranges(manifest):
    """Yields (topic, partition, run_id, key, start, end) for every acknowledged sequence range."""
    for entry in manifest["partitions"]:
        for key, ranges in entry["keys"].items():
            for start, end in ranges:
                yield manifest["topic"], entry["partition"], manifest["run_id"], key, start, end


def aborted_from_manifests(manifests):
    """Rows (topic, run_id, key, start, end) of every aborted range, merged per run and key."""
    by_identity = {}
    for manifest in manifests:
        for key, ranges in (manifest.get("aborted_keys") or {}).items():
            by_identity.setdefault((manifest["topic"], manifest["run_id"], key), []).extend(
                (int(start), int(end)) for start, end in ranges if end > start)
    rows = []
    for identity, ranges in sorted(by_identity.items()):
        rows.extend((*identity, start, end) for start, end in merge_ranges(ranges))
    return rows


def ranges_from_manifests(manifests):
    """Rows for the ranges DataFrame; overlapping ranges of one run (two manifests of it) are merged."""
    by_identity = {}
    for manifest in manifests:
        for topic, partition, run_id, key, start, end in manifest_ranges(manifest):
            if end > start:
                by_identity.setdefault((topic, int(partition), run_id, key), []).append((int(start), int(end)))
    rows = []
    for identity, ranges in sorted(by_identity.items()):
        rows.extend((*identity, start, end) for start, end in merge_ranges(ranges))
    return rows
