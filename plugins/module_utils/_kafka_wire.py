# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A minimal Kafka protocol client (Metadata v1 only), standard library only.

The broker role runs on hosts where no Kafka client library can be installed, yet it must know
when a broker it started is registered and when the cluster has no under-replicated partitions.
One Metadata request answers both, so that is all this speaks.
"""

from __future__ import absolute_import, division, print_function


import socket
import struct

METADATA_API_KEY = 3
METADATA_API_VERSION = 1


class KafkaWireError(Exception):
    """The broker could not be reached or answered something this client cannot read."""


class _Reader:
    def __init__(self, data):
        self.data = data
        self.offset = 0

    def _unpack(self, fmt):
        size = struct.calcsize(fmt)
        if self.offset + size > len(self.data):
            raise KafkaWireError("truncated Metadata response")
        (value,) = struct.unpack_from(fmt, self.data, self.offset)
        self.offset += size
        return value

    def int8(self):
        return self._unpack(">b")

    def int16(self):
        return self._unpack(">h")

    def int32(self):
        return self._unpack(">i")

    def string(self):
        length = self.int16()
        if length < 0:
            return None
        raw = self.data[self.offset:self.offset + length]
        self.offset += length
        return raw.decode("utf-8")

    def array(self, read_item):
        count = self.int32()
        return [read_item() for unused in range(max(count, 0))]


def encode_metadata_request(correlation_id, client_id, all_topics=True):
    """Metadata v1 request; topics -1 (null) asks for every topic, 0 for none."""
    client = client_id.encode("utf-8")
    body = struct.pack(">hhih", METADATA_API_KEY, METADATA_API_VERSION, correlation_id, len(client))
    body += client + struct.pack(">i", -1 if all_topics else 0)
    return struct.pack(">i", len(body)) + body


def decode_metadata_response(payload):
    """Parse a Metadata v1 response body (without its size prefix) into plain dicts."""
    reader = _Reader(payload)
    correlation_id = reader.int32()

    def broker():
        return {"id": reader.int32(), "host": reader.string(), "port": reader.int32(),
                "rack": reader.string()}

    def partition():
        return {"error_code": reader.int16(), "partition": reader.int32(), "leader": reader.int32(),
                "replicas": reader.array(reader.int32), "isr": reader.array(reader.int32)}

    def topic():
        return {"error_code": reader.int16(), "name": reader.string(), "internal": bool(reader.int8()),
                "partitions": reader.array(partition)}

    brokers = reader.array(broker)
    controller_id = reader.int32()
    topics = reader.array(topic)
    return {"correlation_id": correlation_id, "brokers": brokers, "controller_id": controller_id,
            "topics": topics}


def _receive_exactly(sock, size):
    chunks = []
    remaining = size
    while remaining:
        chunk = sock.recv(min(remaining, 65536))
        if not chunk:
            raise KafkaWireError("connection closed before the full response arrived")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def fetch_metadata(host, port, timeout, all_topics=True):
    """Ask one broker for cluster metadata. Raises KafkaWireError on any failure."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.settimeout(timeout)
            sock.sendall(encode_metadata_request(1, "kafkaops-wait", all_topics))
            (size,) = struct.unpack(">i", _receive_exactly(sock, 4))
            return decode_metadata_response(_receive_exactly(sock, size))
    except (OSError, struct.error) as error:
        raise KafkaWireError("%s:%s: %s" % (host, port, error)) from error


def summarize(metadata):
    """Counts an operator looks at: brokers, controller, under-replicated and offline partitions."""
    under_replicated = []
    offline = []
    for topic in metadata["topics"]:
        for part in topic["partitions"]:
            name = "%s-%d" % (topic["name"], part["partition"])
            if part["leader"] < 0:
                offline.append(name)
            if len(part["isr"]) < len(part["replicas"]):
                under_replicated.append(name)
    return {
        "broker_ids": sorted(b["id"] for b in metadata["brokers"]),
        "controller_id": metadata["controller_id"],
        "under_replicated_partitions": sorted(under_replicated),
        "offline_partitions": sorted(offline),
    }
