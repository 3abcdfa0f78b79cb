#!/usr/bin/env python3
"""Regenerates the committed seed corpus, Fuzz/Corpus/<target>/, from the shipped sample log
(eventlogs/sample.jsonl; its contact lines also as written before sealing,
Tests/Fixtures/sample-before-sealing.jsonl) and the seed data (eventlogs/seed-data). Run it after the log format or
the seed data change; see docs/FUZZING.md. Small on purpose: a few dozen short files per target."""
import hashlib
import json
import os
import plistlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Fuzz", "Corpus")
SEEDS = os.path.join(ROOT, "eventlogs", "seed-data")
PER_TYPE = 3


def write(target, data):
    if isinstance(data, str):
        data = data.encode()
    directory = os.path.join(CORPUS, target)
    os.makedirs(directory, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(directory, name), "wb") as file:
        file.write(data)


def sample_lines(path=os.path.join(ROOT, "eventlogs", "sample.jsonl")):
    """Up to PER_TYPE raw lines of each event type, preferring variety (batch, meta)."""
    chosen, seen = [], {}
    with open(path, "rb") as file:
        for raw in file:
            raw = raw.rstrip(b"\n")
            event = json.loads(raw)
            key = event["type"]
            if seen.get(key, 0) < PER_TYPE:
                seen[key] = seen.get(key, 0) + 1
                chosen.append((raw, event))
    return chosen


def raw_member(line, key):
    """The raw bytes of the member `key` of a writer-layout line (the payload as written)."""
    start = line.index(b'"' + key.encode() + b'":') + len(key) + 3
    decoder = json.JSONDecoder()
    _, end = decoder.raw_decode(line.decode(), start)
    return line[start:end]


def clear_generated():
    """Removes the files this script wrote (named by their hash), keeping the findings committed
    by hand under their own names (bplist-date-out-of-range, ...)."""
    for target in os.listdir(CORPUS) if os.path.isdir(CORPUS) else []:
        directory = os.path.join(CORPUS, target)
        for name in os.listdir(directory):
            if len(name) == 16 and all(c in "0123456789abcdef" for c in name):
                os.remove(os.path.join(directory, name))


def main():
    clear_generated()
    # The sample log (contacts sealed, schema 2) and the same log as written before sealing
    # (contacts in clear, schema 1): both forms stay readable.
    before = os.path.join(ROOT, "Tests", "Fixtures", "sample-before-sealing.jsonl")
    lines = sample_lines() + [
        (raw, event) for raw, event in sample_lines(before) if event["type"].startswith("Contact")]
    for raw, event in lines:
        write("line", raw)
        data = raw_member(raw, "data")
        write("payload", f"{event['type']} {event.get('schema', 1)}\n".encode() + data)
        write("json", data)
    # Types the sample log does not hold (FORMAT.md's shapes): the fuzzer does not find type
    # names by itself.
    for header, data in [
            ("AnimalRemoved 1", '{"id":"zoo-8"}'), ("AnimalRemoved 1", '{"id":"user-2"}'),
            ("ContactUpdated 1", '{"id":"13","name":"Piggy","companyName":null,"phone":'
             '{"work":"555-0100","home":""},"address":{"city":"Phoenix"},"birthdate":"1974-09-15",'
             '"source":"contacts-v3.json"}'),
            ("ContactUpdated 1", '{"id":"13","isFavorite":true}'),
            ("LocationRenamed 1", '{"id":"2298eb8d-255e-4198-a20c-cc9c2eac0cf7","name":"Beta",'
             '"source":"acmeaom-locations.json"}'),
            ("LocationRemoved 1", '{"id":"2298eb8d-255e-4198-a20c-cc9c2eac0cf7"}'),
            ("ObservationRemoved 1", '{"id":"398f8d08492d"}'),
            # The sample log's contacts are sealed (schema 2); logs written before hold them in
            # clear (schema 1), and erasures leave ContactErased.
            ("ContactAdded 1", '{"id":"13","name":"Miss Piggy","companyName":"Muppets, Baby",'
             '"isFavorite":false,"emailAddress":"Miss.Piggy@muppetsbaby.com","phone":'
             '{"work":"602-225-9543"},"address":{"city":"Phoenix","zipCode":"85034"},'
             '"source":"contacts-v3.json"}'),
            ("ContactErased 1", '{"id":"13"}')]:
        write("payload", header + "\n" + data)
    for raw, _ in lines[::4]:
        write("json", raw)
    for text in ['{"a":[1,-2.5e+3,true,false,null],"b":"\\u00e9\\ud83d\\ude00\\n"}', '[]', '{}',
                 '"e\\u0301"', '0', '-0.0E-0', '[[[[{"":[]}]]]]']:
        write("json", text)

    # Importer sources: each seed file cut to its first records, plus layout variants.
    def cut(name, path, counts=(1, 2)):
        with open(os.path.join(SEEDS, name), "rb") as file:
            document = json.loads(file.read())
        for count in counts:
            copy = json.loads(json.dumps(document))
            holder = copy
            for key in path[:-1]:
                holder = holder[key]
            if path:
                holder[path[-1]] = holder[path[-1]][:count]
            else:
                copy = copy[:count]
            write("import", json.dumps(copy, ensure_ascii=False, indent=1))

    cut("contacts-v3.json", [])
    cut("acmeaom-locations.json", ["features"])
    cut("field-observations.json", ["observations"])
    cut("taipei-zoo-animals.json", ["result", "results"])
    with open(os.path.join(SEEDS, "states-zipcodes.assessment-states.json"), "rb") as file:
        states = json.loads(file.read())
    first = dict(list(states.items())[:2])
    write("import", json.dumps(first, indent=1))
    with open(os.path.join(SEEDS, "states-zipcodes.readme-example.plist"), "rb") as file:
        plist = file.read()
    write("import", plist)
    write("import", plistlib.dumps(plistlib.loads(plist), fmt=plistlib.FMT_BINARY))
    write("import", plistlib.dumps(first, fmt=plistlib.FMT_BINARY))
    write("import", plistlib.dumps(first))
    write("import", '{"States":[{"Name":"Ohio","ZipCodes":["43001",43002]}]}')
    for target in sorted(os.listdir(CORPUS)):
        print(target, len(os.listdir(os.path.join(CORPUS, target))))


main()
