"""The steady producer's transactions (its --transaction-records mode): which ones abort, and what came of each.

Records are written in transactions of a fixed number of records, numbered from 0; with --abort-every K,
transaction K-1, 2K-1, ... (every K-th) is aborted on purpose and the rest committed, so a test can say
in advance which records a read_committed reader must see and which it must not.

A transaction's records count by what the broker confirmed:

- committed: commit_transaction returned. Its records go into the manifest's partitions, with the
  partition each send was acknowledged in, exactly like the acknowledged records of a plain run, so the
  verifier's lost check covers them unchanged.
- aborted: abort_transaction returned. Its records go into the manifest's aborted_keys (by key, not by
  partition: a record whose send was never answered was still part of the transaction and may have been
  written, in a partition the producer never heard of); none of them may be visible to read_committed.
- uncertain: the commit or abort raised or did not return in time (the producer was fenced, the
  coordinator moved, a send of the transaction failed, a timeout). A commit that times out may still
  complete on the coordinator, and one that was refused may have been aborted, so these records belong
  to neither list: the manifest only counts them (uncertain), and the verifier checks nothing about them.
  The producer is replaced after such a failure; the new one's init_transactions completes or aborts
  whatever the old one left open.
"""

import threading

from kafkaops_verify.ranges import SequenceRanges


def aborts(number, abort_every):
    """True when transaction number (from 0) is aborted on purpose: every abort_every-th one; 0: none."""
    return abort_every > 0 and number % abort_every == abort_every - 1


def wait_for(call, seconds):
    """Runs call() (a commit or abort) and waits up to seconds for it; None waits as long as it takes.

    Returns None on success, else the error it raised, or TimeoutError when it did not return in time.
    kafka-python's commit_transaction and abort_transaction wait without a bound; the call runs in a daemon
    thread so that the run can give up on it. A call given up on stays blocked there until the producer is
    abandoned and the process exits; the transaction's records count as uncertain.
    """
    outcome = {}

    def run():
        try:
            call()
        except Exception as error:  # noqa: BLE001 - handed back to the caller, who counts the records uncertain
            outcome["error"] = error
        else:
            outcome["error"] = None

    worker = threading.Thread(target=run, name="transaction-end", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        return TimeoutError("no answer in %g s" % seconds)
    return outcome["error"]


class Transaction:
    """One open transaction: its number and the records sent in it, with their send futures."""

    def __init__(self, number, abort_every):
        self.number = number
        self.aborting = aborts(number, abort_every)
        self.records = []  # (key, sequence, future or None when the send raised)

    def add(self, key, sequence, future):
        self.records.append((key, sequence, future))


class TransactionLedger:
    """What came of each transaction: committed records by partition and key, aborted records by key, and how
    many were uncertain. Filled in the producer's main loop only, so it needs no lock."""

    def __init__(self, abort_every):
        self.abort_every = abort_every
        self.committed = {}  # (partition, key) -> SequenceRanges
        self.aborted = {}  # key -> SequenceRanges
        self.uncertain = 0
        self.transactions = {"committed": 0, "aborted": 0, "uncertain": 0}
        self.errors = {}
        self.next_number = 0

    def open(self):
        transaction = Transaction(self.next_number, self.abort_every)
        self.next_number += 1
        return transaction

    def settle(self, transaction, error):
        """Records the outcome of ending transaction: error is None when the broker confirmed the commit or the
        abort. A committed record whose own send failed (which a confirmed commit rules out; kept for safety)
        counts as uncertain, since its partition is unknown."""
        if error is not None:
            self._uncertain(transaction.records, error)
            return
        if transaction.aborting:
            self.transactions["aborted"] += 1
            for key, sequence, _future in transaction.records:
                self.aborted.setdefault(key, SequenceRanges()).add(sequence)
            return
        self.transactions["committed"] += 1
        unconfirmed = []
        for key, sequence, future in transaction.records:
            metadata = future.value if future is not None and future.succeeded() else None
            if metadata is None:
                unconfirmed.append((key, sequence, future))
                continue
            self.committed.setdefault((metadata.partition, key), SequenceRanges()).add(sequence)
        self.uncertain += len(unconfirmed)

    def _uncertain(self, records, error):
        self.transactions["uncertain"] += 1
        self.uncertain += len(records)
        name = type(error).__name__
        self.errors[name] = self.errors.get(name, 0) + 1

    def partition_keys(self):
        """Committed records as build_manifest takes them: {partition: {key: ranges}}."""
        result = {}
        for (partition, key), ranges in self.committed.items():
            result.setdefault(partition, {})[key] = ranges.ranges()
        return result

    def manifest_fields(self, transaction_records):
        """The manifest's transactional fields (manifests.py describes them)."""
        aborted_keys = {key: ranges.ranges() for key, ranges in sorted(self.aborted.items())}
        return {
            "transactional": True,
            "aborted": sum(ranges.count() for ranges in self.aborted.values()),
            "aborted_keys": aborted_keys,
            "uncertain": self.uncertain,
            "transactions": dict(self.transactions),
            "transaction_records": transaction_records,
            "abort_every": self.abort_every,
            "transaction_errors": dict(self.errors),
        }
