"""Run one benchmark script and record its output for the site's performance page.

    python docs/record_bench.py benchmarks/run.py [ARGS...]      (what `make bench` runs)

The script's output goes to the terminal as it is printed and, when the script succeeds, to
docs/bench/<script>.txt with a header (command, date, commit, cores, load average, Python and
numpy versions). docs/performance.md includes those files (pymdownx.snippets), so the
performance tables are `make bench`'s own output, never typed by hand. The exit status is the
script's; a failed run leaves the previous record in place.
"""
from __future__ import annotations

import os
import platform
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "docs", "bench")


def _commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                              capture_output=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv):
    if not argv:
        sys.exit("usage: python docs/record_bench.py benchmarks/SCRIPT.py [ARGS...]")
    script, args = argv[0], argv[1:]
    import numpy

    load0 = os.getloadavg()[0]
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, script, *args], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=None, bufsize=1)
    lines = []
    for line in proc.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        lines.append(line)
    rc = proc.wait()
    seconds = time.perf_counter() - t0
    if rc != 0:
        return rc
    os.makedirs(OUT, exist_ok=True)
    name = os.path.splitext(os.path.basename(script))[0]
    header = (f"$ python {' '.join([script, *args])}\n"
              f"# {started}, commit {_commit()}, {os.cpu_count()} cores, load average "
              f"{load0:.2f} before / {os.getloadavg()[0]:.2f} after, {seconds:.0f} s; "
              f"Python {platform.python_version()}, numpy {numpy.__version__}\n")
    with open(os.path.join(OUT, name + ".txt"), "w", encoding="utf-8") as fh:
        fh.write(header + "".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
