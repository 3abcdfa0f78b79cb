#!/usr/bin/env bash
# The benchmark, in one command, on a fresh machine:
#
#   bench/run.sh [--events N] [--runs R] [--smoke] [--stages read,write,state,nearest,memory,scale,live]
#
# Builds `replay` and the benchmark's Swift programs in release, generates a log of N events
# (default 1 000 000) with a fixed seed in bench/work/, and measures, in this one run and on
# that one log, medians of R runs (default 5): the floor (cat, a memchr line split), the peers
# (Python json and orjson per line, SQLite + orjson, the eventsourcing library, Foundation's
# JSONDecoder), `replay rebuild`, batch imports and durable appends against raw write +
# fdatasync, `state --at` with checkpoints, the nearest-neighbour index against scipy and
# scikit-learn, and the peak memory of a rebuild. Stages whose `replay` subcommand does not
# exist yet are skipped with "not available yet: <subcommand>".
#
# --smoke: 20 000 events, one run, fewer points; what CI runs. A Python package that cannot be
# installed then skips its peers instead of failing.
#
# The table goes to standard output and, as Markdown, to bench/work/results.md. Exit status 0
# means every stage that exists ran; no timing target is asserted.
set -euo pipefail
bench=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$bench")
work=$bench/work
events=1000000
runs=5
smoke=0
stages=""
command="bench/run.sh${*:+ $*}"
while [ $# -gt 0 ]; do
  case $1 in
    --events) events=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --smoke) smoke=1; shift ;;
    --stages) stages=$2; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/run.sh: unknown option '$1' (see --help)" >&2; exit 64 ;;
  esac
done
if [ "$smoke" = 1 ]; then
  case " $command " in *" --events "*) ;; *) events=20000 ;; esac
  case " $command " in *" --runs "*) ;; *) runs=1 ;; esac
fi
mkdir -p "$work"

echo "== build (release)"
# One build of the engine serves both: `replay` is built as a product of the bench package's
# dependency on the main package, with the same release settings as `swift build -c release`.
scratch=$work/swift-build
swift build -c release --package-path "$bench/swift" --scratch-path "$scratch" --product replay
swift build -c release --package-path "$bench/swift" --scratch-path "$scratch" --product replay-bench
bin=$(swift build -c release --package-path "$bench/swift" --scratch-path "$scratch" --show-bin-path)
replay=${REPLAY_BIN:-$bin/replay}

echo "== tools"
hyperfine=$(command -v hyperfine || true)
if [ -z "$hyperfine" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing hyperfine from Debian"
  if (apt-get install -y -q hyperfine >/dev/null 2>&1 \
      || { timeout 300 apt-get update -q >/dev/null 2>&1 && apt-get install -y -q hyperfine >/dev/null 2>&1; }); then
    hyperfine=$(command -v hyperfine || true)
  fi
fi
[ -n "$hyperfine" ] && echo "hyperfine: $hyperfine" || echo "hyperfine unavailable: timing with a loop instead"
if [ ! -x /usr/bin/time ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  apt-get install -y -q time >/dev/null 2>&1 || true
fi

venv=$work/venv
venv_python=""
venv_reason=""
packages=(orjson eventsourcing==9.5.6 scikit-learn scipy numpy cryptography crc32c)
if [ ! -x "$venv/bin/python" ] && ! python3 -m venv "$venv" >"$work/venv.log" 2>&1; then
  venv_reason="skipped: python3 -m venv failed ($(tail -1 "$work/venv.log"))"
elif ! "$venv/bin/python" -c 'import orjson, eventsourcing, sklearn, scipy, numpy, cryptography, crc32c' 2>/dev/null \
  && ! timeout 900 "$venv/bin/pip" install -q --disable-pip-version-check --retries 2 --timeout 30 "${packages[@]}" >"$work/pip.log" 2>&1; then
  venv_reason="skipped: pip install ${packages[*]} failed ($(grep -i '^error' "$work/pip.log" | tail -1 || true)$(grep -qi '^error' "$work/pip.log" || tail -1 "$work/pip.log"))"
else
  venv_python=$venv/bin/python
  echo "python peers: $("$venv_python" -c 'from importlib.metadata import version as v; print(", ".join(p + " " + v(p) for p in ("orjson", "eventsourcing", "scikit-learn", "scipy", "numpy", "cryptography", "crc32c")))' 2>/dev/null || echo "$venv_python")"
fi
if [ -n "$venv_reason" ]; then
  echo "$venv_reason"
  if [ "$smoke" != 1 ]; then
    echo "bench/run.sh: the Python peers are needed for a full run" >&2
    exit 1
  fi
fi

python3 "$bench/harness.py" --events "$events" --runs "$runs" $( [ "$smoke" = 1 ] && echo --smoke ) \
  --work "$work" --replay "$replay" --bench "$bin/replay-bench" \
  ${venv_python:+--venv-python "$venv_python"} ${venv_reason:+--venv-reason "$venv_reason"} \
  ${hyperfine:+--hyperfine "$hyperfine"} ${stages:+--stages "$stages"} --command "$command"
