"""The record format shared by the producers and the verifier, in Python and as Spark column expressions.

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
"""

import hashlib
import zlib
from dataclasses import dataclass

FORMAT_VERSION = "v1"
SEPARATOR = "|"
FIELD_COUNT = 6
CRC_MAX = 0xFFFFFFFF
# Why a record is corrupt, in order of precedence; a reason's code is its position plus one (0: sound).
CORRUPT_REASONS = ("unparseable", "key mismatch", "crc mismatch")
# Length of a SHA-256 hex digest, the block the deterministic payload repeats.
_DIGEST_CHARS = 64


class RecordFormatError(ValueError):
    """A value that does not follow the record format."""


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
# run without Spark (steady_produce) can use this module.


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
