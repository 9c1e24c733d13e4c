"""Produces records at a steady rate for a while (or until SIGTERM), then writes what was acknowledged.

Meant to run in the background while brokers move data. A kafka-python producer with acks=all and
idempotence sends records of --keys keys in round robin, each key with its own sequence; Kafka's
partitioner picks the partition. Only records whose send was acknowledged enter the manifest, with
the partition the acknowledgement names; a send that failed after its bounded retries is counted as
failed, not expected. SIGTERM or SIGINT stops sending, waits for outstanding acknowledgements up to
--drain-seconds, writes the manifest and exits 0. So does a run in which nothing was acknowledged
for --give-up-seconds (the cluster is gone, or whatever started it failed and cannot stop it).

A producer that hears nothing back for --restart-seconds while records are outstanding is closed (its
outstanding records count as failed) and replaced by a new one. kafka-python's idempotent producer can
wedge: once an expired batch makes it drop its producer id, it sends nothing and expires nothing until
a new id arrives, and a lost InitProducerId answer leaves it waiting for good (seen once in a migration
run: 300 s without an acknowledgement while the cluster took other clients' writes). An application
would restart such a client; the manifest counts the replacements (producer_restarts) and the longest
time without an acknowledgement (longest_silence_seconds), so a run that needed them shows it.

With --transaction-records N the same loop writes in transactions of N records (transactional.id
kafkaops-verify-<run id>) and aborts every --abort-every-th one on purpose; the manifest then lists the
committed records as its acknowledged ones, the aborted ones apart, and counts those whose transaction
ended without a confirmed commit or abort as uncertain (transactions.py says why). A commit or abort
waits up to --restart-seconds (at the end, --drain-seconds); one that fails or runs out replaces the
producer, as a stuck one is replaced.
"""

import argparse
import logging
import os
import signal
import sys
import threading
import time
from datetime import UTC, datetime

from kafkaops_verify.connection import ConnectionSettingsError, add_connection_option, job_clients
from kafkaops_verify.manifests import build_manifest, write_manifest
from kafkaops_verify.options import add_pairs_option
from kafkaops_verify.ranges import SequenceRanges
from kafkaops_verify.records import check_name, encode_value, make_payload
from kafkaops_verify.transactions import TransactionLedger, wait_for


class Acknowledgements:
    """What the brokers acknowledged, filled from the producer's I/O thread."""

    def __init__(self):
        self._lock = threading.Lock()
        self._ranges = {}
        self.acknowledged = 0
        self.failed = 0
        # Records of a transaction this run aborted that were not sent yet: the abort fails them
        # (TransactionAbortedError). Settled as planned, so neither failed nor outstanding.
        self.aborted_unsent = 0
        # Once the run stops waiting (see drain), later answers no longer count.
        self.counting = True
        self.errors = {}
        self.last_success = time.monotonic()

        self.longest_silence = 0.0

    def on_success(self, key, sequence, metadata):
        with self._lock:
            if not self.counting:
                return
            self._ranges.setdefault((metadata.partition, key), SequenceRanges()).add(sequence)
            self.acknowledged += 1
            now = time.monotonic()
            self.longest_silence = max(self.longest_silence, now - self.last_success)
            self.last_success = now

    def on_failure(self, error):
        with self._lock:
            if not self.counting:
                return
            if type(error).__name__ == "TransactionAbortedError":
                self.aborted_unsent += 1
                return
            self.failed += 1
            name = type(error).__name__
            self.errors[name] = self.errors.get(name, 0) + 1

    def stop_counting(self, sent):
        """Ends the counts; returns how many of the sent records were neither acknowledged nor failed by then."""
        with self._lock:
            self.counting = False
            return self.outstanding(sent)

    def outstanding(self, sent):
        """Of the sent records, those neither acknowledged, failed nor settled by this run's own abort."""
        return sent - self.acknowledged - self.failed - self.aborted_unsent

    def partition_keys(self):
        with self._lock:
            result = {}
            for (partition, key), ranges in self._ranges.items():
                result.setdefault(partition, {})[key] = ranges.ranges()
            return result


class RedactingFilter(logging.Filter):
    """Takes the connection's secrets out of every log line before it is written."""

    def __init__(self, redact):
        super().__init__()
        self._redact = redact

    def filter(self, record):
        record.msg, record.args = self._redact(record.getMessage()), None
        return True


def silent_too_long(now, last_success, give_up_seconds):
    """True once nothing was acknowledged for give_up_seconds (0: never give up)."""
    return give_up_seconds > 0 and now - last_success >= give_up_seconds


def restart_due(now, quiet_since, outstanding, restart_seconds):
    """True once records are outstanding and nothing was acknowledged since quiet_since (the last
    acknowledgement or the last replacement, whichever came later) for restart_seconds (0: never)."""
    return restart_seconds > 0 and outstanding > 0 and now - quiet_since >= restart_seconds


# How long a stopped producer's I/O thread gets to fail what it still held (its send callbacks run there).
STOP_JOIN_SECONDS = 5.0


def abandon(producer):
    """Stops a producer without sending anything more; what it still holds fails (the failures reach the
    send callbacks, so they count as failed).

    kafka-python's close(timeout=0) flushes first: it marks every batch ready, so the I/O thread sends
    records a linger was still holding, and the broker may acknowledge them after the producer was given
    up. The I/O thread is stopped first instead (force_close fails what is not yet sent), then joined so
    the failures are counted before the caller reads the counts; the close after it only releases the rest.
    """
    sender = getattr(producer, "_sender", None)
    if sender is not None:
        sender.force_close()
        sender.join(STOP_JOIN_SECONDS)
    try:
        producer.close(timeout=0)
    except Exception:  # noqa: BLE001 - the I/O thread is already stopped; nothing is left to wait for
        pass


def drain(producer, seconds, acknowledgements, sent, redact):
    """Waits up to seconds for outstanding acknowledgements, then stops the producer without waiting.

    The counts end when the wait ends: a record answered later (one the I/O thread had already sent)
    stays unanswered and out of the manifest, which lists acknowledged records and nothing else. Whatever
    goes wrong here (kafka-python's flush raises when the wait runs out) must not cost the manifest: the
    records acknowledged so far are the whole point of the run.
    """
    if seconds > 0:
        try:
            producer.flush(timeout=seconds)
        except Exception as error:  # noqa: BLE001 - reported, and the manifest is still written
            message = redact(str(error)) or type(error).__name__
            print("steady_produce: flush: %s" % message, file=sys.stderr, flush=True)
    unanswered = acknowledgements.stop_counting(sent)
    if unanswered:
        print("steady_produce: %d records unanswered after a drain of %g s: stopping the producer without"
              " waiting for them" % (unanswered, seconds), file=sys.stderr, flush=True)
    abandon(producer)


def argument_parser():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", maxsplit=1)[0])
    parser.add_argument("--bootstrap-servers", required=True, help="host:port[,host:port...]")
    parser.add_argument("--topic", required=True)
    parser.add_argument("--rate", type=float, default=100.0, help="records per second (100)")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds to run; 0 = until SIGTERM (60)")
    parser.add_argument("--keys", type=int, default=16, help="distinct keys (16)")
    parser.add_argument("--payload-bytes", type=int, default=64, help="payload size (64)")
    parser.add_argument("--run-id", default="", help="run id in every record (default: steady-<time>-<pid>)")
    parser.add_argument("--manifest", required=True, help="where to write the manifest of acknowledged records")
    parser.add_argument("--retries", type=int, default=5, help="producer retries per batch (5)")
    parser.add_argument(
        "--delivery-timeout-ms", type=int, default=60000, help="give up on a record after this long (60000)"
    )
    parser.add_argument(
        "--give-up-seconds", type=float, default=300.0,
        help="stop when nothing was acknowledged for this long; 0 = never (300)",
    )
    parser.add_argument(
        "--restart-seconds", type=float, default=60.0,
        help="replace a producer that acknowledged nothing for this long with records outstanding, or whose commit"
        " or abort took this long; 0 = never (60)",
    )
    parser.add_argument(
        "--send-interval", type=float, default=0.25,
        help="seconds between bursts: each sends what the rate has made due since the last (0.25)",
    )
    parser.add_argument("--drain-seconds", type=float, default=30.0, help="wait for acknowledgements at the end (30)")
    parser.add_argument("--progress-seconds", type=float, default=10.0, help="progress line interval on stderr (10)")
    parser.add_argument(
        "--transaction-records", type=int, default=0,
        help="write in transactions of this many records; 0 = no transactions (0)",
    )
    parser.add_argument(
        "--abort-every", type=int, default=4,
        help="with --transaction-records: abort every this-many-th transaction on purpose; 0 = none (4)",
    )
    add_connection_option(parser)
    add_pairs_option(parser, "--client-option", "a kafka-python KafkaProducer setting, e.g. linger_ms=20")
    return parser


def main(argv=None):
    args = argument_parser().parse_args(argv)
    if args.rate <= 0 or args.keys < 1 or args.duration < 0 or not 0 < args.send_interval <= 5:
        raise SystemExit("steady_produce: --rate > 0, --keys >= 1, --duration >= 0 and 0 < --send-interval <= 5 please")
    if args.transaction_records < 0 or args.abort_every < 0:
        raise SystemExit("steady_produce: --transaction-records >= 0 and --abort-every >= 0 please")
    run_id = check_name(
        args.run_id or "steady-%s-%d" % (datetime.now(UTC).strftime("%Y%m%dT%H%M%S"), os.getpid()), "run id"
    )
    stop = threading.Event()

    def request_stop(signum, _frame):
        print("steady_produce: signal %d: stopping" % signum, file=sys.stderr, flush=True)
        stop.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)

    try:
        clients = job_clients(args.connection_file, client_option_pairs=args.client_option)
    except ConnectionSettingsError as error:
        print("steady_produce: %s" % error, file=sys.stderr)
        return 2

    # kafka-python's own warnings (lost connections, retried requests) go to the same log, with the time.
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    handler.addFilter(RedactingFilter(clients.redact))
    logging.getLogger("kafka").addHandler(handler)
    logging.getLogger("kafka").setLevel(logging.WARNING)

    from kafka import KafkaProducer

    settings = {
        "acks": "all",
        "enable_idempotence": True,
        "retries": args.retries,
        "delivery_timeout_ms": args.delivery_timeout_ms,
        "linger_ms": 5,
        **clients.python_settings,
    }
    if settings["acks"] not in ("all", -1):
        raise SystemExit("steady_produce: acks must stay 'all': the manifest promises acknowledged records")
    ledger = TransactionLedger(args.abort_every) if args.transaction_records else None
    if ledger is not None:
        # Per run: a replacement producer fences the one it replaces, and no other run's producer is touched.
        settings["transactional_id"] = "kafkaops-verify-" + run_id
    # How long a commit or abort may take before the producer counts as stuck (0: as long as it takes).
    end_seconds = args.restart_seconds or None

    def new_producer():
        producer = KafkaProducer(bootstrap_servers=args.bootstrap_servers, **settings)
        if ledger is not None:
            try:
                producer.init_transactions()
            except Exception:
                abandon(producer)
                raise
        return producer

    try:
        producer = new_producer()
    except Exception as error:  # any failure to connect ends the run before it starts
        print("steady_produce: cannot start a producer: %s" % clients.redact(str(error)), file=sys.stderr)
        return 2

    acknowledgements = Acknowledgements()
    keys = ["key-%04d" % index for index in range(args.keys)]
    next_sequence = [0] * args.keys
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    started = time.monotonic()
    deadline = started + args.duration if args.duration else None
    next_progress = started + args.progress_seconds
    sent = 0
    restarts = 0
    last_restart = started
    transaction = None

    def replace_producer(reason):
        """Abandons the producer; an open transaction's records count as uncertain. The loop starts a new one."""
        nonlocal producer, transaction, restarts, last_restart
        if transaction is not None:
            ledger.settle(transaction, reason)
            transaction = None
        abandon(producer)
        producer, restarts, last_restart = None, restarts + 1, time.monotonic()

    def end_transaction(seconds):
        """Commits or aborts the open transaction as scheduled; a failure replaces the producer."""
        nonlocal transaction
        ending, transaction = transaction, None
        error = wait_for(producer.abort_transaction if ending.aborting else producer.commit_transaction, seconds)
        ledger.settle(ending, error)
        if error is not None:
            print("steady_produce: transaction %d: %s failed (%s): its %d records count as uncertain; starting a new"
                  " producer" % (ending.number, "abort" if ending.aborting else "commit",
                                 clients.redact(str(error)) or type(error).__name__, len(ending.records)),
                  file=sys.stderr, flush=True)
            replace_producer(error)
    # Why it stopped, in the manifest: a run that gave up did not write the whole time it was meant to.
    stopped_by = "signal"
    while not stop.is_set():
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            stopped_by = "duration"
            break
        if silent_too_long(now, acknowledgements.last_success, args.give_up_seconds):
            print("steady_produce: nothing acknowledged for %.0f s: giving up" % args.give_up_seconds,
                  file=sys.stderr, flush=True)
            stopped_by = "give_up"
            break
        outstanding = acknowledgements.outstanding(sent)
        if producer is not None and restart_due(now, max(acknowledgements.last_success, last_restart), outstanding,
                                                args.restart_seconds):
            print("steady_produce: nothing acknowledged for %.0f s with %d records outstanding: closing this"
                  " producer (they count as failed) and starting a new one" % (args.restart_seconds, outstanding),
                  file=sys.stderr, flush=True)
            replace_producer(TimeoutError("nothing acknowledged for %g s" % args.restart_seconds))
        if producer is None:
            try:
                producer = new_producer()
            except Exception as error:  # noqa: BLE001 - tried again on the next round; give-up still applies
                print("steady_produce: cannot start a new producer: %s" % clients.redact(str(error)),
                      file=sys.stderr, flush=True)
                stop.wait(1.0)
                continue
        # Catch up to the schedule in one burst, then sleep: the rate holds without a timer per record. A burst
        # every quarter second rather than every record's due time: at 40 records per second that cost the
        # producer about a quarter of the CPU (docs/benchmarks.md), and the stream is as steady as any check
        # can see.
        due = int((now - started) * args.rate) + 1 - sent
        for _unused in range(max(due, 0)):
            if ledger is not None and transaction is None:
                try:
                    producer.begin_transaction()
                except Exception as error:  # noqa: BLE001 - a producer in an error state is replaced
                    replace_producer(error)
                    break
                transaction = ledger.open()
            index = sent % args.keys
            key, sequence = keys[index], next_sequence[index]
            value = encode_value(run_id, key, sequence, make_payload(run_id, key, sequence, args.payload_bytes))
            future = None
            try:
                future = producer.send(args.topic, key=key.encode(), value=value)
            except Exception as error:  # a refused send is a failed record, not a crash
                acknowledgements.on_failure(error)
            else:
                future.add_callback(acknowledgements.on_success, key, sequence)
                future.add_errback(acknowledgements.on_failure)
            next_sequence[index] += 1
            sent += 1
            if transaction is not None:
                transaction.add(key, sequence, future)
                if len(transaction.records) >= args.transaction_records:
                    end_transaction(end_seconds)
                    if producer is None:
                        break
        if now >= next_progress:
            print(
                "steady_produce: sent %d, acknowledged %d, failed %d, at %.0f s"
                % (sent, acknowledgements.acknowledged, acknowledgements.failed, now - started),
                file=sys.stderr,
                flush=True,
            )
            next_progress += args.progress_seconds
        stop.wait(args.send_interval)

    elapsed = time.monotonic() - started
    if producer is not None and transaction is not None:
        # The last transaction ends as scheduled, even when short: its records are committed or aborted, not
        # left open until the coordinator's timeout (which would hold read_committed readers back until then).
        if args.drain_seconds > 0:
            end_transaction(args.drain_seconds)
        else:
            replace_producer(TimeoutError("the run ended with a drain of 0 s"))
    if producer is not None:
        drain(producer, 0 if ledger is not None else args.drain_seconds, acknowledgements, sent, clients.redact)
    if ledger is not None:
        kind, partition_keys, details = "transactional", ledger.partition_keys(), ledger.manifest_fields(
            args.transaction_records)
    else:
        kind, partition_keys, details = "steady", acknowledgements.partition_keys(), {}
    manifest = build_manifest(
        kind,
        run_id,
        args.topic,
        partition_keys,
        sent=sent,
        failed=acknowledgements.failed,
        unanswered=acknowledgements.outstanding(sent),
        errors=acknowledgements.errors,
        rate=args.rate,
        key_count=args.keys,
        payload_bytes=args.payload_bytes,
        started_at=started_at,
        elapsed_seconds=round(elapsed, 1),
        stopped_by=stopped_by,
        producer_restarts=restarts,
        longest_silence_seconds=round(max(acknowledgements.longest_silence,
                                          time.monotonic() - acknowledgements.last_success
                                          if stopped_by == "give_up" else 0.0), 1),
        **details,
    )
    write_manifest(args.manifest, manifest)
    outcome = "acknowledged %d" % manifest["acknowledged"]
    if ledger is not None:
        outcome = "committed %d, aborted %d, uncertain %d" % (manifest["acknowledged"], manifest["aborted"],
                                                              manifest["uncertain"])
    print(
        "steady_produce: run %s: sent %d in %.1f s, %s, failed %d; manifest %s"
        % (run_id, sent, elapsed, outcome, acknowledgements.failed, args.manifest)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
