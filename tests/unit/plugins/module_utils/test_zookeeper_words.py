"""The answers of ZooKeeper's four-letter words srvr and mntr."""

from ansible_collections.kafkaops.cluster.plugins.module_utils._zookeeper_words import parse_mntr, parse_srvr


def test_srvr_and_mntr_are_parsed():
    srvr = "Zookeeper version: 3.8.4-abc, built on x\nLatency min/avg/max: 0/0.1/3\nZxid: 0x100000002\nMode: follower\n"
    assert parse_srvr(srvr) == {"mode": "follower", "zxid": "0x100000002", "version": "3.8.4-abc, built on x"}
    assert parse_mntr("zk_version\t3.8.4\nzk_avg_latency\t0\n") == {"zk_version": "3.8.4", "zk_avg_latency": 0}
