#!/usr/bin/env bash
# Builds eventlogs/sample.jsonl (and its key store, sample.jsonl.keys): every file of eventlogs/seed-data imported, then a short story of
# later changes by several people, spread over a week, so time travel and audit have history to
# show. The clock and the event ids are fixed, so rebuilding gives the same bytes (a test checks).
#
#   eventlogs/build-sample.sh [output]        # default: eventlogs/sample.jsonl
#
# REPLAY_BIN may name a replay executable to use; otherwise this builds one with `swift build`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
output=${1:-$root/eventlogs/sample.jsonl}
seeds=$root/eventlogs/seed-data

if [ -z "${REPLAY_BIN:-}" ]; then
  (cd "$root" && swift build --product replay >&2)
  REPLAY_BIN="$(cd "$root" && swift build --show-bin-path)/replay"
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export REPLAY_LOG=$scratch/sample.jsonl
export REPLAY_ID_SEED=sample-log
# The contacts' keys (eventlogs/sample.jsonl.keys) derive from this seed, so the sample rebuilds
# byte for byte; a real log's keys come from the system's secure random source.
export REPLAY_INSECURE_SEALING_SEED=sample-log
unset REPLAY_CLOCK

# at <ISO 8601 time> <replay arguments...>: one step of the story, at that time.
at() {
  local time=$1
  shift
  REPLAY_CLOCK=$time "$REPLAY_BIN" "$@" >&2
}

# Day 1: the five apps' source data arrives.
at 2026-11-01T09:00:00Z import observations "$seeds/field-observations.json" --actor mei --reason "initial load of the field survey"
at 2026-11-01T09:05:00Z import states "$seeds/states-zipcodes.readme-example.plist" --actor sam --reason "initial load: the documented plist"
at 2026-11-01T09:06:00Z import states "$seeds/states-zipcodes.assessment-states.json" --actor sam --reason "initial load: the assessment's states"
at 2026-11-01T09:10:00Z import zoo "$seeds/taipei-zoo-animals.json" --actor lee --reason "first page of the Taipei Zoo open data"
at 2026-11-01T09:15:00Z import locations "$seeds/acmeaom-locations.json" --actor kim --reason "initial load of the locations"
at 2026-11-01T09:20:00Z import contacts "$seeds/contacts-v3.json" --actor ana --reason "initial load of the contacts"

# Day 2: contacts are favourited and unfavourited.
at 2026-11-02T10:30:00Z contacts favorite 13 --actor ana --reason "VIP donor"
at 2026-11-02T10:31:00Z contacts unfavorite 16 --actor ana --reason "left the company"

# Day 3: a zip code is corrected, and one that was filed under the wrong state is removed.
at 2026-11-03T14:00:00Z zipcodes modify California 90001 90011 --actor sam --reason "typo in the source file"
at 2026-11-03T14:05:00Z zipcodes remove Arizona 99501 --actor sam --reason "an Alaska zip code listed under Arizona"

# Day 4: two animals arrive.
at 2026-11-04T09:15:00Z animals insert --name "臺灣黑熊 Formosan black bear" --description "Rescued in Yushan; settling into the Formosan animal area." --picture pictures/formosan-black-bear.jpg --actor lee --reason "new arrival"
at 2026-11-04T09:20:00Z animals insert --name "穿山甲 Chinese pangolin" --description "In quarantine until December." --picture pictures/pangolin.jpg --actor lee --reason "rescued, in quarantine"

# Day 5: a location is moved after a GPS survey.
at 2026-11-05T16:45:00Z locations move 2abca2a7-d768-4db2-95e2-09002df94362 --latitude -37.8136 --longitude 144.9631 --actor kim --reason "GPS correction: Echo is in Melbourne"

# Day 6: an observation is revised after a second visit.
hawk=$("$REPLAY_BIN" log --type ObservationRecorded --json | grep '"title":"Red-tailed Hawk"' | sed 's/.*"data":{"id":"\([0-9a-f]*\)".*/\1/')
at 2026-11-06T08:10:00Z observations revise "$hawk" --description "Standing in tree in middle of wooded area; a nest is visible higher up." --actor mei --reason "second visit"

# Days 7 and 8: more favourites change.
at 2026-11-07T12:00:00Z contacts favorite 9 --actor ana --reason "new partner"
at 2026-11-08T17:30:00Z contacts unfavorite 13 --actor ana --reason "donation ended"

"$REPLAY_BIN" verify >&2
mv "$REPLAY_LOG" "$output"
mv "$REPLAY_LOG.keys" "$output.keys"
echo "wrote $output and $output.keys" >&2
