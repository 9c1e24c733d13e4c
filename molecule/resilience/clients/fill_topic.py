"""Write 5,000 keyed records with acks=all and exit non-zero unless every one was acknowledged.

Usage: fill_topic.py BOOTSTRAP_SERVERS TOPIC (servers comma-separated). Run by resilience.yml on the
Ansible controller with kafka-python; verify reads every record back after the reassignment.
"""

import sys

from kafka import KafkaProducer

RECORDS = 5000


def main(servers, topic):
    # Retried until the delivery timeout (the default): every record must be acknowledged.
    producer = KafkaProducer(bootstrap_servers=servers.split(","), acks="all")
    futures = [producer.send(topic, key=b"k%d" % (index % 50), value=b"click-%d" % index) for index in range(RECORDS)]
    producer.flush(150)
    producer.close()
    unacknowledged = sum(1 for future in futures if not future.succeeded())
    if unacknowledged:
        return "%d of %d records were not acknowledged" % (unacknowledged, RECORDS)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
