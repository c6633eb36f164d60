"""The CLI convention for ``density residual`` and ``check residual`` (issue 18): the layer
flags of ``density mha``, --json prints what --out FILE.json writes, an image --out of a
command without a figure is refused naming --out; the old flags keep their meaning."""
import json

from click.testing import CliRunner

from freeattn.cli import main

DENSITY = ["density", "residual", "--preset", "bert-base", "--alpha", "1", "--points", "12"]


def _run(args):
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    return res.output


def test_density_residual_json_is_the_out_json(tmp_path):
    printed = json.loads(_run(DENSITY + ["--json"]))
    path = tmp_path / "r.json"
    _run(DENSITY + ["--out", str(path)])
    assert json.loads(path.read_text()) == printed
    assert printed["kind"] == "residual" and printed["alpha"] == 1.0
    assert len(printed["x"]) == 12 and printed["atoms"] == []
    assert (printed["n"], printed["d"], printed["d_o"]) == (512, 768, 768)


def test_old_overrides_keep_their_meaning():
    """--d-k overrides d_K = d_V of a preset, --d overrides d = d_O (the branch's width)."""
    data = json.loads(_run(DENSITY + ["--d-k", "32", "--d", "1024", "--json"]))
    assert (data["d_k"], data["d_v"], data["d"], data["d_o"]) == (32, 32, 1024, 1024)
    tied = json.loads(_run(DENSITY + ["--tied", "--json"]))
    assert tied == json.loads(_run(DENSITY + ["--sharing", "tied_kv", "--json"]))


def test_check_residual_refuses_an_image_out_before_any_draw(tmp_path):
    res = CliRunner().invoke(main, ["check", "residual", "--preset", "bert-base", "--alpha",
                                    "1", "--out", str(tmp_path / "r.png")])
    assert res.exit_code == 2 and "--out" in res.output and "FILE.json" in res.output
    res = CliRunner().invoke(main, ["check", "residual", "--alpha", "1", "--n", "64", "--d-k",
                                    "48", "--tied", "--sharing", "gqa"])
    assert res.exit_code == 2 and "--tied" in res.output
