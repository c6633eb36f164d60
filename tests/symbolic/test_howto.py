"""The Python examples of docs/howto-derivation.md run as written."""
import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "howto-derivation.md"


def test_howto_code_blocks_run(capsys):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 2
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), {"__name__": "__main__"})  # noqa: S102
    out = capsys.readouterr().out
    assert "Section 5.1 closed-form S-transform: OK" in out
    assert "\\theta_{1}" in out
