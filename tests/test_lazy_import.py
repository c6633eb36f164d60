"""``import freeattn`` loads no heavy dependency (issue 22): the public names are resolved on
first use (PEP 562), each to the same object as the defining module's."""
import subprocess
import sys

import pytest


def _run(code):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_import_loads_neither_sympy_scipy_nor_matplotlib():
    out = _run("import sys, freeattn\n"
               "print(*sorted(m for m in ('sympy', 'scipy', 'matplotlib', 'mpmath', 'flint', "
               "'numpy', 'IPython') if m in sys.modules))")
    assert out.split() == []


def test_every_public_name_resolves_to_its_defining_module():
    out = _run("import freeattn, importlib\n"
               "bad = [n for n in freeattn.__all__ if getattr(freeattn, n) is not "
               "getattr(importlib.import_module(freeattn._EXPORTS[n], 'freeattn'), n)]\n"
               "assert set(freeattn._EXPORTS) == set(freeattn.__all__)\n"
               "assert set(freeattn.__all__) <= set(dir(freeattn))\n"
               "print(len(freeattn.__all__), bad)")
    n, bad = out.split(maxsplit=1)
    assert int(n) > 20 and bad.strip() == "[]"


def test_star_import_and_unknown_name():
    ns = {}
    exec("from freeattn import *", ns)
    assert ns["attention_law"](1.0, 1.0).support()
    import freeattn

    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        freeattn.not_a_name
