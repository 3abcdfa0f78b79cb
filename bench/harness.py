#!/usr/bin/env python3
"""Runs the benchmark's stages on one generated log and prints (and saves) the table of medians.

bench/run.sh builds the programs, prepares the Python venv and calls this; see bench/README.md.
Only the standard library is used here: the peers that need packages run in the venv's Python.
Timings are medians of --runs repetitions, measured in this one run, so that ratios compare
numbers taken on the same machine at the same time. Nothing here asserts a target.
"""

import argparse
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)


class Harness:
    def __init__(self, options):
        self.options = options
        self.work = options.work
        self.replay = options.replay
        self.bench = options.bench
        self.venv_python = options.venv_python
        self.hyperfine = options.hyperfine
        self.runs = options.runs
        self.events = options.events
        self.failures = []
        self.notes = []
        self.sections = []

    # MARK: Running things

    def say(self, text):
        print(text, flush=True)

    def run(self, command, **kwargs):
        """Runs a command to completion, returning its standard output; raises on failure."""
        result = subprocess.run(command, capture_output=True, text=True, **kwargs)
        if result.returncode != 0:
            raise RuntimeError(
                f"{' '.join(command)} exited {result.returncode}: {result.stderr.strip()[-2000:]}"
            )
        return result.stdout

    def wall_seconds(self, command):
        """Runs a command once, its output discarded, and returns its wall-clock seconds."""
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        return time.perf_counter() - start

    def run_json(self, command):
        """Runs a command that prints one JSON object as its last line."""
        return json.loads(self.run(command).strip().splitlines()[-1])

    def time_process(self, name, command, runs=None, prepare=None):
        """Median wall-clock seconds of a whole process (hyperfine, else a loop), after one
        warm-up run; `prepare` (a command) runs before each run, untimed."""
        runs = runs or self.runs
        if self.hyperfine:
            with tempfile.NamedTemporaryFile(suffix=".json", dir=self.work) as export:
                preparing = (["--prepare", " ".join(quote(part) for part in prepare)]
                             if prepare else [])
                result = subprocess.run(
                    [
                        self.hyperfine, "--style", "none", "-N", "--warmup", "1",
                        "--runs", str(runs), "--export-json", export.name, *preparing,
                        "--command-name", name, " ".join(quote(part) for part in command),
                    ],
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                )
                if result.returncode != 0:
                    raise RuntimeError(f"{name}: hyperfine: {result.stderr.strip()[-2000:]}")
                with open(export.name) as file:
                    return json.load(file)["results"][0]["median"]
        times = []
        for attempt in range(runs + 1):
            if prepare:
                subprocess.run(prepare, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            start = time.perf_counter()
            result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            elapsed = time.perf_counter() - start
            if result.returncode != 0:
                raise RuntimeError(f"{name} exited {result.returncode}: {result.stderr[-2000:]}")
            if attempt > 0:
                times.append(elapsed)
        return statistics.median(times)

    def time_internal(self, commands, runs=None):
        """Runs each command (they print JSON with "seconds") `runs` times, in rounds whose order
        alternates (A B, B A, A B, ...) so that drifts in the machine's speed, which on a shared
        machine are large for fsync, hit them alike; returns the median result of each."""
        runs = runs or self.runs
        results = [[] for _ in commands]
        for round_number in range(runs):
            order = list(range(len(commands)))
            if round_number % 2:
                order.reverse()
            for index in order:
                results[index].append(self.run_json(commands[index]))
        return [
            sorted(outcomes, key=lambda outcome: outcome["seconds"])[len(outcomes) // 2]
            for outcomes in results
        ]

    def peak_rss_kib(self, command):
        output = subprocess.run(
            ["/usr/bin/time", "-v"] + command,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True,
        ).stderr
        match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", output)
        return int(match.group(1)) if match else None

    def has_subcommand(self, name):
        """Whether `replay` has the subcommand, so that the stages of unfinished commands are
        skipped until they land: `replay help <name>` must succeed and show that subcommand's
        own help (for a name it does not know, it shows the root help, also with status 0)."""
        result = subprocess.run(
            [self.replay, "help", name], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        return result.returncode == 0 and f"USAGE: replay {name}" in result.stdout

    def not_available(self, subcommand):
        line = f"not available yet: {subcommand}"
        self.say("  " + line)
        return line

    def stage(self, title, body):
        self.say(f"\n== {title}")
        try:
            body()
        except Exception as error:  # a broken stage is reported, and the run fails at the end
            self.failures.append(f"{title}: {error}")
            self.say(f"  FAILED: {error}")

    # MARK: The log

    def generate(self, count):
        path = os.path.join(self.work, f"events-{count}.jsonl")
        if os.path.exists(path):
            os.remove(path)
        # A new log gets no sidecars of the old one (verify would rightly report them).
        for sidecar in (path + ".checkpoints", path + ".quarantine"):
            shutil.rmtree(sidecar, ignore_errors=True)
        # Nor the old one's key store: the generator would seal under the keys it finds there.
        for sidecar in (path + ".index", path + ".keys"):
            if os.path.exists(sidecar):
                os.remove(sidecar)
        start = time.perf_counter()
        self.run(
            [self.replay, "generate", "--events", str(count), "--seed", "1", "--log", path,
             "--chunk-size", "1000", "--no-fsync"]
        )
        elapsed = time.perf_counter() - start
        size = os.path.getsize(path)
        self.say(
            f"  generated {count:,} events, {size / 1e6:,.1f} MB "
            f"({size / count:.0f} bytes a line) in {elapsed:.1f} s"
        )
        return path

    # MARK: Stages

    def read_stage(self):
        log = self.log
        n = self.events
        rows = []
        self.read_rates = {}

        def measure(key, label, command, runs=None, note=""):
            seconds = self.time_process(key, command, runs)
            self.read_rates[key] = n / seconds
            rows.append([label, f"{n:,}", f"{seconds:.3f}", rate(n / seconds), key, note])
            self.say(f"  {label}: {seconds:.3f} s ({rate(n / seconds)})")

        measure("cat", "cat log > /dev/null (floor)", ["cat", log],
                note=f"{os.path.getsize(log) / 1e9 / 1:.2f} GB")
        measure("memchr", "memchr line split, Swift (floor)", [self.bench, "split", log])
        python = self.venv_python or sys.executable
        peers = os.path.join(BENCH, "peers.py")
        measure("json", "Python json.loads per line", [python, peers, "json", log])
        if self.venv_python:
            measure("orjson", "Python orjson.loads per line", [python, peers, "orjson", log])
            database = os.path.join(self.work, "events.sqlite")
            self.run([python, peers, "sqlite-load", log, database])
            measure("sqlite", "SQLite read all rows + orjson", [python, peers, "sqlite-read", database])
            store = os.path.join(self.work, "eventsourcing.sqlite")
            self.run([python, peers, "es-load", log, store])
            measure(
                "eventsourcing", "eventsourcing 9.5.6 (SQLite) read + deserialise",
                [python, peers, "es-read", store], runs=min(self.runs, 3),
            )
        else:
            rows.append(["Python orjson, SQLite, eventsourcing", "", "", "", "", self.venv_reason])
        measure(
            "jsondecoder", "Swift Foundation JSONDecoder per line (naive)",
            [self.bench, "jsondecoder", log], runs=min(self.runs, 3),
        )

        measure("verify", "replay verify (for orientation: every line checked, no read model)",
                [self.replay, "verify", "--log", log], note="not the replay target")
        if self.has_subcommand("rebuild"):
            # --no-checkpoints: read commands save checkpoints on their own, and a rebuild from
            # the end's checkpoint is not a rebuild.
            measure("rebuild", "replay rebuild, all five read models (fresh process)",
                    [self.replay, "rebuild", "--no-checkpoints", "--log", log])
        else:
            rows.append(["replay rebuild, all five read models", "", "", "", "rebuild",
                         self.not_available("rebuild")])
        if self.venv_python and "rebuild" in self.read_rates:
            # The same log with its contacts in clear: what the sealed log's replay is held to
            # (issue 13: at least 80 % of the plaintext rate).
            twin = os.path.join(self.work, "events-plaintext.jsonl")
            opened = self.run_json([python, peers, "unseal", log, twin])["opened"]
            measure("rebuild-plaintext",
                    "replay rebuild of the same log with its contacts in clear (plaintext twin)",
                    [self.replay, "rebuild", "--no-checkpoints", "--log", twin],
                    note=f"{opened:,} contact payloads opened by peers.py unseal")
            # The share from interleaved pairs (sealed, twin, sealed, twin, ...), the median of
            # the pairs' ratios: this machine's speed drifts more between the two medians above
            # than the share moves.
            sealed_command = [self.replay, "rebuild", "--no-checkpoints", "--log", log]
            twin_command = [self.replay, "rebuild", "--no-checkpoints", "--log", twin]
            ratios = []
            pairs = max(5, 3 * self.runs)
            for _ in range(pairs):
                sealed_seconds = self.wall_seconds(sealed_command)
                ratios.append(self.wall_seconds(twin_command) / sealed_seconds)
            share = statistics.median(ratios)
            rows.append(["the sealed log's rebuild against its plaintext twin", "", "",
                         f"{100 * share:.1f} % of the plaintext rate", "",
                         f"median of {pairs} interleaved pairs; target: ≥ 80 %"])
            self.say(f"  sealed against plaintext: {100 * share:.1f} % "
                     f"({pairs} interleaved pairs; target: ≥ 80 %)")
        self.rebuild_seconds = (
            n / self.read_rates["rebuild"] if "rebuild" in self.read_rates else None
        )

        table = [["measurement", "events", "median s", "rate", "× orjson/line", "× JSONDecoder", "note"]]
        for label, events, seconds, speed, key, note in rows:
            table.append([
                label, events, seconds, speed,
                ratio(self.read_rates.get(key), self.read_rates.get("orjson")),
                ratio(self.read_rates.get(key), self.read_rates.get("jsondecoder")),
                note,
            ])
        self.sections.append(("Replay speed: the same log read by the engine and its peers", table))

    def write_stage(self):
        n = self.import_events
        runs = max(self.runs, 5) if not self.options.smoke else self.runs
        table = [["write", "events", "syncs", "library s", "raw s", "library events/s",
                  "raw events/s", "library % of raw"]]
        for chunk in (100, 1000):
            library_out = os.path.join(self.work, f"import-library-{chunk}.jsonl")
            raw_out = os.path.join(self.work, f"import-raw-{chunk}.jsonl")
            # The raw writer writes exactly the bytes the library wrote: one library run first.
            library_command = [self.bench, "import", self.log, library_out, "--chunk", str(chunk),
                               "--limit", str(n)]
            self.run_json(library_command)
            library, raw = self.time_internal([
                library_command,
                [self.bench, "raw-write", library_out, raw_out, "--chunk", str(chunk)],
            ], runs)
            table.append(self.write_row(f"batch import, fsync per {chunk}", library, raw))
            for path in (library_out, raw_out):
                os.remove(path)
        # What the import costs without the disk: the ceiling the library's own work sets.
        unsynced_out = os.path.join(self.work, "import-unsynced.jsonl")
        (unsynced,) = self.time_internal([[self.bench, "import", self.log, unsynced_out, "--chunk",
                                           "1000", "--limit", str(n), "--sync", "never"]], runs)
        os.remove(unsynced_out)
        unsynced_rate = unsynced["events"] / unsynced["seconds"]
        table.append(["batch import, not synced (the library's CPU work alone)",
                      f"{unsynced['events']:,}", "0", f"{unsynced['seconds']:.3f}", "", rate(unsynced_rate), "", ""])
        self.say(f"  batch import, not synced: {rate(unsynced_rate)}")
        table.append(self.append_file_row(runs))
        table.append(self.import_row(runs))
        count = self.append_count
        library_out = os.path.join(self.work, "append-library.jsonl")
        raw_out = os.path.join(self.work, "append-raw.jsonl")
        self.run_json([self.bench, "append", self.log, library_out, "--count", str(count)])
        library, raw = self.time_internal([
            [self.bench, "append", self.log, library_out, "--count", str(count)],
            [self.bench, "raw-append", library_out, raw_out, "--count", str(count)],
        ], runs if self.options.smoke else max(runs, 9))
        table.append(self.write_row("durable single appends, fsync each", library, raw))
        for path in (library_out, raw_out):
            os.remove(path)
        self.sections.append(("Durable writes: library against raw write + fdatasync, same bytes, same disk", table))

    def append_file_row(self, runs):
        """`replay append --file` end to end, a fresh process that reads, parses and checks its
        input and writes it as one atomic write synced every 1000 events (its default), against
        raw write + fdatasync of the log it wrote at the same points; runs interleaved. The
        input is the first events of the plaintext twin (else of the log) as `append --file`
        lines: stream, type, data, meta. The format has no schema member, so the events at
        schema 2 (Taipei Zoo records; without the twin, the sealed contacts) are left out."""
        twin = os.path.join(self.work, "events-plaintext.jsonl")
        source = twin if os.path.exists(twin) else self.log
        limit = min(200_000, self.events)
        entries = os.path.join(self.work, "append-in.jsonl")
        count = 0
        with open(source, "rb") as lines, open(entries, "w", encoding="utf-8") as out:
            for line in lines:
                if count >= limit:
                    break
                event = json.loads(line)
                if event.get("schema", 1) != 1:
                    continue
                entry = {"stream": event["stream"], "type": event["type"], "data": event["data"]}
                if "meta" in event:
                    entry["meta"] = event["meta"]
                out.write(json.dumps(entry, separators=(",", ":"), ensure_ascii=False) + "\n")
                count += 1
        library_out = os.path.join(self.work, "append-file.jsonl")
        row = self.end_to_end_row(
            "replay append --file end to end (input read, parsed, checked), fsync per 1000",
            [self.replay, "append", "--file", entries, "--log", library_out], library_out, runs)
        os.remove(entries)
        return row

    def import_row(self, runs):
        """`replay import contacts` end to end, a fresh process that reads the source, validates
        every record, decides its events (each a ContactAdded, its personal data sealed) and
        writes them as one atomic write synced every 1000 events (its default), against raw
        write + fdatasync of the log it wrote at the same points; runs interleaved. The source
        is the shipped seed data's 18 contacts repeated with new ids and names up to N records
        (at most 100 000), as the importer's JSON array."""
        seed_path = os.path.join(ROOT, "eventlogs", "seed-data", "contacts-v3.json")
        label = "replay import contacts end to end (source read, validated, sealed), fsync per 1000"
        if not os.path.exists(seed_path):
            return [label, "", "", "", "", "", "", "skipped: no eventlogs/seed-data/contacts-v3.json"]
        with open(seed_path, encoding="utf-8") as file:
            seed = json.load(file)
        records = []
        for index in range(min(100_000, self.events)):
            record = dict(seed[index % len(seed)])
            record["id"] = str(index + 1)
            record["name"] = f"{record['name']} {index // len(seed) + 1}"
            records.append(record)
        source = os.path.join(self.work, "import-contacts.json")
        with open(source, "w", encoding="utf-8") as file:
            json.dump(records, file, ensure_ascii=False)
        library_out = os.path.join(self.work, "import-contacts.jsonl")
        row = self.end_to_end_row(
            label, [self.replay, "import", "contacts", source, "--log", library_out], library_out,
            runs)
        os.remove(source)
        return row

    def end_to_end_row(self, label, command, library_out, runs):
        """A command that writes a new log at `library_out` (removed, with its sidecars, before
        each run), its whole process timed against raw write + fdatasync of the bytes it wrote,
        every 1000 lines; runs interleaved, medians."""
        raw_out = library_out + ".raw"

        def fresh():
            for suffix in ("", ".index", ".keys"):
                if os.path.exists(library_out + suffix):
                    os.remove(library_out + suffix)

        raw_command = [self.bench, "raw-write", library_out, raw_out, "--chunk", "1000"]
        # One run first: the raw writer writes the bytes it wrote.
        fresh()
        self.run(command)
        library_seconds, raws = [], []
        for round_number in range(runs):
            for step in (("library", "raw") if round_number % 2 == 0 else ("raw", "library")):
                if step == "library":
                    fresh()
                    library_seconds.append(self.wall_seconds(command))
                else:
                    raws.append(self.run_json(raw_command))
        raw = sorted(raws, key=lambda outcome: outcome["seconds"])[len(raws) // 2]
        library = {"events": raw["events"], "syncs": raw["syncs"],
                   "seconds": statistics.median(library_seconds)}
        row = self.write_row(label, library, raw)
        fresh()
        os.remove(raw_out)
        return row

    def write_row(self, label, library, raw):
        library_rate = library["events"] / library["seconds"]
        raw_rate = raw["events"] / raw["seconds"]
        row = [label, f"{library['events']:,}", f"{library['syncs']:,}", f"{library['seconds']:.3f}",
               f"{raw['seconds']:.3f}", rate(library_rate), rate(raw_rate),
               f"{100 * library_rate / raw_rate:.0f} %"]
        self.say(f"  {label}: library {rate(library_rate)}, raw {rate(raw_rate)}: {row[-1]}")
        return row

    def state_stage(self):
        table = [["measurement", "median s", "% of full rebuild", "note"]]
        missing = [name for name in ("state", "checkpoint", "rebuild") if not self.has_subcommand(name)]
        if missing:
            table.append(["state --at <random seq> with checkpoints", "", "",
                          "; ".join(self.not_available(name) for name in missing)])
            self.sections.append(("Time travel: state at a random point", table))
            return
        # The checkpoints a read command keeps on its own (see CheckpointPolicy): the first long
        # replay saves the grid and the end; nothing is set up by hand.
        shutil.rmtree(self.log + ".checkpoints", ignore_errors=True)
        start = time.perf_counter()
        self.run([self.replay, "rebuild", "--log", self.log])
        sidecar = sum(os.path.getsize(os.path.join(self.log + ".checkpoints", name))
                      for name in os.listdir(self.log + ".checkpoints"))
        share = 100 * sidecar / os.path.getsize(self.log)
        table.append([f"first rebuild, saving the automatic checkpoints (once, setup)",
                      f"{time.perf_counter() - start:.3f}", "",
                      f"{len(os.listdir(self.log + '.checkpoints'))} files, {sidecar / 1e6:,.1f} MB, "
                      f"{share:.0f} % of the log (aim: ≤ 20 %)"])
        model = os.environ.get("BENCH_STATE_MODEL", "contacts")
        picker = random.Random(1)
        # `generate` writes atomic chunks (1 000 events here, see `generate`), and a seq inside an
        # atomic write has no state a reader could see (`--at` refuses it): each random seq moves
        # to the end of the write that holds it.
        chunk = 1000
        seqs = [min(self.events, -(-picker.randint(1, self.events) // chunk) * chunk)
                for _ in range(max(self.runs, 3))]
        # Times of random events, for --as-of (found by bisection, not by a scan).
        instants = [json.loads(self.run([self.replay, "log", "--log", self.log, "--from",
                                         str(max(1, seq - picker.randint(0, chunk - 1))),
                                         "--limit", "1", "--json"]).splitlines()[0])["at"]
                    for seq in seqs]

        def median_over(label, points, arguments):
            times = [self.time_process(f"{label}-{index}", arguments(point), runs=1)
                     for index, point in enumerate(points)]
            return statistics.median(times)

        def percent(seconds):
            return f"{100 * seconds / self.rebuild_seconds:.1f} %" if self.rebuild_seconds else ""

        # The time travel itself: all five read models at the point, from the nearest checkpoint,
        # against the full rebuild (the same work from seq 1); no output on either side.
        rebuild_at = median_over(
            "rebuild-at", seqs, lambda seq: [self.replay, "rebuild", "--at", str(seq), "--log", self.log])
        table.append([f"rebuild --at <random seq>: all five models ({len(seqs)} seqs)",
                      f"{rebuild_at:.3f}", percent(rebuild_at), "target: ≤ 5 %"])
        # What a user runs: one model at the point, printed as a table.
        state_at = median_over(
            "state-at", seqs, lambda seq: [self.replay, "state", model, "--at", str(seq), "--log", self.log])
        table.append([f"state {model} --at <random seq>, table printed ({len(seqs)} seqs)",
                      f"{state_at:.3f}", percent(state_at), "includes rendering the table"])
        detail_at = median_over(
            "state-at-id", seqs,
            lambda seq: [self.replay, "state", model, "--id", "13", "--at", str(seq), "--log", self.log])
        table.append([f"state {model} --id 13 --at <random seq> ({len(seqs)} seqs)",
                      f"{detail_at:.3f}", percent(detail_at), "the replay without the table; target: ≤ 5 %"])
        as_of = median_over(
            "state-as-of-id", instants,
            lambda instant: [self.replay, "state", model, "--id", "13", "--as-of", instant, "--log", self.log])
        table.append([f"state {model} --id 13 --as-of <random time> ({len(instants)} times)",
                      f"{as_of:.3f}", percent(as_of), "target: ≤ 5 %"])
        # The end of the log, one event after the newest checkpoint.
        self.run([self.replay, "contacts", "favorite", "13", "--log", self.log, "--no-fsync"])
        at_end = self.time_process("state-end-id", [self.replay, "state", model, "--id", "13", "--log", self.log])
        table.append([f"state {model} --id 13 at the end, one event past the newest checkpoint",
                      f"{at_end:.3f}", percent(at_end), "target: ≤ 5 %"])
        end_table = self.time_process("state-end", [self.replay, "state", model, "--log", self.log])
        table.append([f"state {model} at the end, table printed", f"{end_table:.3f}", percent(end_table),
                      "includes rendering the table"])
        self.say(f"  rebuild --at: {rebuild_at:.3f} s, {percent(rebuild_at)} of a full rebuild;"
                 f" state {model} --id 13 --at: {detail_at:.3f} s; --as-of: {as_of:.3f} s;"
                 f" at the end: {at_end:.3f} s")
        self.sections.append(("Time travel: state at a random point", table))

    def scale_stage(self):
        """One append, one favourite, one history: on the generated log against a log that holds
        only the contact they touch (the writer's index, `<log>.index`, keeps them from reading
        the whole log). Fresh processes, durable appends."""
        table = [["command, fresh process", "tiny log: s", "MiB", "generated log: s", "MiB",
                  "ratio (time, memory)", "target"]]
        tiny = os.path.join(self.work, "scale-tiny.jsonl")
        for path in (tiny, tiny + ".index"):
            if os.path.exists(path):
                os.remove(path)
        added = '{"stream":"contact-13","type":"ContactAdded","data":{"id":"13","name":"Ana","isFavorite":false}}\n'
        subprocess.run([self.replay, "append", "--file", "-", "--log", tiny], input=added,
                       text=True, check=True, stdout=subprocess.DEVNULL)
        # The first write to the generated log saves its index if `generate` did not.
        self.run([self.replay, "contacts", "unfavorite", "13", "--log", self.log])
        index_size = os.path.getsize(self.log + ".index") if os.path.exists(self.log + ".index") else 0
        commands = [
            ("append one event (replay append --stream --type --data)",
             lambda log: [self.replay, "append", "--stream", "contact-13", "--type",
                          "ContactFavorited", "--data", '{"id":"13"}', "--log", log],
             None, "≤ 1.2×"),
            ("contacts favorite 13 (decided on its stream)",
             lambda log: [self.replay, "contacts", "favorite", "13", "--log", log],
             lambda log: [self.replay, "contacts", "unfavorite", "13", "--log", log], "≤ 1.2×"),
            ("history contact-13",
             lambda log: [self.replay, "history", "contact-13", "--log", log], None,
             "≤ 50 ms at 10 M events"),
        ]
        for label, command, prepare, target in commands:
            measured = []
            for log in (tiny, self.log):
                seconds = self.time_process(
                    f"scale-{len(table)}", command(log),
                    prepare=prepare(log) if prepare else None)
                if prepare:
                    subprocess.run(prepare(log), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                rss = self.peak_rss_kib(command(log))
                measured.append((seconds, rss))
            (tiny_s, tiny_rss), (big_s, big_rss) = measured
            table.append([label, f"{tiny_s:.4f}", f"{tiny_rss / 1024:.1f}", f"{big_s:.4f}",
                          f"{big_rss / 1024:.1f}",
                          f"{big_s / tiny_s:.2f}×, {big_rss / tiny_rss:.2f}×", target])
            self.say(f"  {label}: {tiny_s:.4f} s / {big_s:.4f} s, {tiny_rss} / {big_rss} KiB")
        # Two of them again on a cold cache: the log's, its index's and its key store's pages
        # dropped before each run (Linux's posix_fadvise), as after a reboot or once other work
        # has pushed them out. Every page a lookup touches is then a disk read.
        if sys.platform.startswith("linux"):
            for label, command in ((commands[0][0], commands[0][1]), (commands[2][0], commands[2][1])):
                measured = []
                for log in (tiny, self.log):
                    drop = [self.bench, "drop-cache", log, log + ".index", log + ".keys"]
                    measured.append(self.time_process(f"scale-cold-{len(table)}", command(log),
                                                      prepare=drop))
                table.append([label + ", the log's pages dropped from the cache first",
                              f"{measured[0]:.4f}", "", f"{measured[1]:.4f}", "",
                              f"{measured[1] / measured[0]:.2f}×", "for orientation"])
                self.say(f"  {label}, cold: {measured[0]:.4f} s / {measured[1]:.4f} s")
        share = 100 * index_size / os.path.getsize(self.log)
        table.append(["the index beside the generated log", "", "", f"{index_size / 1e6:,.1f} MB",
                      "", f"{share:.1f} % of the log", ""])
        self.sections.append(("Costs that do not grow with the log", table))

    def live_stage(self):
        """Subscriptions: append-to-delivery latency across processes, an idle follower's CPU,
        catch-up speed against a rebuild, and what 8 followers cost a writer."""
        table = [["measurement", "figure", "against", "target"]]
        if not self.has_subcommand("log") or "--follow" not in self.run([self.replay, "help", "log"]):
            table.append(["log --follow", "", "", self.not_available("log --follow")])
            self.sections.append(("Live: subscriptions", table))
            return
        small = os.path.join(self.work, "live.jsonl")
        for path in (small, small + ".index"):
            if os.path.exists(path):
                os.remove(path)
        subprocess.run([self.replay, "append", "--stream", "contact-13", "--type", "ContactFavorited",
                        "--data", '{"id":"13"}', "--log", small], check=True, stdout=subprocess.DEVNULL)

        def follower(log, start_seq, output=subprocess.PIPE):
            return subprocess.Popen(
                [self.replay, "log", "--follow", "--json", "--from", str(start_seq), "--log", log],
                stdout=output, stderr=subprocess.DEVNULL, text=True)

        # Latency: a writer process appends (durably); the time from its "appended" line to the
        # event's line in a follower process. Both lines come after the sync, so the follower's
        # can come first: that counts as 0, and how often it happened is said beside the figure.
        count = 20 if self.options.smoke else 100
        watcher = follower(small, 2)
        delivered = {}

        def read_lines():
            for line in watcher.stdout:
                delivered[json.loads(line)["seq"]] = time.perf_counter()

        reader = threading.Thread(target=read_lines, daemon=True)
        reader.start()
        time.sleep(0.5)
        latencies = []
        first = 0
        for _ in range(count):
            writer = subprocess.Popen(
                [self.replay, "append", "--stream", "contact-13", "--type", "ContactUnfavorited",
                 "--data", '{"id":"13"}', "--log", small], stdout=subprocess.PIPE, text=True)
            seq = int(writer.stdout.readline().split()[0])
            acknowledged = time.perf_counter()
            writer.wait()
            deadline = time.perf_counter() + 10
            while seq not in delivered and time.perf_counter() < deadline:
                time.sleep(0.0002)
            if seq not in delivered:
                raise RuntimeError(f"seq {seq} was not delivered within 10 s")
            if delivered[seq] < acknowledged:
                first += 1
            latencies.append(max(0.0, delivered[seq] - acknowledged))
        watcher.terminate()
        watcher.wait()
        latencies.sort()
        p50 = latencies[len(latencies) // 2]
        p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
        syncs = []
        with open(os.path.join(self.work, "fsync-probe"), "wb") as probe:
            for _ in range(count):
                probe.write(b"x" * 300 + b"\n")
                probe.flush()
                start = time.perf_counter()
                os.fdatasync(probe.fileno())
                syncs.append(time.perf_counter() - start)
        os.remove(os.path.join(self.work, "fsync-probe"))
        table.append([f"append → delivery in another process, p50 ({count} appends; the follower's line "
                      f"came before the writer's reply in {first})",
                      f"{p50 * 1000:.2f} ms", f"fdatasync alone: {statistics.median(syncs) * 1000:.2f} ms",
                      "≤ 5 ms"])
        table.append([f"append → delivery, p99", f"{p99 * 1000:.2f} ms", "", "≤ 50 ms"])
        self.say(f"  latency p50 {p50 * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms; "
                 f"fdatasync {statistics.median(syncs) * 1000:.2f} ms")

        # An idle follower: CPU over 5 s of waiting.
        idle = follower(small, 10**9, output=subprocess.DEVNULL)
        time.sleep(1)

        def cpu_seconds(pid):
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

        before = cpu_seconds(idle.pid)
        time.sleep(5)
        used = cpu_seconds(idle.pid) - before
        idle.terminate()
        idle.wait()
        table.append(["an idle follower, CPU over 5 s", f"{100 * used / 5:.2f} % of a core", "", "≤ 1 %"])

        # Catch-up: every event of the generated log through a follower, against a rebuild.
        last = self.events
        catch_up = self.time_process(
            "catch-up", [self.replay, "log", "--follow", "--json", "--to", str(last), "--log", self.log],
            runs=min(self.runs, 3))
        rebuild = self.rebuild_seconds or self.time_process(
            "rebuild", [self.replay, "rebuild", "--log", self.log, "--no-checkpoints"], runs=min(self.runs, 3))
        table.append([f"catch-up: log --follow --json over {last:,} events", rate(last / catch_up),
                      f"{100 * rebuild / catch_up:.0f} % of replay rebuild's {rate(last / rebuild)}",
                      "≥ 90 %"])

        # The library's subscription: every event as a RecordedEvent through the channel.
        if os.access(self.bench, os.X_OK) and "subscribe" in subprocess.run(
                [self.bench], capture_output=True, text=True).stderr:
            library = self.time_internal([[self.bench, "subscribe", self.log, "--count", str(last)]],
                                         runs=min(self.runs, 3))[0]
            table.append([f"catch-up: LogSubscription (async, a RecordedEvent each) over {last:,} events",
                          rate(last / library["seconds"]),
                          f"{100 * rebuild / library['seconds']:.0f} % of replay rebuild", "≥ 90 %"])

        # A writer's durable single appends with 8 followers, against none.
        appends = 20 if self.options.smoke else 100

        def append_rate():
            start = time.perf_counter()
            for _ in range(appends):
                subprocess.run([self.replay, "append", "--stream", "contact-13", "--type",
                                "ContactFavorited", "--data", '{"id":"13"}', "--log", small],
                               check=True, stdout=subprocess.DEVNULL)
            return appends / (time.perf_counter() - start)

        alone = [append_rate()]
        followers = [follower(small, 1, output=subprocess.DEVNULL) for _ in range(8)]
        time.sleep(0.5)
        crowded = [append_rate()]
        for each in followers:
            each.terminate()
            each.wait()
        alone.append(append_rate())
        alone_rate = statistics.mean(alone)
        table.append([f"durable appends (fresh processes) with 8 followers", f"{crowded[0]:.0f} /s",
                      f"{alone_rate:.0f} /s alone: {100 * (1 - crowded[0] / alone_rate):.1f} % slower",
                      "≤ 10 % slower"])
        self.sections.append(("Live: subscriptions", table))

    def nearest_stage(self):
        points = self.points
        points_path = os.path.join(self.work, "points.f64")
        neighbors_path = os.path.join(self.work, "neighbors.f64")
        swift_command = [self.bench, "nearest", "--points", str(points), "--seed", "1",
                         "--write-points", points_path, "--write-neighbors", neighbors_path,
                         "--check", "200"]
        table = [["index", "points", "build s", "queries s", "queries/s", "× cKDTree", "answers"]]
        if self.venv_python:
            self.run_json(swift_command)  # writes the points the peers read
            swift, peers = self.time_internal([
                swift_command,
                [self.venv_python, os.path.join(BENCH, "peers.py"), "knn", points_path,
                 "--neighbors", neighbors_path],
            ])
        else:
            (swift,) = self.time_internal([swift_command])
            peers = None
        swift_rate = swift["queriesPerSecond"]
        kd_rate = peers["kdtreeQueriesPerSecond"] if peers else None
        answers = f"{swift['bruteForceMismatches']} of {swift['bruteForceChecked']} differ from brute force"
        if peers:
            answers += f"; {peers['swiftMismatches']} of {peers['swiftCompared']} differ from cKDTree"
        table.append(["Swift NearestNeighborIndex, k=3 (haversine)", f"{points:,}",
                      f"{swift['buildSeconds']:.3f}", f"{swift['seconds']:.3f}", rate(swift_rate, "q/s"),
                      ratio(swift_rate, kd_rate), answers])
        if peers:
            table.append(["scipy cKDTree, 3-D unit vectors, k=4 incl. self", f"{points:,}",
                          f"{peers['kdtreeBuildSeconds']:.3f}", f"{peers['kdtreeQuerySeconds']:.3f}",
                          rate(kd_rate, "q/s"), "1.00×", ""])
            ball_rate = peers["balltreeQueriesPerSecond"]
            table.append(["scikit-learn BallTree, haversine, k=4 incl. self", f"{points:,}",
                          f"{peers['balltreeBuildSeconds']:.3f}", f"{peers['balltreeQuerySeconds']:.3f}",
                          rate(ball_rate, "q/s"), ratio(ball_rate, kd_rate), ""])
        else:
            table.append(["scipy cKDTree, scikit-learn BallTree", "", "", "", "", "", self.venv_reason])
        self.say(f"  Swift {rate(swift_rate, 'q/s')}, cKDTree {rate(kd_rate, 'q/s') if kd_rate else 'skipped'}; {answers}")
        self.sections.append((f"Nearest neighbours: {points:,} generated locations, every point queried", table))

    def memory_stage(self):
        # Two figures a log: a full rebuild (--no-checkpoints: every event folded, nothing
        # saved), and the first rebuild of a log without checkpoints, which also saves the
        # automatic ones. A plain `rebuild` of the main log would start from the checkpoints the
        # state stage left and fold nothing: not a full rebuild.
        table = [["log", "events", "log size", "peak RSS, full rebuild (--no-checkpoints)",
                  "peak RSS, first rebuild (saves the automatic checkpoints)"]]
        if not self.has_subcommand("rebuild"):
            table.append(["", "", "", self.not_available("rebuild"), ""])
            self.sections.append(("Memory: peak RSS of a full rebuild", table))
            return
        logs = [(self.events, self.log)]
        if not self.options.smoke:
            logs.append((4 * self.events, None))
        for count, path in logs:
            path = path or self.generate(count)
            full = self.peak_rss_kib([self.replay, "rebuild", "--no-checkpoints", "--log", path])
            # The log's own checkpoints (the state stage's) are set aside, then put back.
            sidecar = path + ".checkpoints"
            kept = sidecar + ".kept"
            shutil.rmtree(kept, ignore_errors=True)
            if os.path.isdir(sidecar):
                os.rename(sidecar, kept)
            try:
                first = self.peak_rss_kib([self.replay, "rebuild", "--log", path])
            finally:
                shutil.rmtree(sidecar, ignore_errors=True)
                if os.path.isdir(kept):
                    os.rename(kept, sidecar)
            cells = [f"{kib / 1024:,.0f} MiB" if kib else "?" for kib in (full, first)]
            table.append([os.path.basename(path), f"{count:,}", f"{os.path.getsize(path) / 1e6:,.0f} MB"]
                         + cells)
            self.say(f"  {count:,} events: peak RSS {cells[0]} (full rebuild), {cells[1]} (first, saving checkpoints)")
            if path != self.log:
                os.remove(path)
                shutil.rmtree(sidecar, ignore_errors=True)
        self.sections.append(("Memory: peak RSS of a full rebuild", table))

    # MARK: The whole run

    def main(self):
        os.makedirs(self.work, exist_ok=True)
        smoke = self.options.smoke
        self.import_events = self.events
        self.append_count = 2000
        self.points = 20_000 if smoke else 100_000
        self.venv_reason = self.options.venv_reason or "skipped: no Python venv"
        self.say(f"== machine\n{machine_description()}")
        self.say(f"timing: {'hyperfine ' + hyperfine_version(self.hyperfine) if self.hyperfine else 'a timing loop (no hyperfine)'}; "
                 f"medians of {self.runs} run{'s' if self.runs != 1 else ''}")
        self.say(f"\n== log: {self.events:,} generated events, seed 1")
        self.log = self.generate(self.events)
        stages = [
            ("read", "1-2. replay speed: floor, peers and replay rebuild", self.read_stage),
            ("write", "3. durable writes", self.write_stage),
            ("state", "4. state --at with checkpoints", self.state_stage),
            ("nearest", "5. nearest neighbours", self.nearest_stage),
            ("memory", "6. peak memory of replay rebuild", self.memory_stage),
            ("scale", "7. costs that do not grow with the log", self.scale_stage),
            ("live", "8. live: subscriptions", self.live_stage),
        ]
        chosen = set(self.options.stages.split(",")) if self.options.stages else None
        self.rebuild_seconds = None
        for key, title, body in stages:
            if chosen is None or key in chosen:
                self.stage(title, body)
        self.write_results()
        if self.failures:
            self.say("\nFAILED stages:\n  " + "\n  ".join(self.failures))
            return 1
        return 0

    def write_results(self):
        lines = [
            f"# Benchmark results: {self.events:,} events{' (smoke run)' if self.options.smoke else ''}",
            "",
            f"Command: `{self.options.command}`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
            "",
            "```",
            machine_description(),
            "```",
            "",
            f"Timing: {'hyperfine ' + hyperfine_version(self.hyperfine) if self.hyperfine else 'a timing loop'}, "
            f"median of {self.runs} run{'s' if self.runs != 1 else ''} (JSONDecoder and eventsourcing: "
            f"of {min(self.runs, 3)}), after a warm-up run; whole processes unless the table says otherwise. "
            "Reads come from the page cache (the log was just written). Writes are synced with "
            "fdatasync, the library's default policy; the log itself is generated with --no-fsync.",
        ]
        for title, table in self.sections:
            lines += ["", f"## {title}", "", markdown(table)]
        if self.failures:
            lines += ["", "## Failed stages", ""] + [f"- {failure}" for failure in self.failures]
        text = "\n".join(lines) + "\n"
        path = os.path.join(self.work, "results.md")
        with open(path, "w") as file:
            file.write(text)
        self.say("\n" + text)
        self.say(f"(written to {os.path.relpath(path, ROOT)})")


def quote(text):
    return text if re.fullmatch(r"[\w./:=@%+-]+", text) else "'" + text.replace("'", "'\\''") + "'"


def rate(per_second, unit="events/s"):
    if per_second is None:
        return ""
    for scale, suffix in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if per_second >= scale:
            return f"{per_second / scale:.2f}{suffix} {unit}"
    return f"{per_second:.0f} {unit}"


def ratio(value, reference):
    if value is None or reference is None:
        return ""
    return f"{value / reference:.2f}×"


def markdown(table):
    widths = [max(len(str(row[column])) for row in table) for column in range(len(table[0]))]
    def render(row):
        return "| " + " | ".join(str(cell).ljust(width) for cell, width in zip(row, widths)) + " |"
    return "\n".join([render(table[0]), "|" + "|".join("-" * (width + 2) for width in widths) + "|"]
                     + [render(row) for row in table[1:]])


def read_first(path, pattern):
    try:
        with open(path) as file:
            for line in file:
                match = re.match(pattern, line)
                if match:
                    return match.group(1).strip()
    except OSError:
        pass
    return "?"


def machine_description():
    cpu = read_first("/proc/cpuinfo", r"model name\s*:\s*(.*)")
    family = read_first("/proc/cpuinfo", r"cpu family\s*:\s*(.*)")
    megahertz = read_first("/proc/cpuinfo", r"cpu MHz\s*:\s*(.*)")
    flags = read_first("/proc/cpuinfo", r"flags\s*:\s*(.*)").split()
    details = [f"family {family}" if family != "?" else None,
               f"{float(megahertz) / 1000:.1f} GHz" if re.fullmatch(r"[\d.]+", megahertz) else None,
               "virtual machine" if "hypervisor" in flags else None]
    cpu += "".join(f", {detail}" for detail in details if detail)
    memory_kib = read_first("/proc/meminfo", r"MemTotal:\s*(\d+)")
    memory = f"{int(memory_kib) / 1024 / 1024:.1f} GiB" if memory_kib.isdigit() else "?"
    filesystem = "?"
    device = "?"
    try:
        output = subprocess.run(["df", "-T", BENCH], capture_output=True, text=True).stdout.splitlines()[-1]
        device, filesystem = output.split()[:2]
    except (OSError, IndexError, ValueError):
        pass
    rotational = "?"
    name = os.path.basename(device)
    size = read_first(f"/sys/block/{name}/size", r"(\d+)")
    if size.isdigit():
        device += f", {int(size) * 512 / 2**30:.0f} GiB"
    for candidate in (name, re.sub(r"\d+$", "", name), re.sub(r"p\d+$", "", name)):
        path = f"/sys/block/{candidate}/queue/rotational"
        if os.path.exists(path):
            rotational = "reports rotational" if read_first(path, r"(\d)") == "1" else "non-rotational"
            break
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
    python = sys.version.split()[0]
    return "\n".join([
        f"CPU:        {cpu}, {os.cpu_count()} cores",
        f"memory:     {memory}",
        f"disk:       {device} ({rotational}), {filesystem}",
        f"kernel:     {platform.system()} {platform.release()} {platform.machine()}",
        f"Swift:      {swift[0] if swift else '?'}",
        f"Python:     {python}",
    ])


def hyperfine_version(path):
    try:
        return subprocess.run([path, "--version"], capture_output=True, text=True).stdout.split()[-1]
    except (OSError, IndexError):
        return "?"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, required=True)
    parser.add_argument("--runs", type=int, required=True)
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--work", required=True)
    parser.add_argument("--replay", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--venv-python")
    parser.add_argument("--venv-reason")
    parser.add_argument("--hyperfine")
    parser.add_argument("--command", default="bench/run.sh")
    parser.add_argument("--stages", help="only these, comma-separated: read,write,state,nearest,memory,scale,live")
    sys.exit(Harness(parser.parse_args()).main())


if __name__ == "__main__":
    main()
