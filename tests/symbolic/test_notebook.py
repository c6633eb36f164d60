"""docs/example.ipynb: every code cell runs, and the stored (executed) outputs are present.

nbclient needs a Jupyter kernel (ipykernel, pyzmq, …); to keep the test dependencies to
pytest and hypothesis, this file carries a small runner: the code cells are executed in order
in one namespace, stdout is captured, and the value of a trailing expression is rendered
through the formatters ``freeattn.display`` registers with IPython for a law
(``display.FORMATTERS``), else its ``_repr_html_`` / ``_repr_latex_``, and ``repr``, like a
notebook would.

Regenerate the stored outputs after editing the notebook:
    PYTHONPATH=. python tests/symbolic/test_notebook.py --write
"""
import ast
import contextlib
import io
import json
import pathlib
import sys

NOTEBOOK = pathlib.Path(__file__).resolve().parents[2] / "docs" / "example.ipynb"


def _outputs(source, ns, count):
    tree = ast.parse(source)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(tree, "<cell>", "exec"), ns)  # noqa: S102 - the project's own notebook
        value = eval(compile(last, "<cell>", "eval"), ns) if last is not None else None  # noqa: S307
    outs = []
    if buf.getvalue():
        outs.append({"output_type": "stream", "name": "stdout",
                     "text": buf.getvalue().splitlines(keepends=True)})
    if value is not None:
        from freeattn import Law, display

        data = {"text/plain": repr(value).splitlines(keepends=True)}
        for attr, mime in (("_repr_html_", "text/html"), ("_repr_latex_", "text/latex")):
            if isinstance(value, Law):
                data[mime] = display.FORMATTERS[mime](value).splitlines(keepends=True)
            elif hasattr(value, attr):
                data[mime] = getattr(value, attr)().splitlines(keepends=True)
        outs.append({"output_type": "execute_result", "execution_count": count, "data": data,
                     "metadata": {}})
    return outs


def execute(nb):
    """Run the code cells of ``nb`` (a dict) in order; fill outputs and execution counts."""
    import matplotlib

    matplotlib.use("Agg")
    ns = {"__name__": "__main__"}
    count = 0
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        count += 1
        src = "".join(cell["source"])
        cell["outputs"] = _outputs(src, ns, count)
        cell["execution_count"] = count
    return nb


def test_example_notebook_runs_and_is_executed():
    nb = json.loads(NOTEBOOK.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert len(code) >= 5
    stored = [c.get("outputs") for c in code]
    assert all(stored), "the committed notebook must carry its outputs (run with --write)"
    fresh = execute(json.loads(NOTEBOOK.read_text()))
    kinds = [o["output_type"] for c in fresh["cells"] if c["cell_type"] == "code"
             for o in c["outputs"]]
    assert "execute_result" in kinds and "stream" in kinds
    html = [o for c in fresh["cells"] if c["cell_type"] == "code" for o in c["outputs"]
            if "text/html" in o.get("data", {})]
    assert html and "<svg" in "".join(html[0]["data"]["text/html"])
    # the printed 30-digit edges of both routes are the same text in stored and fresh outputs
    def edges_text(book):
        return [ln for c in book["cells"] if c["cell_type"] == "code" for o in c["outputs"]
                if o["output_type"] == "stream" for ln in o["text"] if "edge" in ln]
    assert edges_text(fresh) == edges_text(nb)


if __name__ == "__main__" and "--write" in sys.argv:
    book = execute(json.loads(NOTEBOOK.read_text()))
    NOTEBOOK.write_text(json.dumps(book, indent=1, ensure_ascii=False) + "\n")
    print("wrote", NOTEBOOK)
