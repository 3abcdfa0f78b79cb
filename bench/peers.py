#!/usr/bin/env python3
"""The Python peers of the benchmark: each subcommand reads or decodes the same generated log
the engine replays, or runs the nearest-neighbour references, and prints one JSON object.

    peers.py json <log> [--limit n]               json.loads per line
    peers.py orjson <log> [--limit n]             orjson.loads per line
    peers.py sqlite-load <log> <db> [--limit n]   the events into a SQLite table (setup)
    peers.py sqlite-read <db>                     every row read back, data and meta decoded
    peers.py es-load <log> <db> [--limit n]       the events into the eventsourcing library's
                                                  SQLite application recorder (setup)
    peers.py es-read <db>                         every notification read and deserialised
    peers.py knn <points.f64> [--neighbors f]     scipy cKDTree and scikit-learn BallTree
    peers.py unseal <log> <out>                   the log's twin with its contacts in clear: every
                                                  sealed payload opened with <log>.keys
                                                  (cryptography's ChaCha20-Poly1305), its line
                                                  written again as schema 1 with its CRC-32C

Only `json` runs without the venv's packages.
"""

import json
import os
import sqlite3
import sys
import time
import uuid


def limit_of(args):
    if "--limit" in args:
        return int(args[args.index("--limit") + 1])
    return None


def lines(path, limit):
    with open(path, "rb") as log:
        for number, line in enumerate(log):
            if limit is not None and number >= limit:
                return
            yield line


def report(**fields):
    print(json.dumps(fields))


def parse_per_line(loads, path, limit):
    start = time.perf_counter()
    events = 0
    size = 0
    for line in lines(path, limit):
        event = loads(line)
        size += len(line)
        events += 1
    report(events=events, bytes=size, seconds=time.perf_counter() - start)


def sqlite_load(path, db, limit):
    import orjson

    if os.path.exists(db):
        os.remove(db)
    connection = sqlite3.connect(db)
    connection.execute(
        "CREATE TABLE events (seq INTEGER PRIMARY KEY, id TEXT, stream TEXT, version INTEGER, "
        "type TEXT, at TEXT, meta TEXT, data TEXT)"
    )
    rows = []
    for line in lines(path, limit):
        event = orjson.loads(line)
        rows.append(
            (
                event["seq"],
                event["id"],
                event["stream"],
                event["version"],
                event["type"],
                event["at"],
                orjson.dumps(event.get("meta", {})).decode(),
                orjson.dumps(event["data"]).decode(),
            )
        )
        if len(rows) == 10000:
            connection.executemany("INSERT INTO events VALUES (?,?,?,?,?,?,?,?)", rows)
            rows.clear()
    connection.executemany("INSERT INTO events VALUES (?,?,?,?,?,?,?,?)", rows)
    connection.commit()
    connection.close()
    report(bytes=os.path.getsize(db))


def sqlite_read(db):
    import orjson

    start = time.perf_counter()
    connection = sqlite3.connect(db)
    events = 0
    for seq, event_id, stream, version, event_type, at, meta, data in connection.execute(
        "SELECT seq, id, stream, version, type, at, meta, data FROM events ORDER BY seq"
    ):
        orjson.loads(data)
        orjson.loads(meta)
        events += 1
    connection.close()
    report(events=events, seconds=time.perf_counter() - start)


def event_sourcing_parts(db):
    """The eventsourcing library's SQLite application recorder and a mapper with its JSON
    transcoder, as an Application sets them up, plus one event class for every logged event."""
    from eventsourcing.persistence import (
        DatetimeAsISO,
        JSONTranscoder,
        Mapper,
        UUIDAsHex,
    )
    from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore

    transcoder = JSONTranscoder()
    transcoder.register(UUIDAsHex())
    transcoder.register(DatetimeAsISO())
    datastore = SQLiteDatastore(db_name=db)
    recorder = SQLiteApplicationRecorder(datastore)
    recorder.create_table()
    return recorder, Mapper(transcoder=transcoder), LoggedEvent


try:  # only in the venv; the class must live at module level for its topic to resolve
    from eventsourcing.domain import DomainEvent as _DomainEvent
except ImportError:
    _DomainEvent = None

if _DomainEvent is not None:

    class LoggedEvent(_DomainEvent):
        """One event of the log: its aggregate is its stream."""

        stream: str
        type: str
        seq: int
        meta: dict
        data: dict


def event_sourcing_load(path, db, limit):
    from datetime import datetime

    import orjson

    if os.path.exists(db):
        os.remove(db)
    recorder, mapper, event_class = event_sourcing_parts(db)
    namespace = uuid.UUID("6ba7b811-9dad-11d1-80b4-00c04fd430c8")
    batch = []
    for line in lines(path, limit):
        event = orjson.loads(line)
        batch.append(
            mapper.to_stored_event(
                event_class(
                    originator_id=uuid.uuid5(namespace, event["stream"]),
                    originator_version=event["version"],
                    timestamp=datetime.fromisoformat(event["at"].replace("Z", "+00:00")),
                    stream=event["stream"],
                    type=event["type"],
                    seq=event["seq"],
                    meta=event.get("meta", {}),
                    data=event["data"],
                )
            )
        )
        if len(batch) == 1000:
            recorder.insert_events(batch)
            batch.clear()
    if batch:
        recorder.insert_events(batch)
    report(bytes=os.path.getsize(db))


def event_sourcing_read(db):
    start = time.perf_counter()
    recorder, mapper, _ = event_sourcing_parts(db)
    events = 0
    position = 1
    while True:
        page = recorder.select_notifications(start=position, limit=1000)
        if not page:
            break
        for notification in page:
            mapper.to_domain_event(notification)
            events += 1
        position = page[-1].id + 1
    report(events=events, seconds=time.perf_counter() - start)


EARTH_RADIUS_MILES = 3958.8


def knn(points_path, neighbors_path):
    import numpy as np
    from scipy.spatial import cKDTree
    from sklearn.neighbors import BallTree

    pairs = np.fromfile(points_path, dtype="<f8").reshape(-1, 2)
    latitudes = np.radians(pairs[:, 0])
    longitudes = np.radians(pairs[:, 1])
    vectors = np.column_stack(
        (
            np.cos(latitudes) * np.cos(longitudes),
            np.cos(latitudes) * np.sin(longitudes),
            np.sin(latitudes),
        )
    )
    count = len(pairs)

    start = time.perf_counter()
    tree = cKDTree(vectors)
    kd_build = time.perf_counter() - start
    start = time.perf_counter()
    kd_distances, kd_indices = tree.query(vectors, k=4)
    kd_query = time.perf_counter() - start

    radians = np.column_stack((latitudes, longitudes))
    start = time.perf_counter()
    ball = BallTree(radians, metric="haversine")
    ball_build = time.perf_counter() - start
    start = time.perf_counter()
    ball_distances, ball_indices = ball.query(radians, k=4)
    ball_query = time.perf_counter() - start

    # The Swift index's answers against cKDTree's (chord order is great-circle order), compared
    # by distance so that ties cannot make a false mismatch.
    compared = mismatches = 0
    if neighbors_path and os.path.exists(neighbors_path):
        rows = np.fromfile(neighbors_path, dtype="<f8").reshape(-1, 7)
        for row in rows:
            point = int(row[0])
            swift = sorted(row[2::2])
            chords = kd_distances[point][1:4]
            reference = sorted(2 * EARTH_RADIUS_MILES * np.arcsin(np.minimum(1, chords / 2)))
            compared += 1
            if not np.allclose(swift, reference, rtol=1e-7, atol=1e-6):
                mismatches += 1
    report(
        points=count,
        seconds=kd_query,
        kdtreeBuildSeconds=kd_build,
        kdtreeQuerySeconds=kd_query,
        kdtreeQueriesPerSecond=count / kd_query,
        balltreeBuildSeconds=ball_build,
        balltreeQuerySeconds=ball_query,
        balltreeQueriesPerSecond=count / ball_query,
        swiftCompared=compared,
        swiftMismatches=mismatches,
    )


def unseal(path, out):
    """Writes the plaintext twin of a sealed log (docs/FORMAT.md, "Personal data"): each schema 2
    ContactAdded or ContactUpdated becomes the schema 1 line it was sealed from (the sealed
    record's plaintext is the schema 1 payload), every other line is copied. The replay of the
    twin is what the sealed log's replay is compared with (issue 13's target: ≥ 80 %)."""
    import base64

    import crc32c
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    ciphers = {}
    with open(path + ".keys", "rb") as store:
        for line in store:
            if line.startswith(b'{"key":"'):
                entry = json.loads(line)
                ciphers[entry["key"]] = ChaCha20Poly1305(bytes.fromhex(entry["secret"]))
    start = time.perf_counter()
    opened = 0
    suffix = len(',"crc":"00000000"}')
    with open(path, "rb") as source, open(out, "wb") as target:
        for line in source:
            if b'"schema":2' not in line or not (
                b'"type":"ContactAdded"' in line or b'"type":"ContactUpdated"' in line
            ):
                target.write(line)
                continue
            # `data` is the last member before `crc`; the checksum covers everything before it.
            body = line.rstrip(b"\n")[:-suffix]
            at = body.index(b',"data":')
            envelope = json.loads(body + b"}")
            data = envelope["data"]
            cipher = ciphers.get(data.get("key"))
            if cipher is None:  # an erased contact: its key is gone, the line stays sealed
                target.write(line)
                continue
            sealed = base64.b64decode(data["sealed"], validate=True)
            bound = b"\0".join(
                [b"replay/personal/v1"]
                + [envelope[name].encode() for name in ("id", "stream", "type")]
            )
            plaintext = cipher.decrypt(sealed[:12], sealed[12:], bound)
            clear = body[:at].replace(b'"schema":2', b'"schema":1', 1) + b',"data":' + plaintext
            target.write(clear + b',"crc":"%08x"}\n' % crc32c.crc32c(clear))
            opened += 1
    report(opened=opened, seconds=time.perf_counter() - start)


def main(args):
    command = args[0]
    if command == "json":
        parse_per_line(json.loads, args[1], limit_of(args))
    elif command == "orjson":
        import orjson

        parse_per_line(orjson.loads, args[1], limit_of(args))
    elif command == "sqlite-load":
        sqlite_load(args[1], args[2], limit_of(args))
    elif command == "sqlite-read":
        sqlite_read(args[1])
    elif command == "es-load":
        event_sourcing_load(args[1], args[2], limit_of(args))
    elif command == "es-read":
        event_sourcing_read(args[1])
    elif command == "unseal":
        unseal(args[1], args[2])
    elif command == "knn":
        neighbors = args[args.index("--neighbors") + 1] if "--neighbors" in args else None
        knn(args[1], neighbors)
    else:
        sys.exit(f"peers.py: unknown subcommand {command!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
