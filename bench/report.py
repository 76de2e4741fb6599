#!/usr/bin/env python3
"""Renders bench/run.sh's raw results (one JSON line per run) as the Markdown report and plot.

    report.py --jsonl RESULTS --out REPORT.md --png SCALING.png [--meta META]

RESULTS holds loadgen's JSON lines, each extended by run.sh with side, flush, scenario, step and
the broker's /proc figures, plus broker-start lines and one "meta" line (machine facts, scenario
sizes). META, optional, adds key=value lines of the same facts.

    /usr/bin/python3 report.py --wiregen-scaling --jsonl RESULTS [--png SCALING.png] [--run PREFIX]

renders bench/wiregen/scaling.sh's lines instead: the Markdown table on stdout, the plot with
matplotlib (Debian's python3-matplotlib, hence /usr/bin/python3). A scale measured more than once
(the script run again, its lines appended) is a row per pass and the plot's line goes through the
medians.
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile

SIDES = ("rokka", "mock")


def load(path_meta, path_jsonl):
    with open(path_jsonl) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    meta = {}
    for row in rows:
        if row.get("kind") == "meta":
            meta.update({k: v for k, v in row.items() if k != "kind"})
    if path_meta:
        with open(path_meta) as f:
            for line in f:
                key, _, value = line.rstrip("\n").partition("=")
                meta[key] = value
    return meta, [r for r in rows if r.get("kind") != "meta"]


def fmt(value, digits=1):
    """A number for a table cell: thousands separated, '-' when missing."""
    if value is None:
        return "-"
    if isinstance(value, float) and not value.is_integer() and abs(value) < 1000:
        return f"{value:,.{digits}f}"
    return f"{round(value):,}"


def ratio(a, b):
    if a is None or b in (None, 0):
        return None
    return a / b


def fmt_ratio(r):
    return "-" if r is None else f"{r:.2f}"


def reps_cell(run):
    """How many repetitions the row is the median of, and how far apart their msgs/s were."""
    if run.get("reps", 1) <= 1:
        return "1"
    spread = run.get("spread")
    return f"{run['reps']} (±{spread * 50:.0f}%)" if spread is not None else str(run["reps"])


def errors_cell(run):
    if not run.get("errors"):
        return "0"
    return f"{run['errors']:,}: {run.get('first_error', '')[:90]}"


def other_cpu(run):
    """CPU seconds the rest of the machine used during the run (other users' work: noise)."""
    machine, client = run.get("machine_cpu_s"), run.get("client_cpu_s")
    if machine is None or client is None:
        return None
    return max(0.0, machine - client - (run.get("broker_cpu_s") or 0.0))


def us_per_msg(run, cpu_key):
    """CPU microseconds per delivered message: a cost that does not depend on who was the bottleneck."""
    cpu, msgs = run.get(cpu_key), run.get("msgs")
    return None if cpu is None or not msgs else cpu * 1e6 / msgs


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


class Results:
    def __init__(self, runs):
        self.runs = runs

    def select(self, scenario, side=None, step=None, flush=None):
        return [r for r in self.runs
                if r.get("scenario") == scenario
                and (side is None or r.get("side") == side)
                and (step is None or r.get("step") == step)
                and (flush is None or r.get("flush") == flush)]

    def one(self, scenario, side, step, flush=None):
        """The median run (by msgs/s; the lower middle one for an even count) of repeated runs,
        with "reps" and "spread" ((max - min) / median msgs/s) added."""
        found = sorted(self.select(scenario, side, step, flush), key=lambda r: r.get("msgs_per_s") or 0)
        if not found:
            return None
        run = dict(found[(len(found) - 1) // 2])
        rates = [r.get("msgs_per_s") or 0 for r in found]
        run["reps"] = len(found)
        run["spread"] = ratio(max(rates) - min(rates), run.get("msgs_per_s"))
        return run

    def per_flush(self, scenario, step):
        """The median run of every (side, flush) pair that ran this step, Rokka first."""
        pairs = []
        for run in self.select(scenario, step=step):
            if (run["side"], run.get("flush")) not in pairs:
                pairs.append((run["side"], run.get("flush")))
        pairs.sort(key=lambda p: SIDES.index(p[0]) if p[0] in SIDES else len(SIDES))
        return [self.one(scenario, side, step, flush) for side, flush in pairs]

    def sides(self):
        present = {r.get("side") for r in self.runs}
        return [s for s in SIDES if s in present]


def side_label(run):
    flush = run.get("flush", "")
    return f"{run['side']} ({flush})" if flush else run["side"]


def section_produce(res, meta):
    rows = []
    for size in (100, 1024):
        for acks in ("1", "all"):
            step = f"size={size} acks={acks}"
            mock = res.one("produce", "mock", step)
            base = mock.get("msgs_per_s") if mock else None
            for run in res.per_flush("produce", step):
                rows.append([size, acks, side_label(run), reps_cell(run), fmt(run.get("msgs_per_s")), fmt(run.get("mb_per_s")),
                             fmt(run.get("delivery_p50_ms")), fmt(run.get("delivery_p99_ms")),
                             fmt_ratio(ratio(run.get("msgs_per_s"), base)),
                             fmt(run.get("broker_cpu_s"), 2), fmt(run.get("client_cpu_s"), 2),
                             fmt(other_cpu(run), 2), fmt(run.get("broker_peak_rss_mb")), errors_cell(run)])
    return (f"## 1. Produce (closed loop, {meta.get('partitions')} partitions)\n\n"
            "Each producer sends as fast as librdkafka accepts (linger.ms 5, batch.size 1,000,000). "
            "Delivery latency is send to delivery report; in a closed loop it is mostly time spent "
            "queued in the client, so compare it only between brokers. *vs mock* = msgs/s over the "
            "mock's msgs/s for the same size and acks.\n\n"
            + table(["size B", "acks", "broker (flush)", "runs (spread)", "msgs/s", "MB/s", "p50 ms", "p99 ms", "vs mock",
                     "broker CPU s", "client CPU s", "other CPU s", "broker peak RSS MB", "errors"], rows))


def section_consume(res, meta):
    rows = []
    for side in res.sides():
        fill = res.one("consume", side, "fill")
        read = res.one("consume", side, "read")
        if not fill or not read:
            continue
        speedup = ratio(read.get("mb_per_s"), fill.get("mb_per_s"))
        complete = "yes" if read.get("msgs", 0) >= fill.get("msgs", 1) else \
            f"NO: {read.get('msgs', 0):,} of {fill.get('msgs', 0):,}"
        rows.append([side_label(fill), fmt(fill.get("msgs_per_s")), fmt(fill.get("mb_per_s")),
                     fmt(read.get("msgs_per_s")), fmt(read.get("mb_per_s")), fmt_ratio(speedup), complete,
                     fmt(read.get("first_msg_ms")), fmt(read.get("broker_cpu_s"), 2),
                     fmt(read.get("client_cpu_s"), 2), fmt(other_cpu(read), 2), errors_cell(read)])
    return (f"## 2. Consume a backlog ({meta.get('backlog_mib')} MiB of 1 KiB messages, "
            f"{meta.get('backlog_partitions')} partitions)\n\n"
            "*fill*: acks=1 producer writes the backlog; *read*: one consumer assigned every partition "
            "reads from the start to the end (rate from its first message; *first msg* is the time to "
            "it). *read/fill* is the target's ratio (>= 2).\n\n"
            + table(["broker (flush)", "fill msgs/s", "fill MB/s", "read msgs/s", "read MB/s", "read/fill",
                     "all read", "first msg ms", "broker CPU s (read)", "client CPU s (read)", "other CPU s (read)",
                     "errors"], rows))


def section_latency(res, meta):
    rows = []
    for side in res.sides():
        for step in ("max", "25%", "50%", "75%"):
            run = res.one("latency", side, step)
            if not run:
                continue
            rows.append([side_label(run), step, fmt(run.get("rate_target")) if step != "max" else "closed loop",
                         fmt(run.get("consumed_per_s" if step == "max" else "msgs_per_s")),
                         fmt(run.get("unsent_due")),
                         fmt(run.get("delivery_p50_ms"), 2), fmt(run.get("delivery_p99_ms"), 2),
                         fmt(run.get("e2e_p50_ms"), 2), fmt(run.get("e2e_p99_ms"), 2),
                         fmt(run.get("e2e_p999_ms"), 2), fmt(run.get("e2e_max_ms"), 2),
                         fmt(run.get("broker_cpu_s"), 2), fmt(run.get("client_cpu_s"), 2),
                         fmt(other_cpu(run), 2), errors_cell(run)])
    return (f"## 3. End-to-end latency (1 KiB, acks=1, linger.ms {meta.get('lat_linger_ms')}, "
            f"{meta.get('partitions')} partitions)\n\n"
            "*max* is a closed-loop run of the same workload (producer and consumer together in one "
            "process, same settings); its *achieved* is the rate messages came back at, first to last "
            "consumed. Each level then runs it at a fixed rate (open loop: latency counts from "
            "each message's scheduled send time, so stalls are not hidden). *e2e* is scheduled send to "
            f"consume; the consumer uses fetch.wait.max.ms={meta.get('lat_fetch_wait_ms')}. *unsent* "
            "counts messages due that the client could not even hand to librdkafka (rate not sustained).\n\n"
            + table(["broker (flush)", "load", "target msgs/s", "achieved msgs/s", "unsent", "delivery p50 ms",
                     "delivery p99 ms", "e2e p50 ms", "e2e p99 ms", "e2e p99.9 ms", "e2e max ms",
                     "broker CPU s", "client CPU s", "other CPU s", "errors"], rows))


def scaling_rows(res, scenario, points):
    rows, plot = [], {}
    for side in res.sides():
        base = res.one(scenario, side, "64 max") or res.one("scaling", side, "64 max")
        base_rate = base.get("msgs_per_s") if base else None
        for point in points:
            top = res.one(scenario, side, f"{point} max")
            fixed = res.one(scenario, side, f"{point} fixed")
            if not top:
                continue
            rows.append([side_label(top), reps_cell(top), f"{top.get('partitions', point):,}", fmt(top.get("partitions_touched")),
                         fmt(top.get("msgs_per_s")), fmt(top.get("mb_per_s")),
                         fmt_ratio(ratio(top.get("msgs_per_s"), base_rate)),
                         fmt(fixed.get("delivery_p50_ms"), 2) if fixed else "-",
                         fmt(fixed.get("delivery_p99_ms"), 2) if fixed else "-",
                         fmt(us_per_msg(top, "broker_cpu_s")), fmt(us_per_msg(top, "client_cpu_s")),
                         fmt(other_cpu(top), 2), fmt(top.get("broker_fds")), fmt(top.get("broker_files")),
                         fmt(top.get("broker_data_mb")), fmt(top.get("broker_peak_rss_mb")),
                         errors_cell(top if top.get("errors") else (fixed or top))])
            plot.setdefault(side, []).append((top.get("partitions", point), top.get("msgs_per_s"),
                                              fixed.get("delivery_p99_ms") if fixed else None))
    return rows, plot


SCALING_HEADER = ["broker (flush)", "runs (spread)", "partitions", "touched", "max msgs/s", "max MB/s", "vs 64", "p50 ms @fixed",
                  "p99 ms @fixed", "broker us/msg", "client us/msg", "other CPU s", "broker fds", "files",
                  "data MB", "broker peak RSS MB", "errors"]


def section_scaling(res, meta, png_name):
    points = sorted({int(r["step"].split()[0]) for r in res.select("scaling")})
    rows, _ = scaling_rows(res, "scaling", points)
    text = ("## 4. Partition scaling (1 KiB, acks=1, one topic)\n\n"
            "Every point is a fresh broker and topic. *max*: closed-loop throughput, messages spread over "
            f"all partitions in runs of {meta.get('scale_run_length')} per partition (*touched*: partitions "
            "that got at least one message); *vs 64*: over the 64-partition point (targets: >= 0.90 at "
            "10,000 and >= 0.80 at 50,000). *@fixed*: delivery latency of an open-loop run at "
            f"{int(meta.get('scale_rate', 0)):,} msgs/s. *us/msg*: CPU microseconds per message of the max "
            "run, broker and client: when the client's cost climbs with the partition count, the client "
            "(librdkafka), not the broker, bounds the throughput. *broker fds*: the broker's "
            "peak open descriptors while the max run ran (client sockets included); files and data: its data "
            "directory after the run (data: `du`, so with log.preallocate it includes the allocated rest of "
            "the newest log file); peak RSS: VmHWM over the run.\n\n"
            + table(SCALING_HEADER, rows))
    if png_name:
        text += f"\n\n![throughput and p99 latency against partition count]({png_name})"
    else:
        text += "\n\n(no plot: gnuplot is missing or failed)"
    return text


def section_topics(res, meta):
    points = sorted({int(r["step"].split()[0]) for r in res.select("topics")})
    rows, _ = scaling_rows(res, "topics", points)
    header = list(SCALING_HEADER)
    header[SCALING_HEADER.index("vs 64")] = "vs 64 (scaling)"
    return (f"## 5. Many topics ({int(points[0]) if points else 0:,} topics x 2 partitions, 1 KiB, acks=1)\n\n"
            "The same two runs as a scaling point, over many small topics instead of one large one; compare "
            "with the 10,000-partition row above.\n\n" + table(header, rows))


def target_lines(res):
    lines = []
    sides = res.sides()

    def ok(cond):
        return "**met**" if cond else "**missed**"

    mock = res.one("produce", "mock", "size=1024 acks=1")
    for run in res.per_flush("produce", "size=1024 acks=1"):
        if run["side"] != "rokka":
            continue
        r = ratio(run.get("msgs_per_s"), mock.get("msgs_per_s") if mock else None)
        lines.append(f"- Produce 1 KiB acks=1, Rokka/mock >= 1.0 ({run.get('flush')} flush): "
                     f"{fmt_ratio(r)} {ok(r is not None and r >= 1.0) if r is not None else ''}")
    for side in sides:
        who = side if side != "mock" else "mock (the reference's own figure, for context)"
        base = res.one("scaling", side, "64 max")
        for point, goal in ((10000, 0.9), (50000, 0.8)):
            run = res.one("scaling", side, f"{point} max")
            if base and run:
                r = ratio(run.get("msgs_per_s"), base.get("msgs_per_s"))
                lines.append(f"- {who}: throughput at {point:,} partitions / at 64 >= {goal}: {fmt_ratio(r)} "
                             f"{ok(r is not None and r >= goal)}{bound_note(base, run)}")
        lat = res.one("latency", side, "50%")
        if lat:
            p99 = lat.get("e2e_p99_ms")
            lines.append(f"- {who}: e2e p99 at 50% of max < 5 ms: {fmt(p99, 2)} ms {ok(p99 is not None and p99 < 5)}")
        fill, read = res.one("consume", side, "fill"), res.one("consume", side, "read")
        if fill and read:
            r = ratio(read.get("mb_per_s"), fill.get("mb_per_s"))
            lines.append(f"- {who}: backlog read / produce rate >= 2: {fmt_ratio(r)} {ok(r is not None and r >= 2)}")
    return lines


def bound_note(base, run):
    """Says which side's CPU cost per message grew from the 64-partition point to this one."""
    growth = {who: ratio(us_per_msg(run, f"{who}_cpu_s"), us_per_msg(base, f"{who}_cpu_s"))
              for who in ("client", "broker")}
    if growth["client"] is None:
        return ""
    note = f" (CPU per message vs 64 partitions: client x{growth['client']:.1f}"
    if growth["broker"] is not None:
        note += f", broker x{growth['broker']:.1f}"
    if growth["client"] >= 2 and (growth["broker"] is None or growth["client"] > growth["broker"]):
        note += ": bound by the client, librdkafka"
    return note + ")"


def banner(meta, res):
    rokka = meta.get("rokka", "")
    if "rokka" not in res.sides():
        return (f"> **MOCK ONLY.** Rokka was not measured ({rokka}). Every table shows the reference "
                "broker, librdkafka's in-memory mock cluster, alone: this run validates the tooling and "
                "records the reference's figures on this machine. The Rokka rows appear once `build/rokka` "
                "serves.")
    if rokka.startswith("SELF-TEST"):
        return ("> **SELF-TEST.** The 'rokka' rows are a second mock cluster run through the Rokka code "
                "path of run.sh; the ratios validate the pipeline, not Rokka.")
    return f"> Rokka: {rokka}. Reference: librdkafka's in-memory mock cluster, same workloads, same run."


def noise_line(meta, runs):
    """How much of the machine other work took while the timed runs ran."""
    walls = [(r.get("wall_s"), other_cpu(r)) for r in runs]
    wall = sum(w for w, o in walls if w is not None and o is not None)
    other = sum(o for w, o in walls if w is not None and o is not None)
    cores = float(meta.get("nproc") or 0)
    if wall <= 0 or cores <= 0:
        return ""
    share = other / (wall * cores)
    verdict = ("a quiet machine" if share < 0.1 else
               "a busy machine: absolute figures are depressed, compare ratios" if share < 0.5 else
               "an overloaded machine: absolute figures are far below what the hardware does; only "
               "same-run ratios mean anything, and even they are noisy")
    return (f"\n\nDuring the timed runs, other work used {share:.0%} of the {cores:.0f} cores "
            f"({other:,.0f} CPU-seconds over {wall:,.0f} s of runs): {verdict}.")


def section_machine(meta, runs):
    keys = [("date", "date"), ("mode", "mode"), ("commit", "commit"), ("nproc", "cores (nproc)"),
            ("cpu", "CPU"), ("memory", "memory"), ("kernel", "kernel"), ("filesystem", "filesystem of the data dir"),
            ("open_files_limit", "open files limit"), ("librdkafka", "librdkafka"), ("load_start", "load average at start"),
            ("load_end", "load average at end"), ("wall_s", "wall time s"),
            ("repeat", "repetitions per scenario (tables: median run)"), ("duration_s", "seconds per timed run")]
    rows = [[label, meta.get(key, "-")] for key, label in keys]
    return ("## Machine\n\n" + table(["fact", "value"], rows) + "\n\n"
            f"The clients and the broker share these {meta.get('nproc', '?')} cores (and the machine is shared "
            "with other work: see the load averages), so every client CPU-second is taken from the broker. "
            "Client CPU is loadgen's own (getrusage), broker CPU is utime+stime from /proc/<pid>/stat over "
            "the run, *other CPU* is what the rest of the machine used meanwhile (from /proc/stat: other "
            "users' work, noise in every figure of that row), peak RSS is VmHWM reset before each run."
            + noise_line(meta, runs))


def section_commands(meta, rows):
    out = ["## Exact commands", "", "```sh", meta.get("invocation", "bench/run.sh"), "```", "",
           "<details><summary>Every broker start and loadgen run, in order (from the repository root; "
           "ports and paths are this run's)</summary>", "", "```sh"]
    for row in rows:
        if row.get("kind") == "broker":
            out += ["", f"# {row['side']} broker, flush {row['flush']}", row["command"]]
        elif row.get("command"):
            out.append(row["command"])
    out += ["```", "", "</details>"]
    return "\n".join(out)


def write_plot(plot, png, fixed_rate):
    """Two panels against partition count (log x): max throughput, and p99 at the fixed rate."""
    if not plot or not shutil.which("gnuplot"):
        return False
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "scaling.dat")
        with open(data, "w") as f:
            for side in plot:
                f.write(f"# {side}\n")
                for parts, rate, p99 in plot[side]:
                    f.write(f"{parts} {rate if rate is not None else 'NaN'} {p99 if p99 is not None else 'NaN'}\n")
                f.write("\n\n")
        series = list(plot)
        thr = ", ".join(f"'{data}' index {i} using 1:($2/1000) with linespoints lw 2 title '{s}'"
                        for i, s in enumerate(series))
        lat = ", ".join(f"'{data}' index {i} using 1:3 with linespoints lw 2 title '{s}'"
                        for i, s in enumerate(series))
        script = f"""
set terminal pngcairo size 900,800 font 'sans,10'
set output '{png}'
set multiplot layout 2,1 title 'Partition scaling: 1 KiB messages, acks=1'
set logscale x
set grid
set key outside right
set xlabel 'partitions'
set ylabel 'max throughput (thousand msgs/s)'
set yrange [0:*]
plot {thr}
set ylabel 'p99 delivery latency at {fixed_rate:,} msgs/s (ms)'
set logscale y
set yrange [*:*]
plot {lat}
unset multiplot
"""
        result = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
        if result.returncode != 0:
            print("gnuplot failed:", result.stderr)
            return False
    return True


# ---- bench/wiregen/scaling.sh: partition scaling with wiregen ----

def wiregen_passes(rows):
    """{(broker, partitions): [line, ...]} in the order measured, and the partition counts sorted."""
    runs = {}
    for row in rows:
        if row.get("broker") and row.get("partitions") is not None:
            runs.setdefault((row["broker"], row["partitions"]), []).append(row)
    return runs, sorted({p for _, p in runs})


def median(values):
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def wiregen_table(rows):
    runs, points = wiregen_passes(rows)
    out = []
    for broker in SIDES:
        for parts in points:
            for i, run in enumerate(runs.get((broker, parts), [])):
                base = runs.get((broker, 64), [None] * (i + 1))
                base = base[i] if i < len(base) else None
                topics = run.get("topics") or 1
                scale = f"{topics:,} x {parts // topics:,}" if topics > 1 else f"1 x {parts:,}"
                load = f"{(run.get('load_before') or '-').split()[0]} / {(run.get('load_after') or '-').split()[0]}"
                if run.get("skipped"):
                    out.append([broker, i + 1, f"{parts:,}", scale, f"skipped: {run['skipped']}"] + ["-"] * 9
                               + [load, "-"])
                    continue
                rss = f"{fmt(run.get('rss_broker_mb'))}" + (
                    f" ({fmt(run.get('rss_anon_mb'))} / {fmt(run.get('rss_file_mb'))})" if run.get("rss_file_mb") else "")
                out.append([broker, i + 1, f"{parts:,}", scale, fmt(run.get("msgs_per_s")),
                            fmt_ratio(ratio(run.get("msgs_per_s"), base.get("msgs_per_s") if base and not base.get("skipped") else None)),
                            f"{fmt(run.get('latency_p50_ms'))} / {fmt(run.get('latency_p99_ms'))}",
                            fmt(run.get("broker_cpu_us_per_msg"), 2), fmt(run.get("client_cpu_us_per_msg"), 2),
                            fmt(run.get("other_cpu_s")), rss, fmt(run.get("broker_fds")),
                            fmt(run.get("data_files")), fmt(run.get("partitions_written")), load, errors_cell(run)])
    return table(["broker", "pass", "partitions", "topics x partitions", "msgs/s", "vs 64", "p50 / p99 ms",
                  "broker CPU us/msg", "client CPU us/msg", "other CPU s", "broker RSS MB (anon / file)",
                  "broker fds", "data files", "partitions written", "load 1-min before / after", "errors"], out)


def wiregen_summary(rows):
    """One row per broker and scale: medians over the passes, and each pass's ratio to its own 64."""
    runs, points = wiregen_passes(rows)
    out = []
    for broker in SIDES:
        base = [r for r in runs.get((broker, 64), [])]
        base_med = median(r.get("msgs_per_s") for r in base if not r.get("skipped"))
        for parts in points:
            passes = runs.get((broker, parts), [])
            done = [r for r in passes if not r.get("skipped")]
            if not passes:
                continue
            if not done:
                out.append([broker, f"{parts:,}", f"skipped ({len(passes)} of {len(passes)}): {passes[0]['skipped']}"]
                           + ["-"] * 9)
                continue
            med = lambda key: median(r.get(key) for r in done)
            per_pass = [fmt_ratio(ratio(r.get("msgs_per_s"), b.get("msgs_per_s")))
                        for r, b in zip(passes, base) if not r.get("skipped") and not b.get("skipped")]
            out.append([broker, f"{parts:,}", f"{fmt(med('msgs_per_s'))} ({len(done)})",
                        fmt_ratio(ratio(med("msgs_per_s"), base_med)), ", ".join(per_pass),
                        fmt(med("latency_p99_ms")), fmt(med("broker_cpu_us_per_msg"), 2),
                        fmt(med("client_cpu_us_per_msg"), 2), fmt(med("rss_broker_mb")),
                        fmt(med("broker_fds")), fmt(med("data_files"))])
    return table(["broker", "partitions", "msgs/s, median (passes)", "vs 64 (medians)", "vs 64, each pass",
                  "p99 ms", "broker CPU us/msg", "client CPU us/msg", "broker RSS MB", "broker fds",
                  "data files"], out)


def wiregen_plot(rows, png):
    """Throughput, p99, and the broker's RSS and descriptors against partitions (log x), both brokers."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    runs, points = wiregen_passes(rows)
    fig, axes = plt.subplots(2, 2, figsize=(11, 8), sharex=True)
    panels = [("msgs_per_s", "throughput (thousand msgs/s)", 1e-3, False), ("latency_p99_ms", "p99 latency (ms)", 1, True),
              ("rss_broker_mb", "broker RSS at the end (MB)", 1, True), ("broker_fds", "broker open descriptors", 1, False)]
    colors = {"rokka": "tab:blue", "mock": "tab:orange"}
    for ax, (key, label, scale, logy) in zip(axes.flat, panels):
        for broker in SIDES:
            xs, ys = [], []
            for parts in points:
                done = [r for r in runs.get((broker, parts), []) if not r.get("skipped") and r.get(key) is not None]
                for r in done:
                    ax.plot(parts, r[key] * scale, ".", color=colors[broker], alpha=0.4)
                if done:
                    xs.append(parts)
                    ys.append(median(r[key] for r in done) * scale)
            if xs:
                ax.plot(xs, ys, "-o", color=colors[broker], label=broker)
            gone = [parts for parts in points if any(r.get("skipped") for r in runs.get((broker, parts), []))
                    and not any(not r.get("skipped") for r in runs.get((broker, parts), []))]
            for parts in gone:
                ax.axvline(parts, color=colors[broker], ls=":", lw=1)
        if key == "broker_fds":  # Rokka's data files on the same panel
            xs = [p for p in points if any(r.get("data_files") is not None for r in runs.get(("rokka", p), []))]
            ys = [median(r.get("data_files") for r in runs[("rokka", p)]) for p in xs]
            if xs:
                ax.plot(xs, ys, "--s", color=colors["rokka"], label="rokka: files in its data directory")
            ax.set_ylabel("broker open descriptors; data files")
            ax.legend(fontsize=8)
        ax.set_xscale("log")
        if logy:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel("partitions (topics of 100; 16 and 64: one topic)")
    skipped = any(r.get("skipped") for r in rows)
    axes[0][0].legend(title="dotted: skipped (see the table)" if skipped else None)
    sample = next((r for r in rows if r.get("size")), {})
    fig.suptitle(f"Partition scaling with wiregen: {sample.get('size', '?')} B records, {sample.get('records_per_batch', '?')} "
                 f"per batch, acks {sample.get('acks', '?')}, closed loop, {sample.get('duration_target_s', '?')} s per point "
                 "(line: median of passes)")
    fig.tight_layout()
    fig.savefig(png, dpi=100)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--meta")
    parser.add_argument("--jsonl", required=True)
    parser.add_argument("--out")
    parser.add_argument("--png")
    parser.add_argument("--wiregen-scaling", action="store_true",
                        help="render bench/wiregen/scaling.sh's lines: the table on stdout, the plot to --png")
    parser.add_argument("--run", help="with --wiregen-scaling: only the lines whose \"run\" starts with this")
    args = parser.parse_args()
    if args.wiregen_scaling:
        _, rows = load(None, args.jsonl)
        if args.run is not None:
            rows = [r for r in rows if str(r.get("run", "")).startswith(args.run)]
        print(wiregen_summary(rows) + "\n\n" + wiregen_table(rows))
        if args.png:
            wiregen_plot(rows, args.png)
        return
    if not args.out or not args.png:
        parser.error("--out and --png are required (unless --wiregen-scaling)")

    meta, rows = load(args.meta, args.jsonl)
    res = Results([r for r in rows if r.get("kind") != "broker"])
    sections = [f"# Rokka end-to-end benchmark: {meta.get('date', '')} ({meta.get('mode', '')})", banner(meta, res)]
    lines = target_lines(res)
    sections.append("## Targets of issue 6\n\n" + ("\n".join(lines) if lines else "No scenario measured a target."))
    if res.select("produce"):
        sections.append(section_produce(res, meta))
    if res.select("consume"):
        sections.append(section_consume(res, meta))
    if res.select("latency"):
        sections.append(section_latency(res, meta))
    if res.select("scaling"):
        points = sorted({int(r["step"].split()[0]) for r in res.select("scaling")})
        drew = write_plot(scaling_rows(res, "scaling", points)[1], args.png, int(meta.get("scale_rate", 0)))
        sections.append(section_scaling(res, meta, os.path.basename(args.png) if drew else None))
    if res.select("topics"):
        sections.append(section_topics(res, meta))
    sections.append(section_machine(meta, res.runs))
    sections.append(section_commands(meta, rows))
    with open(args.out, "w") as f:
        f.write("\n\n".join(sections) + "\n")


if __name__ == "__main__":
    main()
