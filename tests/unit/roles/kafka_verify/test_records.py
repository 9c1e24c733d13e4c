"""The record format, in Python and as Spark columns."""

import pytest
from pyspark.sql import functions as F

from kafkaops_verify.records import (
    RecordFormatError,
    decode_value,
    encode_value,
    make_payload,
    spark_payload_column,
    spark_value_column,
)
from sample_records import RUN, value


def test_encode_decode_round_trip():
    payload = make_payload(RUN, "k", 7, 100)
    assert len(payload) == 100
    record = decode_value(encode_value(RUN, "k", 7, payload))
    assert (record.run_id, record.key, record.sequence, record.payload) == (RUN, "k", 7, payload)
    assert record.crc_ok()


def test_payload_may_hold_the_separator():
    record = decode_value(encode_value(RUN, "k", 0, b"a|b|c"))
    assert record.payload == b"a|b|c" and record.crc_ok()


@pytest.mark.parametrize("bad", [None, b"", b"garbage", b"v2|r|k|0|0|x", b"v1|r|k|x|0|p", b"v1|r|k|0|99999999999|p"])
def test_decode_rejects_malformed_values(bad):
    with pytest.raises(RecordFormatError):
        decode_value(bad)


def test_encode_rejects_separator_in_key():
    with pytest.raises(RecordFormatError):
        encode_value(RUN, "a|b", 0, b"x")


def test_spark_payload_and_value_match_python(spark):
    frame = spark.createDataFrame([(RUN, "k", 3)], "run_id string, key string, sequence long")
    payload = spark_payload_column(F.col("run_id"), F.col("key"), F.col("sequence"), 100)
    row = frame.select(
        spark_value_column(F.col("run_id"), F.col("key"), F.col("sequence"), payload).alias("value")
    ).first()
    assert row.value.encode() == value("k", 3, size=100)
