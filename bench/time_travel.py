"""Time travel on an existing log: python3 bench/time_travel.py <replay> <log> <runs>.

Medians of fresh processes against `rebuild --no-checkpoints`; the log should have its automatic
checkpoints (one `replay rebuild` saves them). See BENCHMARKS.md, "Automatic checkpoints".
"""
import random, statistics, subprocess, sys, time
replay, log, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
def t(args):
    s = time.perf_counter(); subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True); return time.perf_counter() - s
def med(args_list): return statistics.median(t(a) for a in args_list)
last = int(subprocess.run(["tail", "-c", "2000", log], capture_output=True, text=True).stdout.strip().split("\n")[-1].split(",")[0].split(":")[1])
full = med([[replay, "rebuild", "--log", log, "--no-checkpoints"]] * runs)
print(f"log {log}: {last} events; rebuild --no-checkpoints median {full:.3f} s")
def row(label, args_list):
    m = med(args_list); print(f"{label}: {m:.3f} s ({100*m/full:.1f} % of a full rebuild)")
rnd = random.Random(1)
seqs = [rnd.randint(1, last // 1000) * 1000 for _ in range(runs)]
times = []
for s in seqs:
    out = subprocess.run([replay, "log", "--log", log, "--from", str(s - rnd.randint(1, 999)), "--limit", "1", "--json"], capture_output=True, text=True).stdout
    times.append(out.split('"at":"')[1].split('"')[0])
print("seqs", seqs); print("times", times)
row("state contacts (end, table)", [[replay, "state", "contacts", "--log", log]] * runs)
row("state contacts --json (end)", [[replay, "state", "contacts", "--json", "--log", log]] * runs)
row("state contacts --id 13 (end)", [[replay, "state", "contacts", "--id", "13", "--log", log]] * runs)
row("rebuild (end, all five models)", [[replay, "rebuild", "--log", log]] * runs)
row("rebuild --at <random seq>", [[replay, "rebuild", "--at", str(s), "--log", log] for s in seqs])
row("state contacts --at <random seq> (table)", [[replay, "state", "contacts", "--at", str(s), "--log", log] for s in seqs])
row("state contacts --at <random seq> --id 13", [[replay, "state", "contacts", "--id", "13", "--at", str(s), "--log", log] for s in seqs])
row("state contacts --as-of <random time> --id 13", [[replay, "state", "contacts", "--id", "13", "--as-of", x, "--log", log] for x in times])
row("rebuild --as-of <random time>", [[replay, "rebuild", "--as-of", x, "--log", log] for x in times])
row("state zipcodes --at <random seq>", [[replay, "state", "zipcodes", "--at", str(s), "--log", log] for s in seqs])
