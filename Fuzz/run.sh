#!/usr/bin/env bash
# Builds the fuzz targets (libFuzzer + AddressSanitizer) and runs each for a while.
#
#   Fuzz/run.sh [--seconds N] [--jobs N] [target...]     targets: json payload line import
#
# Exits non-zero when any target crashes, leaks, times out, or finds a disagreement (see
# docs/FUZZING.md for what each checks). Inputs that fail are kept in Fuzz/.work/<target>/
# (ignored by git), with the corpus each run grows; the committed seeds are Fuzz/Corpus/<target>/.
# CI runs `Fuzz/run.sh --seconds 30`. FUZZ_NICE=10 lowers the runs' priority on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=30
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --seconds=*) seconds="${1#*=}"; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    -*) echo "run.sh: unknown option '$1'" >&2; exit 64 ;;
    *) targets+=("$1"); shift ;;
  esac
done
all=(json payload line import)
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

# Per-target libFuzzer options. import: leak checks off, as Foundation's XMLParser and
# PropertyListSerialization leave allocations that make libFuzzer run LeakSanitizer after almost
# every input (46 instead of 270 inputs a second); the other targets keep them.
target_options() {
  case "$1" in
    import) echo "-detect_leaks=0" ;;
    *) echo "" ;;
  esac
}

binary_name() {
  case "$1" in
    json) echo FuzzJSON ;; payload) echo FuzzPayload ;; line) echo FuzzLine ;;
    import) echo FuzzImport ;;
    *) echo "run.sh: unknown target '$1' (targets: ${all[*]})" >&2; exit 64 ;;
  esac
}
for target in "${targets[@]}"; do binary_name "$target" > /dev/null; done

scratch=.build-fuzz
bin="$scratch/debug"
echo "== building the fuzz targets (libFuzzer, AddressSanitizer) in $scratch"
# SwiftPM keeps a path dependency's file list in its build plan; a plan made before a source
# file was added or removed fails to compile, so plan afresh every time (a few seconds).
rm -f "$scratch/debug.yaml"
# `--sanitize fuzzer` makes SwiftPM link the executables without a `main` of their own (libFuzzer
# has it). The sanitizers themselves go in one `-Xswiftc` flag: SwiftPM passes two `--sanitize`
# options to swiftc in an arbitrary order, and the last `-sanitize=` wins, so about half the
# builds had no coverage instrumentation (or no AddressSanitizer) at all.
build_start=$SECONDS
build_log="$scratch/fuzz-build.log"
mkdir -p "$scratch"
if ! swift build --package-path Fuzz --scratch-path "$scratch" --sanitize fuzzer \
  -Xswiftc -sanitize=fuzzer,address > "$build_log" 2>&1; then
  grep -v '^/usr/bin/ld.gold: warning' "$build_log" | tail -40 >&2
  echo "run.sh: the fuzz targets do not build (the whole log: $build_log)" >&2
  exit 1
fi
echo "built in $((SECONDS - build_start)) s"

# Foundation's XMLParser leaks the CFError it makes for each malformed document: not ours.
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0"
# Swift's own crash backtracer would race AddressSanitizer's report; libFuzzer's is enough.
export SWIFT_BACKTRACE=enable=no

failed=()
for target in "${targets[@]}"; do
  work="Fuzz/.work/$target"
  mkdir -p "$work/corpus" "$work/crashes"
  log="$work/last-run.log"
  echo "== $target: ${seconds} s"
  status=0
  nice -n "${FUZZ_NICE:-0}" "$bin/$(binary_name "$target")" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/crashes/" $(target_options "$target") "$work/corpus" "Fuzz/Corpus/$target" > "$log" 2>&1 \
    || status=$?
  grep -E '^stat::(number_of_executed_units|peak_rss_mb)|^#[0-9]+.*DONE' "$log" || true
  if ! grep -q 'INITED cov:' "$log"; then
    echo "-- $target: libFuzzer found no coverage counters: the build is not instrumented" >&2
    status=${status/#0/1}
  fi
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  echo "$(date -u +%FT%TZ) $target seconds=$seconds executions=${executions:-0} exit=$status" \
    >> Fuzz/.work/history.log
  if [ $status -ne 0 ]; then
    failed+=("$target")
    echo "-- $target FAILED (exit $status); the log's end ($log):" >&2
    grep -v -e '^#[0-9]' "$log" | tail -40 >&2
    echo "-- reproduce: $bin/$(binary_name "$target") <file from $work/crashes/>" >&2
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzzing found problems in: ${failed[*]}" >&2
  exit 1
fi
echo "fuzzing passed: ${targets[*]}"
