"""The manifest: what a producer run saw acknowledged, as JSON::

    {"format": "kafkaops-manifest/1", "producer": "bulk" | "steady", "run_id": "...", "topic": "...",
     "acknowledged": <records>,
     "partitions": [{"partition": 0, "count": <records>, "keys": {"<key>": [[start, end], ...]}}],
     ...producer details...}

Sequence ranges are half-open: ``[0, 5]`` means sequences 0 to 4.
"""

import json
import os
import tempfile

from kafkaops_verify.ranges import merge_ranges

MANIFEST_FORMAT = "kafkaops-manifest/1"


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
        "format": MANIFEST_FORMAT,
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
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise ManifestError("%s: not a %s manifest" % (path, MANIFEST_FORMAT))
    for field in ("run_id", "topic", "partitions"):
        if field not in manifest:
            raise ManifestError("%s: missing %s" % (path, field))
    return manifest


def manifest_ranges(manifest):
    """Yields (topic, partition, run_id, key, start, end) for every acknowledged sequence range."""
    for entry in manifest["partitions"]:
        for key, ranges in entry["keys"].items():
            for start, end in ranges:
                yield manifest["topic"], entry["partition"], manifest["run_id"], key, start, end


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
