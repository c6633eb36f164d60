"""docs/example.ipynb: every code cell runs in a Jupyter kernel, and the stored (executed)
outputs are present.

The notebook is run by ``nbclient`` (the runner of nbconvert and mkdocs-jupyter) in a fresh
``python3`` kernel of this interpreter (ipykernel, from the docs extra), so the outputs are
what a notebook user gets: ``import freeattn`` registers the law formatters with the
kernel's IPython (``freeattn.display``), a trailing law renders as HTML with an inline SVG.

Regenerate the stored outputs after editing the notebook:
    PYTHONPATH=. python tests/docs/test_notebook.py --write
"""
from __future__ import annotations

import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "docs" / "example.ipynb"
#: seconds a cell may run (the 50-digit pdf and the edge series take a few seconds here)
CELL_TIMEOUT = 600


def execute(path=NOTEBOOK):
    """The notebook at ``path`` executed by nbclient in a python3 kernel (a NotebookNode)."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel", reason="the docs extra is not installed")
    nb = nbformat.read(path, as_version=4)
    env = dict(os.environ, MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    client = nbclient.NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})
    client.execute(env=env)  # passed on to the kernel manager's start_kernel
    return nb


def _outputs(nb):
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]


def _edges_text(nb):
    """The printed 30-digit edge lines (stream output)."""
    return [ln for o in _outputs(nb) if o.output_type == "stream"
            for ln in o.text.splitlines() if "edge" in ln]


def test_example_notebook_runs_and_is_executed():
    nbformat = pytest.importorskip("nbformat")
    stored = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in stored.cells if c.cell_type == "code"]
    assert len(code) >= 5
    assert all(c.outputs for c in code), \
        "the committed notebook must carry its outputs (run with --write)"
    fresh = execute()
    outs = _outputs(fresh)
    assert not [o for o in outs if o.output_type == "error"]
    kinds = {o.output_type for o in outs}
    assert {"execute_result", "stream"} <= kinds
    html = [o for o in outs if "text/html" in o.get("data", {})]
    assert html and "<svg" in html[0]["data"]["text/html"]
    # the printed 30-digit edges of both routes are the same text in stored and fresh outputs
    assert _edges_text(fresh) and _edges_text(fresh) == _edges_text(stored)


if __name__ == "__main__" and "--write" in sys.argv:
    import nbformat

    nbformat.write(execute(), NOTEBOOK)
    print("wrote", NOTEBOOK)
