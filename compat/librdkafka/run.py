#!/usr/bin/python3
"""Run a librdkafka version's own test suite against one broker, test by test.

Called by run.sh (which fetches and builds first); see compat/README.md. Python 3 stdlib only.
The version's directory (--suite-dir, e.g. compat/librdkafka/2.14.2) holds its excluded.txt,
flaky.txt and expected-pass-cluster.txt (tests that need replicas: left out of 'all' on one broker,
run with --brokers 3); test-runner runs against the librdkafka of its own build tree (LD_LIBRARY_PATH, checked
with ldd before the first test), never the system's.

A "test" is one entry of the suite's tests[] table in tests/test.c, e.g. 0045_subscribe_update_mock.
test-runner selects by number (TESTS=0045 runs every 0045_* entry), so tests that share a number,
a local/broker flag and a scenario run in one test-runner process ("a group"); each test's result
is read from that process's summary table. Groups run one at a time (-p1), each under a timeout.

The broker is started once per scenario on a free 127.0.0.1 port with a fresh data dir and the
config the suite assumes (Kafka defaults: topic auto-creation on, num.partitions=4), and restarted
only when it has died. Tests flagged local need no broker and get none.

A test named in the version's security.txt runs once per security scenario listed there
(security.py: an SSL, SASL_PLAINTEXT or SASL_SSL listener beside the PLAINTEXT one, key material
made with openssl in WORK/ssl, test.conf lines and SSL_* variables as trivup gives them); its
rows say which, e.g. `0135_sasl_credentials [sasl_scram]`.
"""
import argparse
import dataclasses
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import security

HERE = Path(__file__).resolve().parent
NUM_PARTITIONS = 4       # the suite's scenarios/default.json
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclasses.dataclass(frozen=True)
class SuiteTest:
    name: str          # e.g. 0045_subscribe_update_mock
    local: bool        # TEST_F_LOCAL: needs no broker
    known_issue: bool  # TEST_F_KNOWN_ISSUE: test-runner skips it unless -k
    manual: bool
    scenario: str      # "default", "noautocreate", or a comma list

    @property
    def number(self):
        return self.name[:4]


@dataclasses.dataclass
class Result:
    test: SuiteTest
    security: str = ""    # the security scenario (security.py), "" = PLAINTEXT
    state: str = "FAIL"   # PASS / FAIL / SKIP
    seconds: float = 0.0
    detail: str = ""      # first failure line, or skip reason


# ---------------------------------------------------------------- the suite's test table

def _split_args(text):
    """Split a macro's argument text on top-level commas (outside parentheses and strings)."""
    args, cur, depth, in_str = [], "", 0, False
    for i, c in enumerate(text):
        if c == '"' and (i == 0 or text[i - 1] != "\\"):
            in_str = not in_str
        elif not in_str and c in "([":
            depth += 1
        elif not in_str and c in ")]":
            depth -= 1
        if c == "," and depth == 0 and not in_str:
            args.append(cur.strip())
            cur = ""
        else:
            cur += c
    args.append(cur.strip())
    return args


def parse_suite(test_c):
    """The entries of `struct test tests[]` in tests/test.c, in order.

    #if WITH_SOCKEM entries are kept: the CMake build defines WITH_SOCKEM.
    """
    src = Path(test_c).read_text()
    start = src.index("struct test tests[] = {")
    body = src[start:src.index("{NULL}}", start)]
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    tests = []
    for m in re.finditer(r"\b_TEST\(", body):
        depth, i = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(body[i], 0)
            i += 1
        args = _split_args(body[m.end():i - 1])
        flags = args[1]
        scenario = "default"
        for a in args[2:]:
            sm = re.match(r'\.scenario\s*=\s*"([^"]*)"', a)
            if sm:
                scenario = sm.group(1)
        tests.append(SuiteTest(
            name=args[0],
            local="TEST_F_LOCAL" in flags,
            known_issue=re.search(r"\bTEST_F_KNOWN_ISSUE\b(?!_)", flags) is not None,
            manual="TEST_F_MANUAL" in flags,
            scenario=scenario))
    return tests


# ---------------------------------------------------------------- selection

def read_list(path):
    """Entries of a list file: first word of each line; '#' starts a comment."""
    out = []
    for line in Path(path).read_text().splitlines():
        word = line.split("#", 1)[0].split()
        if word:
            out.append(word[0])
    return out


def select(suite, spec, excluded):
    """Tests named by spec: 'all', a file of entries, or a comma/space list of entries.

    An entry is a test name, a 4-digit number (all tests with it) or 'all' (0000-0999 minus
    the version's excluded.txt). Explicitly named excluded tests still run, with a warning.
    """
    entries = read_list(spec) if os.path.isfile(spec) else re.split(r"[,\s]+", spec.strip())
    by_name = {t.name: t for t in suite}
    chosen = []
    for e in filter(None, entries):
        if e == "all":
            picked = [t for t in suite if t.number < "1000" and not t.manual and t.name not in excluded]
        elif e in by_name:
            picked = [by_name[e]]
        elif re.fullmatch(r"\d{4}", e):
            picked = [t for t in suite if t.number == e]
        else:
            sys.exit(f"run.py: unknown test {e!r} (not in tests/test.c)")
        if not picked:
            sys.exit(f"run.py: {e!r} matches no test")
        for t in picked:
            if t not in chosen:
                if t.name in excluded and e != "all":
                    print(f"warning: {t.name} is excluded: {excluded[t.name]}", file=sys.stderr)
                chosen.append(t)
    return chosen


def read_excluded(path):
    out = {}
    for line in Path(path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, reason = line.partition(" ")
            out[name] = reason.strip()
    return out


def run_scenario(t):
    """The broker scenario a test runs in: its own, or 'default' when that is among them."""
    scenarios = t.scenario.split(",")
    return "default" if "default" in scenarios else scenarios[0]


def group_key(t, sec=""):
    """(suite scenario, security scenario, number, local, known issue): one test-runner process."""
    return (run_scenario(t), "" if t.local else sec, t.number, t.local, t.known_issue)


# ---------------------------------------------------------------- the broker

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """One broker process: Rokka (any binary taking `--override key=value`) or the mock."""

    def __init__(self, path, work, mock_path):
        self.path, self.work, self.mock_path = path, work, mock_path
        self.proc, self.scenario, self.bootstrap, self.starts = None, None, None, 0
        self.security = ""        # security scenario name, "" = PLAINTEXT only
        self.plaintext = None     # the PLAINTEXT listener (BROKERS: kafka-topics.sh, SCRAM users)
        self.key_files = None     # security.make_key_material's files, made on first use
        self.log_path = None

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def start(self, scenario, sec=""):
        self.stop()
        self.starts += 1
        self.scenario, self.security = scenario, sec
        self.log_path = self.work / f"broker-{self.starts}-{scenario}{'-' + sec if sec else ''}.log"
        with open(self.log_path, "w") as log:  # the child keeps its own copy of the descriptor
            try:
                if self.path == "mock":
                    if sec:
                        raise BrokerError(f"the mock broker has no {sec} listener")
                    self._start_mock(log)
                else:
                    self._start_rokka(log, scenario, sec)
            except BrokerError:
                self.stop()  # half set up (no SCRAM user, say): the next group starts afresh
                raise
        print(f"== broker started ({scenario}{', ' + sec if sec else ''}): {self.bootstrap}, log {self.log_path}",
              flush=True)

    def _start_rokka(self, log, scenario, sec):
        port = free_port()
        data = self.work / f"data-{self.starts}"
        data.mkdir()
        listeners = [f"PLAINTEXT://127.0.0.1:{port}"]
        sec_overrides, test_port = {}, port
        if sec:
            s = security.SCENARIOS[sec]
            if self.key_files is None:
                self.key_files = security.make_key_material(self.work / "ssl")
            test_port = free_port()
            listeners.append(f"{security.listener_name(s)}://127.0.0.1:{test_port}")
            sec_overrides = security.broker_overrides(s, self.key_files)
        overrides = {
            "listeners": ",".join(listeners),
            "advertised.listeners": ",".join(listeners),
            **self.rokka_overrides(scenario, data),
            **sec_overrides,
        }
        cmd = [self.path]
        for k, v in overrides.items():
            cmd += ["--override", f"{k}={v}"]
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.bootstrap, self.plaintext = f"127.0.0.1:{test_port}", f"127.0.0.1:{port}"
        for p in dict.fromkeys([port, test_port]):
            self._wait_port(p)
        if sec and security.SCENARIOS[sec].mechanism.startswith("SCRAM"):
            try:  # as trivup adds its SCRAM users with kafka-configs.sh
                security.create_scram_users("127.0.0.1", port)
            except (OSError, RuntimeError) as e:
                raise BrokerError(f"creating the SCRAM user failed: {e}")

    @staticmethod
    def rokka_overrides(scenario, data):
        """What every Rokka broker of the suite is started with, besides its listeners."""
        return {
            "log.dirs": str(data),
            # The HTTP endpoints on a free port: a broker on the default 9644 must not stop this one.
            "rokka.http.listeners": "127.0.0.1:0",
            "auto.create.topics.enable": "false" if scenario == "noautocreate" else "true",
            "num.partitions": str(NUM_PARTITIONS),
            # As librdkafka's own test cluster: an authorizer that allows what no ACL covers
            # (0081_admin's ACL part needs the ACL APIs served).
            "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
            "allow.everyone.if.no.acl.found": "true",
            # group.initial.rebalance.delay.ms stays at Kafka's default (3000): with 0 the first
            # consumer of a group forms it alone and a second one forces a rebalance, which
            # tests such as 0089 and 0102 count as unexpected.
        }

    def _wait_port(self, port, proc=None):
        proc = proc or self.proc
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise BrokerError(f"broker exited with {proc.returncode} at startup: {self.last_log_line()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.2)
        raise BrokerError(f"broker did not accept connections on 127.0.0.1:{port} within 30s")

    def _start_mock(self, log):
        self.proc = subprocess.Popen([str(self.mock_path), "1"], stdout=subprocess.PIPE, stderr=log,
                                     text=True, start_new_session=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("bootstrap="):
            raise BrokerError(f"mock broker did not start: {line!r}")
        self.bootstrap = self.plaintext = line.split("=", 1)[1]

    def last_log_line(self):
        try:
            lines = Path(self.log_path).read_text(errors="replace").strip().splitlines()
            return lines[-1] if lines else "(no output)"
        except OSError:
            return "(no log)"

    def stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None


class BrokerError(Exception):
    pass


# ---------------------------------------------------------------- running test-runner

SUMMARY_ROW = re.compile(r"^\|\s*(\S+)\s*\|\s*(PASSED|FAILED|SKIPPED|RUNNING|DNS)\s*\|\s*([\d.]+)s\s*\|\s?(.*)$")
STATE = {"PASSED": "PASS", "FAILED": "FAIL", "SKIPPED": "SKIP"}


def parse_output(text, names):
    """Per-test (state, seconds, detail) from a test-runner log; None for tests not seen."""
    text = ANSI.sub("", text)
    found = {}
    for line in text.splitlines():
        m = SUMMARY_ROW.match(line)
        if m and m.group(1) in names:
            state = STATE.get(m.group(2), "FAIL")
            detail = m.group(4).strip() or ("did not finish" if m.group(2) == "RUNNING" else "")
            found[m.group(1)] = (state, float(m.group(3)), detail)
    for name in names:
        if name in found:
            continue
        passed = re.search(r"\[" + re.escape(name) + r"\s*/\s*([\d.]+)s\].*Test " + re.escape(name) + " PASSED", text)
        if passed:  # passed before a later test of its process died
            found[name] = ("PASS", float(passed.group(1)), "")
        elif f"Running test {name} " in text:  # started, but no summary: crashed or killed
            found[name] = ("FAIL", 0.0, first_failure(text, name) or "test-runner died before the summary")
    return found


def first_failure(text, name):
    m = re.search(r'### Test "' + re.escape(name) + r'[^"]*" failed at ([^\n]*?) ###\n([^\n]*)', text)
    if m:
        return f"{m.group(2).strip()} ({m.group(1).split(' at ')[0]})"
    for line in text.splitlines():
        if "Assertion" in line:
            return line.strip()
    return ""


class ClusterBrokers(Broker):
    """--brokers N: N Rokka brokers in cluster mode (docs/cluster.md) on one etcd member started
    here, all on PLAINTEXT; the suite bootstraps from all of them. Each start is a new cluster.

    As librdkafka's own test cluster (tests/cluster_testing.py): topics get replication factor
    N (default.replication.factor; here one replication group g1 of all N brokers, each with a
    replication listener on a free port), broker i has broker.rack RACKi (0101_fetch_from_follower
    sets client.rack to RACK<id> of a follower) and Kafka's rack-aware replica selector."""

    def __init__(self, path, work, count):
        super().__init__(path, work, None)
        self.count, self.procs, self.etcd = count, [], None

    def alive(self):
        return (self.etcd is not None and self.etcd.poll() is None and bool(self.procs)
                and all(p.poll() is None for p in self.procs))

    def _start_rokka(self, log, scenario, sec):
        if sec:
            raise BrokerError("security scenarios run on one broker, not with --brokers")
        etcd = shutil.which("etcd")
        if etcd is None:
            raise BrokerError("--brokers needs etcd (apt-get install etcd-server)")
        client, peer = free_port(), free_port()
        self.etcd = subprocess.Popen(
            [etcd, "--name", "e", "--data-dir", str(self.work / f"etcd-{self.starts}"),
             "--listen-client-urls", f"http://127.0.0.1:{client}", "--advertise-client-urls", f"http://127.0.0.1:{client}",
             "--listen-peer-urls", f"http://127.0.0.1:{peer}", "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}",
             "--initial-cluster", f"e=http://127.0.0.1:{peer}", "--pre-vote=true"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self._wait_port(client, self.etcd)
        ports = []
        members = ",".join(str(i) for i in range(1, self.count + 1))
        for i in range(1, self.count + 1):
            port = free_port()
            data = self.work / f"data-{self.starts}-{i}"
            data.mkdir()
            overrides = {
                "broker.id": str(i),
                "listeners": f"PLAINTEXT://127.0.0.1:{port}",
                "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}",
                "rokka.cluster.etcd.endpoints": f"http://127.0.0.1:{client}",
                "rokka.replication.groups": f"g1={members}",
                "rokka.replication.listener": f"127.0.0.1:{free_port()}",
                "default.replication.factor": str(self.count),
                "broker.rack": f"RACK{i}",
                "replica.selector.class": "org.apache.kafka.common.replica.RackAwareReplicaSelector",
                **self.rokka_overrides(scenario, data),
            }
            cmd = [self.path]
            for k, v in overrides.items():
                cmd += ["--override", f"{k}={v}"]
            with open(self.work / f"broker-{self.starts}-{scenario}-{i}.log", "w") as blog:
                self.procs.append(subprocess.Popen(cmd, stdout=blog, stderr=subprocess.STDOUT, start_new_session=True))
            ports.append(port)
        for port, proc in zip(ports, self.procs):
            self._wait_port(port, proc)
        self.proc = self.procs[0]
        self.bootstrap = ",".join(f"127.0.0.1:{p}" for p in ports)
        self.plaintext = f"127.0.0.1:{ports[0]}"

    def stop(self):
        for proc in self.procs + ([self.etcd] if self.etcd else []):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs + ([self.etcd] if self.etcd else []):
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        self.procs, self.etcd, self.proc = [], None, None


def write_test_conf(path, broker, multiplier):
    lines = [f"test.timeout.multiplier={multiplier}"]
    if broker is not None:
        lines += [f"bootstrap.servers={broker.bootstrap}", "broker.address.family=v4"]
        if broker.security:
            lines += security.test_conf_lines(security.SCENARIOS[broker.security], broker.key_files)
        else:
            lines.append("security.protocol=PLAINTEXT")
    path.write_text("\n".join(lines) + "\n")


def prepare_cwd(work, args):
    """test-runner's working dir, WORK/cwd, laid out like the source tree's tests/ dir:
    0066_plugins loads ./interceptor_test/interceptor_test.so, 0053_stats reads
    ../src/statistics_schema.json, 2.14.2's 0133_ssl_keys reads ./fixtures/ssl/."""
    links = {work / "cwd" / "interceptor_test": args.runner.parent / "interceptor_test",
             work / "src": args.source / "src"}
    if (args.source / "tests" / "fixtures").is_dir():
        links[work / "cwd" / "fixtures"] = args.source / "tests" / "fixtures"
    (work / "cwd").mkdir(exist_ok=True)
    for link, target in links.items():
        if not link.is_symlink():
            link.symlink_to(target)


def runner_env(args):
    """test-runner's environment: ours less what would change the suite's behaviour (CI changes
    client settings such as request.timeout.ms), its own librdkafka first on the library path."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CI", "TESTS", "SUBTESTS", "TESTS_SKIP", "TEST_CONSUMER_GROUP_PROTOCOL")
           and not k.startswith("SSL_")}
    build = args.runner.parent.parent
    env.update(LD_LIBRARY_PATH=":".join([str(build / "src"), str(build / "src-cpp")]
                                        + ([env["LD_LIBRARY_PATH"]] if env.get("LD_LIBRARY_PATH") else [])),
               TEST_KAFKA_VERSION=args.kafka_version, KAFKA_PATH=str(HERE / "kafka_path"),
               TEST_CONSUMER_GROUP_PROTOCOL=args.group_protocol)  # test.c sets group.protocol from it
    return env


def check_library(args):
    """Exits unless test-runner, with the environment it gets, loads the librdkafka built beside it."""
    build = args.runner.parent.parent
    env = {k: v for k, v in runner_env(args).items() if k != "LD_PRELOAD"}
    out = subprocess.run(["ldd", str(args.runner)], env=env, capture_output=True, text=True).stdout
    m = re.search(r"^\s*librdkafka\.so\.1 => (\S+)", out, re.M)
    if not m or Path(m.group(1)).resolve().parent != (build / "src").resolve():
        sys.exit(f"run.py: {args.runner} would load {m.group(1) if m else 'no librdkafka.so.1'}, not {build / 'src'}")
    if os.environ.get("LD_PRELOAD"):  # deliberate (a debug build over the suite's, compat/README.md)
        print(f"warning: LD_PRELOAD={os.environ['LD_PRELOAD']} comes before {m.group(1)}", file=sys.stderr)
    return m.group(1)


def run_group(args, work, key, tests, broker, log_suffix=""):
    scenario, sec, number, local, known = key
    conf = work / "test.conf"
    write_test_conf(conf, None if local else broker, args.timeout_multiplier)
    cmd = [str(args.runner), "-p1", "-l" if local else "-L", "-s", scenario]
    if known:
        cmd.append("-k")
    if args.quick:
        cmd.append("-Q")
    env = runner_env(args)
    env.update(TESTS=number, RDKAFKA_TEST_CONF=str(conf), TEST_SCENARIO=scenario)
    if args.subtests:
        env.update(SUBTESTS=args.subtests)
    if not local:
        env.update(BROKERS=broker.plaintext)  # kafka-topics.sh, a PLAINTEXT admin client
        if sec:
            env.update(security.test_env(security.SCENARIOS[sec], broker.key_files))
    log_path = work / "logs" / (f"{number}-{'local' if local else scenario}{'-' + sec if sec else ''}"
                                f"{'-known' if known else ''}{log_suffix}.log")
    started = time.monotonic()
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, cwd=work / "cwd", env=env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        timed_out = False
        try:
            proc.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    wall = time.monotonic() - started
    found = parse_output(log_path.read_text(errors="replace"), {t.name for t in tests})
    results = []
    for t in tests:
        r = Result(t, sec)
        if t.name in found:
            r.state, r.seconds, r.detail = found[t.name]
        elif timed_out:
            r.detail = f"timed out after {args.timeout}s"
        elif proc.returncode != 0:
            r.detail = f"test-runner exited {proc.returncode} before running it"
        else:
            r.state, r.detail = "SKIP", "not run by test-runner (filtered by version, scenario or flags)"
        if timed_out and r.state == "FAIL" and "timed out" not in r.detail:
            r.detail = f"timed out after {args.timeout}s; {r.detail}"
        if not r.seconds:
            r.seconds = wall if len(tests) == 1 else 0.0
        results.append(r)
    return results, log_path


def row_name(r):
    return r.test.name + (f" [{r.security}]" if r.security else "")


def table_cell(text):
    return text.replace("|", "\\|").replace("\n", " ")[:300]


def write_report(path, results, version, header):
    passed = sum(r.state == "PASS" for r in results)
    failed = sum(r.state == "FAIL" for r in results)
    skipped = sum(r.state == "SKIP" for r in results)
    lines = [f"# librdkafka {version} test suite: {header}", "",
             "| # | test | result | seconds | first failure line |",
             "| --- | --- | --- | ---: | --- |"]
    for r in results:
        lines.append(f"| {r.test.number} | {row_name(r)} | {r.state} | {r.seconds:.2f} | {table_cell(r.detail)} |")
    closing = f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else "")
    lines += ["", closing, ""]
    Path(path).write_text("\n".join(lines))
    return closing, failed


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runner", type=Path, required=True, help="tests/test-runner")
    p.add_argument("--source", type=Path, required=True, help="librdkafka source dir (for tests/test.c)")
    p.add_argument("--broker", required=True, help="broker binary (Rokka) or 'mock'")
    p.add_argument("--suite-dir", type=Path, required=True,
                   help="the version's directory: excluded.txt, flaky.txt (e.g. compat/librdkafka/2.0.2)")
    p.add_argument("--tests", default="all", help="'all' (default), a list of names/numbers, or a file")
    p.add_argument("--quick", action="store_true", help="test-runner -Q: fewer messages, shorter runs")
    p.add_argument("--timeout", type=int, default=600, help="seconds per test-runner process (default 600)")
    p.add_argument("--timeout-multiplier", type=float, default=2.0,
                   help="test.timeout.multiplier for the suite's own timeouts (default 2.0: shared 2-core box)")
    p.add_argument("--kafka-version", required=True, help="TEST_KAFKA_VERSION (run.sh: the version's suite.conf)")
    p.add_argument("--local-only", action="store_true",
                   help="drop tests that need a broker from the selection, saying which (CI, while no broker)")
    p.add_argument("--subtests", help="SUBTESTS for test-runner: only subtests whose name contains it (by hand)")
    p.add_argument("--security", help="run the selected broker tests in these security scenarios (comma list, "
                   "'plaintext' for none) instead of security.txt's (by hand; security.py lists them)")
    p.add_argument("--group-protocol", choices=("classic", "consumer"), default="classic",
                   help="TEST_CONSUMER_GROUP_PROTOCOL: every consumer test.c makes gets this group.protocol "
                   "(default classic; consumer is KIP-848's, 2.14.2's suite only)")
    p.add_argument("--brokers", type=int, default=1,
                   help="N > 1: N Rokka brokers in cluster mode on an etcd started here (plaintext only)")
    p.add_argument("--report", type=Path, help="markdown table (default WORK/report.md)")
    p.add_argument("--work", type=Path, help="work dir for logs and broker data (default: a new temp dir)")
    args = p.parse_args()
    args.flaky = read_excluded(args.suite_dir / "flaky.txt")  # same format: NAME  reason
    version = args.suite_dir.name

    if args.group_protocol != "classic" and "TEST_CONSUMER_GROUP_PROTOCOL" not in (args.source / "tests" / "test.c").read_text():
        sys.exit(f"run.py: librdkafka {version}'s test.c has no TEST_CONSUMER_GROUP_PROTOCOL (--group-protocol)")
    suite = parse_suite(args.source / "tests" / "test.c")
    excluded = read_excluded(args.suite_dir / "excluded.txt")
    cluster_list = args.suite_dir / "expected-pass-cluster.txt"
    if args.brokers == 1 and cluster_list.is_file():  # 'all' on one broker leaves out what needs replicas
        for name in read_list(cluster_list):
            excluded.setdefault(name, f"needs several brokers: {version}/expected-pass-cluster.txt (--brokers 3)")
    chosen = select(suite, args.tests, excluded)
    if args.local_only:
        dropped = [t.name for t in chosen if not t.local]
        if dropped:
            print(f"== SKIPPING {len(dropped)} tests that need a broker: {' '.join(dropped)}", flush=True)
        chosen = [t for t in chosen if t.local]
    work = args.work or Path(tempfile.mkdtemp(prefix="librdkafka-", dir=os.environ.get("ROKKA_COMPAT_DIR", "/tmp")))
    (work / "logs").mkdir(parents=True, exist_ok=True)
    prepare_cwd(work, args)
    report = args.report or work / "report.md"
    library = check_library(args)
    print(f"== librdkafka {version} ({library}): {len(chosen)} tests, broker {args.broker}, "
          f"group.protocol={args.group_protocol}, work dir {work}", flush=True)

    sec_map = security.read_security_list(args.suite_dir / "security.txt")
    forced = None
    if args.security:
        forced = ["" if n == "plaintext" else n for n in args.security.split(",")]
        for n in forced:
            if n and n not in security.SCENARIOS:
                sys.exit(f"run.py: unknown security scenario {n!r} (known: plaintext, {', '.join(security.SCENARIOS)})")
    groups = {}
    for t in chosen:
        for sec in ([""] if t.local else forced or sec_map.get(t.name, [""])):
            groups.setdefault(group_key(t, sec), []).append(t)
    if args.brokers > 1:
        broker = ClusterBrokers(args.broker, work, args.brokers)
    else:
        broker = Broker(args.broker, work, args.runner.parent.parent / "rokka-mock-broker")
    results = []
    try:
        for key in sorted(groups, key=lambda k: (k[0] != "default", k[0], k[1], k[2], k[3], k[4])):
            results += run_one(args, work, key, groups[key], broker)
    finally:
        broker.stop()
    results.sort(key=lambda r: (chosen.index(r.test), r.security))
    closing, failed = write_report(report, results, version, f"broker {args.broker}, TEST_KAFKA_VERSION={args.kafka_version}"
                                   + (", quick mode" if args.quick else "")
                                   + (f", group.protocol={args.group_protocol}" if args.group_protocol != "classic" else ""))
    print(f"== report: {report}")
    print(closing)
    for data in work.glob("data-*"):  # broker data: only the logs are worth keeping
        shutil.rmtree(data, ignore_errors=True)
    return 1 if failed else 0


def run_one(args, work, key, tests, broker):
    """Runs one group; a group whose failures are all in flaky.txt runs once more, and its
    retried results say so (a second failure stands)."""
    results = run_one_attempt(args, work, key, tests, broker, "")
    failed = [r for r in results if r.state == "FAIL"]
    if not failed or any(r.test.name not in args.flaky for r in failed):
        return results
    for r in failed:
        print(f"== {r.test.name} is in flaky.txt ({args.flaky[r.test.name][:100]}): running it again", flush=True)
    again = {r.test.name: r for r in run_one_attempt(args, work, key, tests, broker, "-retry")}
    for r in failed:
        retry = again[r.test.name]
        retry.detail = f"{retry.state} on retry; first run: {r.detail}" + (f"; retry: {retry.detail}" if retry.detail else "")
        results[results.index(r)] = retry
        print(f"== {r.test.name}: {retry.detail[:200]}", flush=True)
    return results


def run_one_attempt(args, work, key, tests, broker, log_suffix):
    """Runs one group, (re)starting the broker first when the group needs one that is not up."""
    scenario, sec, _, local, _ = key
    if not local and (not broker.alive() or (broker.scenario, broker.security) != (scenario, sec)):
        if broker.proc is not None and not broker.alive():
            print(f"== broker died (exit {broker.proc.returncode}); restarting", flush=True)
        try:
            broker.start(scenario, sec)
        except BrokerError as e:
            print(f"== {e}", flush=True)
            return [Result(t, sec, "FAIL", 0.0, str(e)) for t in tests]
    results, log_path = run_group(args, work, key, tests, broker, log_suffix)
    if not local and not broker.alive():
        for r in results:
            if r.state == "FAIL":
                r.detail = f"broker died (exit {broker.proc.returncode}); {r.detail}"
    for r in results:
        print(f"{r.state:4} {r.seconds:7.1f}s {row_name(r)}  {r.detail[:150]}", flush=True)
    print(f"     log: {log_path}", flush=True)
    return results


if __name__ == "__main__":
    sys.exit(main())
