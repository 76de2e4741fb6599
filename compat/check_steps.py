"""The step runner the compat/*_check.py scenarios share: each step a (name, function) pair run in
order, printed PASS, FAIL with its traceback, or SKIPPED with the reason (never counted as passed),
then the `N passed, M failed` line compat/ci.sh adds up. No client library needed."""
import os
import traceback


class Skipped(Exception):
    """A step that cannot run against this broker: printed as SKIPPED with the reason, never counted as passed."""


def run_steps(steps):
    """Runs (name, function) steps in order, printing PASS, FAIL with the traceback, or SKIPPED with
    the reason; ends with `N passed, M failed` (`, K skipped`); returns the exit status."""
    passed = failed = skipped = 0
    for name, step in steps:
        try:
            step()
            passed += 1
            print(f"PASS {name}", flush=True)
        except Skipped as e:
            skipped += 1
            print(f"SKIPPED {name}: {e}", flush=True)
        except Exception:
            failed += 1
            print(f"FAIL {name}")
            print("     " + traceback.format_exc().strip().replace("\n", "\n     "), flush=True)
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0


def bootstrap_from(argv, script):
    """The HOST:PORT given as the first argument; without one, runs `script` again under
    compat/with_broker.sh, which starts a fresh broker and passes its bootstrap (does not return)."""
    if len(argv) >= 2:
        return argv[1]
    wrapper = os.path.join(os.path.dirname(os.path.abspath(__file__)), "with_broker.sh")
    os.execv(wrapper, [wrapper, "/usr/bin/python3", os.path.abspath(script)])
