"""The step runner the compat/*_check.py scenarios share: each step a (name, function) pair run in
order, printed PASS, FAIL with its traceback, or SKIPPED with the reason (never counted as passed),
then the `N passed, M failed` line compat/ci.sh adds up. No client library needed."""
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
