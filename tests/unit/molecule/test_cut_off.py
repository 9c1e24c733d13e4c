"""The pure parts of the faults' waits (molecule/shared/faults/cut_off.py): a voter's quorum-state file read, and
when the voters agree that the paused leader was replaced."""

import pytest

from ansible_collections.kafkaops.cluster.molecule.shared.faults import cut_off


def test_a_quorum_state_file_gives_the_leader_and_its_epoch():
    # As Kafka 4.4's voters write it, a directory id and all.
    text = ('{"leaderId":9002,"leaderEpoch":12,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA",'
            '"data_version":1}')
    assert cut_off.parse_quorum_state(text) == (9002, 12)
    # While it votes, a voter knows no leader.
    assert cut_off.parse_quorum_state('{"leaderId":-1,"leaderEpoch":13,"votedId":9003,"data_version":1}') == (-1, 13)


def test_a_file_that_is_no_quorum_state_is_refused():
    with pytest.raises(ValueError):
        cut_off.parse_quorum_state("not json")
    with pytest.raises(KeyError):
        cut_off.parse_quorum_state('{"votedId":9003}')


@pytest.mark.parametrize("view, replaced", [
    ({"c1": (9002, 12), "c2": (9002, 12), "c3": (9002, 12)}, True),
    # One voter has not heard yet, or still names the paused one, or the election is under way.
    ({"c1": (9002, 12), "c2": (9002, 12), "c3": (9001, 11)}, False),
    ({"c1": (-1, 12), "c2": (9002, 12), "c3": (9002, 12)}, False),
    # The paused leader in a later epoch is no replacement, nor another leader in the same epoch.
    ({"c1": (9001, 12), "c2": (9001, 12), "c3": (9001, 12)}, False),
    ({"c1": (9002, 11), "c2": (9002, 11), "c3": (9002, 11)}, False),
])
def test_the_leader_counts_as_replaced_once_every_other_voter_names_another_in_a_later_epoch(view, replaced):
    assert cut_off.elected_without(9001, 11)(view) is replaced
