import struct

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_wire import (
    KafkaWireError,
    decode_metadata_response,
    encode_metadata_request,
    summarize,
)


def _string(text):
    raw = text.encode()
    return struct.pack(">h", len(raw)) + raw


def _int_array(values):
    return struct.pack(">i", len(values)) + b"".join(struct.pack(">i", v) for v in values)


def _response(brokers, controller, topics):
    body = struct.pack(">i", 7) + struct.pack(">i", len(brokers))
    for broker_id, host, port in brokers:
        body += struct.pack(">i", broker_id) + _string(host) + struct.pack(">i", port) + struct.pack(">h", -1)
    body += struct.pack(">i", controller) + struct.pack(">i", len(topics))
    for name, partitions in topics:
        body += struct.pack(">h", 0) + _string(name) + struct.pack(">b", 0) + struct.pack(">i", len(partitions))
        for number, leader, replicas, isr in partitions:
            body += struct.pack(">hii", 0, number, leader) + _int_array(replicas) + _int_array(isr)
    return body


def test_request_is_metadata_v1_with_all_or_no_topics():
    request = encode_metadata_request(5, "c", all_topics=True)
    size, api_key, version, correlation = struct.unpack_from(">ihhi", request)
    assert (size, api_key, version, correlation) == (len(request) - 4, 3, 1, 5)
    assert struct.unpack(">i", request[-4:]) == (-1,)
    assert struct.unpack(">i", encode_metadata_request(5, "c", all_topics=False)[-4:]) == (0,)


def test_response_is_decoded_and_summarized():
    payload = _response([(1, "a", 9092), (2, "b", 9092)], 2,
                        [("t", [(0, 1, [1, 2], [1, 2]), (1, 2, [2, 1], [2]), (2, -1, [1, 2], [])])])
    metadata = decode_metadata_response(payload)
    assert metadata["brokers"][0] == {"id": 1, "host": "a", "port": 9092, "rack": None}
    assert summarize(metadata) == {"broker_ids": [1, 2], "controller_id": 2,
                                   "under_replicated_partitions": ["t-1", "t-2"],
                                   "offline_partitions": ["t-2"]}


def test_truncated_response_is_an_error():
    with pytest.raises(KafkaWireError):
        decode_metadata_response(_response([(1, "a", 9092)], 1, [])[:-3])
