"""Fixtures of the documentation tests: the site built once per session, and served."""
from __future__ import annotations

import functools
import http.server
import os
import pathlib
import subprocess
import sys
import threading

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _build(site_dir):
    """``make docs`` in a temporary folder: ``mkdocs build --strict`` with this interpreter.
    Returns (returncode, output)."""
    pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install -e '.[docs]')")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "--site-dir", str(site_dir)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """The site built with warnings as errors; a failed build fails every test that uses it."""
    site = tmp_path_factory.mktemp("site")
    rc, out = _build(site)
    if rc != 0:
        pytest.fail(f"mkdocs build --strict failed (exit {rc}):\n{out[-6000:]}")
    return site, out


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass


@pytest.fixture(scope="session")
def served_site(built_site):
    """The built site on http://127.0.0.1:PORT/ (Python's http.server in a thread)."""
    site, _ = built_site
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
