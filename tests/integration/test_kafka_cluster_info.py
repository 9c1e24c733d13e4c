"""kafka_cluster_info against the live cluster, in either mode: what it says of the brokers matches a
read of the test's own, and in KRaft mode it reports a metadata quorum every broker follows."""


def test_the_brokers_and_the_mode_are_reported(kafka, cluster):
    result = kafka("kafka_cluster_info", check=True)
    assert not result.failed, result.output
    assert result.changed is False
    assert [broker["id"] for broker in result["brokers"]] == cluster.broker_ids()
    assert result["mode"] in ("kraft", "zookeeper")
    print("\nmode: %s, quorum: %s" % (result["mode"], result["quorum"]))
    if result["mode"] == "zookeeper":
        assert result["quorum"] is None
        return
    quorum = result["quorum"]
    voters = [voter["id"] for voter in quorum["voters"]]
    assert quorum["leader_id"] in voters
    assert quorum["high_watermark"] > 0
    # Every broker fetches the metadata log as an observer (combined nodes are voters).
    assert set(cluster.broker_ids()) <= set(voters) | {observer["id"] for observer in quorum["observers"]}
    assert all(voter["lag"] is not None for voter in quorum["voters"])
