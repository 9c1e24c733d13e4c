"""The record format and the acknowledged-records manifest shared by the producers and the verifier.

A record's key is the producer's key (UTF-8); its value is ASCII text of six fields:

    v1|<run id>|<key>|<sequence>|<crc32>|<payload>

- ``v1``: the format version, so a value written by anything else is recognised as unparseable.
- run id and key: non-empty, without ``|``; the key repeats the record key so a value that moved
  to another key is caught.
- sequence: the per-key sequence number of the run, decimal, from 0.
- crc32: the CRC-32 (the zlib/IEEE one, as Spark's ``crc32``) of the payload bytes, unsigned decimal.
- payload: the rest of the value; it may contain ``|``.

Text with a separator keeps the value parseable inside the JVM with Spark's ``split`` and ``crc32``,
so no record has to be parsed in Python.

A manifest is what a producer run saw acknowledged, as JSON::

    {"format": "kafkaops-manifest/1", "producer": "bulk" | "steady", "run_id": "...", "topic": "...",
     "acknowledged": <records>,
     "partitions": [{"partition": 0, "count": <records>, "keys": {"<key>": [[start, end], ...]}}],
     ...producer details...}

Sequence ranges are half-open: ``[0, 5]`` means sequences 0 to 4.
"""

import bisect
import hashlib
import json
import os
import tempfile
import zlib
from dataclasses import dataclass

FORMAT_VERSION = "v1"
SEPARATOR = "|"
FIELD_COUNT = 6
MANIFEST_FORMAT = "kafkaops-manifest/1"
CRC_MAX = 0xFFFFFFFF
# Why a record is corrupt, in order of precedence; a reason's code is its position plus one (0: sound).
CORRUPT_REASONS = ("unparseable", "key mismatch", "crc mismatch")
# Length of a SHA-256 hex digest, the block the deterministic payload repeats.
_DIGEST_CHARS = 64


class RecordFormatError(ValueError):
    """A value that does not follow the record format."""


class ManifestError(ValueError):
    """A manifest file that cannot be used."""


@dataclass(frozen=True)
class Record:
    run_id: str
    key: str
    sequence: int
    crc: int
    payload: bytes

    def crc_ok(self):
        return payload_crc(self.payload) == self.crc


def check_name(value, what):
    """Run ids and keys become fields of the value, so they must not hold the separator."""
    if not value or SEPARATOR in value:
        raise RecordFormatError("%s must be non-empty and must not contain %r: %r" % (what, SEPARATOR, value))
    return value


def parse_options(pairs, what):
    """NAME=VALUE command-line pairs (repeatable options such as --kafka-option) as a dict of strings."""
    options = {}
    for pair in pairs or ():
        name, separator, value = pair.partition("=")
        if not separator or not name:
            raise SystemExit("%s must be NAME=VALUE, not %r" % (what, pair))
        options[name] = value
    return options


def parse_client_options(pairs, what="--client-option"):
    """Like parse_options, for kafka-python settings: those are typed, and numbers arrive as text."""
    return {name: int(value) if value.lstrip("-").isdigit() else value
            for name, value in parse_options(pairs, what).items()}


def payload_crc(payload):
    return zlib.crc32(payload) & CRC_MAX


def make_payload(run_id, key, sequence, size):
    """The deterministic payload: the SHA-256 hex digest of run:key:sequence, repeated to size bytes.

    Same bytes as spark_payload_column, so a record can be rebuilt from its identity alone.
    """
    digest = hashlib.sha256(("%s:%s:%d" % (run_id, key, sequence)).encode()).hexdigest()
    repeats = -(-size // _DIGEST_CHARS)
    return (digest * repeats)[:size].encode()


def encode_value(run_id, key, sequence, payload):
    check_name(run_id, "run id")
    check_name(key, "key")
    if sequence < 0:
        raise RecordFormatError("sequence must be >= 0: %d" % sequence)
    header = SEPARATOR.join((FORMAT_VERSION, run_id, key, str(sequence), str(payload_crc(payload)), ""))
    return header.encode() + payload


def decode_value(value):
    """Returns the Record in a value, or raises RecordFormatError; does not check the crc."""
    if value is None:
        raise RecordFormatError("no value")
    fields = value.split(SEPARATOR.encode(), FIELD_COUNT - 1)
    if len(fields) != FIELD_COUNT:
        raise RecordFormatError("expected %d fields, found %d" % (FIELD_COUNT, len(fields)))
    version, run_id, key, sequence, crc, payload = fields
    if version.decode(errors="replace") != FORMAT_VERSION:
        raise RecordFormatError("unknown format version %r" % version)
    if not run_id or not key:
        raise RecordFormatError("empty run id or key")
    if not sequence.isdigit() or not crc.isdigit() or int(crc) > CRC_MAX:
        raise RecordFormatError("sequence and crc must be unsigned decimals")
    try:
        return Record(run_id.decode(), key.decode(), int(sequence), int(crc), payload)
    except UnicodeDecodeError as error:
        raise RecordFormatError("run id or key is not UTF-8") from error


# Spark column expressions for the same format. pyspark is imported inside, so the producers that
# run without Spark (steady_produce.py) can use this module.


def spark_payload_column(run_id, key, sequence, size):
    """The payload of make_payload as a Spark string column (run_id, key, sequence are Columns)."""
    from pyspark.sql import functions as F

    digest = F.sha2(F.concat_ws(":", run_id, key, sequence.cast("string")), 256)
    repeats = -(-size // _DIGEST_CHARS)
    return F.substring(F.repeat(digest, repeats), 1, size)


def spark_value_column(run_id, key, sequence, payload):
    """The encoded value as a Spark string column; payload is a string Column."""
    from pyspark.sql import functions as F

    return F.concat_ws(
        SEPARATOR,
        F.lit(FORMAT_VERSION),
        run_id,
        key,
        sequence.cast("string"),
        F.crc32(payload.cast("binary")).cast("string"),
        payload,
    )


def spark_parsed_columns(value, record_key):
    """Columns parsed from a binary value and key, in the JVM.

    Returns a dict of Columns: run_id, key, sequence (null unless the value parses), and
    corrupt_reason (null for a sound record; else one of CORRUPT_REASONS); also the same facts in
    compact form: identity (run id and key joined by the separator, null unless the value parses)
    and reason_code (a byte: 0 for a sound record, else the position of the reason plus one).
    """
    from pyspark.sql import functions as F

    parts = F.split(value.cast("string"), "\\" + SEPARATOR, FIELD_COUNT)

    def field(position):
        return F.try_element_at(parts, F.lit(position))

    version, run_id, key, sequence, crc, payload = (field(position) for position in range(1, FIELD_COUNT + 1))
    # ANSI mode (Spark 4's default) raises on a bad cast; the regular expressions keep every cast safe.
    sequence_ok = sequence.rlike("^[0-9]{1,18}$")
    crc_ok_text = crc.rlike("^[0-9]{1,10}$")
    parsed = F.coalesce(
        (F.size(parts) == FIELD_COUNT)
        & (version == F.lit(FORMAT_VERSION))
        & (run_id != F.lit(""))
        & (key != F.lit(""))
        & sequence_ok
        & crc_ok_text,
        F.lit(False),
    )
    sequence_value = F.when(parsed, sequence.cast("long"))
    crc_value = F.when(parsed, crc.cast("long"))
    key_matches = F.coalesce(record_key.cast("string") == key, F.lit(False))
    crc_matches = F.coalesce(F.crc32(payload.cast("binary")) == crc_value, F.lit(False))
    # One precedence, written once: the code is the reason's position in CORRUPT_REASONS plus one.
    unparseable, key_mismatch, crc_mismatch = range(1, len(CORRUPT_REASONS) + 1)
    reason_code = (
        F.when(~parsed, F.lit(unparseable))
        .when(~key_matches, F.lit(key_mismatch))
        .when(~crc_matches, F.lit(crc_mismatch))
        .otherwise(F.lit(0))
        .cast("byte")
    )
    reason_names = F.array(*[F.lit(name) for name in CORRUPT_REASONS])
    reason = F.when(reason_code > 0, F.element_at(reason_names, reason_code.cast("int")))
    return {
        "run_id": F.when(parsed, run_id),
        "key": F.when(parsed, key),
        "sequence": sequence_value,
        "corrupt_reason": reason,
        "identity": F.when(parsed, F.concat(run_id, F.lit(SEPARATOR), key)),
        "reason_code": reason_code,
    }


# Manifests


class SequenceRanges:
    """A set of sequence numbers kept as sorted, merged half-open ranges.

    Acknowledgements of one key arrive in order almost always, so adding at the end is the fast path.
    """

    def __init__(self):
        self.starts = []
        self.ends = []

    def add(self, sequence):
        if self.ends and self.ends[-1] == sequence:
            self.ends[-1] += 1
            return
        if not self.ends or sequence > self.ends[-1]:
            self.starts.append(sequence)
            self.ends.append(sequence + 1)
            return
        index = bisect.bisect_right(self.starts, sequence) - 1
        if index >= 0 and sequence < self.ends[index]:
            return
        self.starts.insert(index + 1, sequence)
        self.ends.insert(index + 1, sequence + 1)
        self._merge_around(index + 1)

    def _merge_around(self, index):
        if index + 1 < len(self.starts) and self.ends[index] == self.starts[index + 1]:
            self.ends[index] = self.ends.pop(index + 1)
            self.starts.pop(index + 1)
        if index > 0 and self.ends[index - 1] == self.starts[index]:
            self.ends[index - 1] = self.ends.pop(index)
            self.starts.pop(index)

    def ranges(self):
        return [[start, end] for start, end in zip(self.starts, self.ends, strict=True)]

    def count(self):
        return sum(end - start for start, end in zip(self.starts, self.ends, strict=True))


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
