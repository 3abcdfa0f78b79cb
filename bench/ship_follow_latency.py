#!/usr/bin/env python3
"""`replay ship --follow`: from an event committed in the log to its row visible in PostgreSQL.

Copies the sample log into a temporary folder, ships it into an empty `message_store` (the
database at --url, which `replay pg init` prepares), starts `replay ship --follow`, and, as
the observer, `replay log -f --json --log <url>`, which LISTENs for the trigger's
notification and reads the new rows. Then it appends --events events (`contacts favorite` /
`unfavorite`, one process each) --interval-ms apart and, for each, takes

    latency = the time the observer printed the row - the event's `at`

`at` is stamped before the line is written, so the figure is at least the real
commit-to-visible time (it adds the append's write and fsync, and the observer's read).

    python3 bench/ship_follow_latency.py --url postgresql://postgres@127.0.0.1:55432/postgres \\
        --replay .build/release/replay --events 200 --interval-ms 100

The database's `message_store.messages` and `replay_shipped` are emptied first: point it at a
database of its own. Prints p50, p90, p99 and the maximum, in milliseconds.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def percentile(values, fraction):
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, int(round(fraction * (len(ordered) - 1)))))
    return ordered[index]


def milliseconds_of(at):
    """`2026-11-27T18:40:00.123Z` as milliseconds since 1970 (UTC)."""
    from datetime import datetime, timezone

    text = at.rstrip("Z")
    moment = datetime.fromisoformat(text).replace(tzinfo=timezone.utc)
    return moment.timestamp() * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--replay", default=os.path.join(ROOT, ".build/release/replay"))
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--interval-ms", type=int, default=100)
    parser.add_argument("--psql", default=shutil.which("psql") or "psql")
    arguments = parser.parse_args()
    replay = arguments.replay

    def run(*command):
        done = subprocess.run([replay, *command], capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"replay {' '.join(command)}: exit {done.returncode}: {done.stderr}")
        return done.stdout

    folder = tempfile.mkdtemp(prefix="ship-follow-")
    log = os.path.join(folder, "sample.jsonl")
    shutil.copy(os.path.join(ROOT, "eventlogs/sample.jsonl"), log)
    shutil.copy(os.path.join(ROOT, "eventlogs/sample.jsonl.keys"), log + ".keys")
    run("pg", "init", arguments.url)
    subprocess.run(
        [arguments.psql, arguments.url, "-q", "-c",
         "TRUNCATE message_store.messages, message_store.replay_shipped,"
         " message_store.replay_keys"],
        check=True)
    run("ship", "--log", log, "--to", arguments.url)

    shipper = subprocess.Popen(
        [replay, "ship", "--log", log, "--to", arguments.url, "--follow", "--json"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    observer = subprocess.Popen(
        [replay, "log", "-f", "--json", "--log", arguments.url, "--from", "148"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    seen = {}
    lock = threading.Lock()

    def observe():
        for line in observer.stdout:
            now = time.time() * 1000
            event = json.loads(line)
            with lock:
                seen[event["seq"]] = now - milliseconds_of(event["at"])

    reader = threading.Thread(target=observe, daemon=True)
    reader.start()
    time.sleep(1)
    try:
        for index in range(arguments.events):
            run("contacts", "unfavorite" if index % 2 else "favorite", "13", "--log", log)
            time.sleep(arguments.interval_ms / 1000)
        deadline = time.time() + 10
        while time.time() < deadline:
            with lock:
                if len(seen) >= arguments.events:
                    break
            time.sleep(0.05)
    finally:
        shipper.terminate()
        observer.terminate()
        shipper.wait()
        observer.wait()
        shutil.rmtree(folder, ignore_errors=True)
    latencies = list(seen.values())
    if os.environ.get("SHOW_SLOWEST"):
        print("slowest:", [round(value) for value in sorted(latencies)[-10:]])
    if len(latencies) < arguments.events:
        sys.exit(f"only {len(latencies)} of {arguments.events} events were seen in the database")
    print(
        f"{len(latencies)} events, {arguments.interval_ms} ms apart: "
        f"p50 {percentile(latencies, 0.5):.1f} ms, p90 {percentile(latencies, 0.9):.1f} ms, "
        f"p99 {percentile(latencies, 0.99):.1f} ms, max {max(latencies):.1f} ms")


if __name__ == "__main__":
    main()
