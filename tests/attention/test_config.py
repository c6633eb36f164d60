"""MHAConfig: derived ratios, presets (Table D.2), refusals that name the parameter, one domain
for the laws and the samplers, and .law()/AttentionModel.from_config describing the same layer."""
import math

import pytest

from freeattn import MHAConfig
from freeattn._validation import ParameterError
from freeattn.attention import config as cfgmod
from freeattn.attention.config import PRESETS, width_from_ratio
from freeattn.montecarlo import AttentionModel, samplers

# Table D.2 of Hayase & Karakida 2026 (β = 1, d_O = d, d_K = d_V): n, d, h, h_KV, d_K
TABLE_D2 = {
    "bert-base": (512, 768, 12, 12, 64, "none"),
    "modernbert-large": (1024, 1024, 16, 16, 64, "none"),
    "dinov3-l16": (261, 1024, 16, 16, 64, "none"),
    "llada-8b": (4096, 4096, 32, 32, 128, "none"),
    "gpt3-175b": (2048, 12288, 96, 96, 128, "none"),
    "falcon-7b": (2048, 4544, 71, 1, 64, "mqa"),
    "kayyam-1.2b": (2048, 2048, 32, 32, 64, "tied_kv"),
}


@pytest.mark.parametrize("name", sorted(TABLE_D2))
def test_presets_are_table_d2(name):
    n, d, h, hkv, dk, sharing = TABLE_D2[name]
    c = MHAConfig.preset(name)
    assert (c.n, c.d, c.heads, c.kv_heads, c.d_k, c.d_v, c.d_o, c.beta, c.sharing) == \
        (n, d, h, hkv, dk, dk, d, 1.0, sharing)
    assert c.gamma_k == h * dk / n and c.gamma_v == h * dk / n and c.gamma_o == d / n


def test_gqa_preset_and_overrides():
    c = MHAConfig.preset("mistral-7b")
    assert (c.heads, c.kv_heads, c.sharing) == (32, 8, "gqa") and c.n <= c.d
    assert "source" in PRESETS["mistral-7b"]
    assert MHAConfig.preset("bert-base", beta=0.5).beta == 0.5
    with pytest.raises(ParameterError) as exc:
        MHAConfig.preset("bert")
    assert exc.value.param == "preset"


def test_from_ratios_rounds_within_tolerance():
    c = MHAConfig.from_ratios(333, gamma_k=0.3)  # 99.9 -> d_K = 100 (the example)
    assert c.d_k == 100 and c.gamma_k == pytest.approx(100 / 333)
    c = MHAConfig.from_ratios(512, heads=12, gamma_k=1.5, gamma_v=0.75, gamma_o=1.5)
    assert (c.d_k, c.d_v, c.d_o) == (64, 32, 768)
    with pytest.raises(ParameterError, match=r"use d_k=34 \(gamma_k=0.306306\) or d_k=35") as exc:
        MHAConfig.from_ratios(333, gamma_k=0.31, heads=3)  # 34.41
    assert exc.value.param == "gamma_k"
    with pytest.raises(ParameterError) as exc:
        width_from_ratio("gamma_o", 0.001, 100)  # rounds to 0
    assert exc.value.param == "gamma_o"


@pytest.mark.parametrize("kw,param", [
    (dict(d=100), "d"),
    (dict(beta=25.0), "beta"),
    (dict(beta=float("nan")), "beta"),
    (dict(heads=4, kv_heads=3, sharing="gqa"), "kv_heads"),
    (dict(heads=4, sharing="gqa"), "kv_heads"),
    (dict(heads=4, kv_heads=2), "kv_heads"),
    (dict(heads=4, kv_heads=2, sharing="mqa"), "kv_heads"),
    (dict(sharing="tied_kv", d_v=10), "d_v"),
    (dict(sharing="kv"), "sharing"),
    (dict(n=1, d=200), "n"),
    (dict(d_k=0), "d_k"),
])
def test_inconsistent_inputs_name_the_parameter(kw, param):
    args = dict(n=200, d_k=50)
    args.update(kw)
    with pytest.raises(ParameterError) as exc:
        MHAConfig(**args)
    assert exc.value.param == param


def test_one_domain_for_laws_and_samplers():
    assert samplers.BETA_MODEL_RANGE is cfgmod.BETA_MODEL_RANGE
    assert samplers.KINDS is cfgmod.KINDS
    lo, hi = cfgmod.BETA_LAW_RANGE
    assert cfgmod.BETA_MODEL_RANGE[0] < lo < hi < cfgmod.BETA_MODEL_RANGE[1]
    # a model outside the laws' β range can be simulated, but its law is refused
    m = AttentionModel.from_config(MHAConfig(n=50, d_k=50, beta=6.0), "attention")
    with pytest.raises(ParameterError) as exc:
        m.law()
    assert exc.value.param == "beta"


def test_model_and_law_describe_the_same_layer():
    c = MHAConfig(n=120, d=150, heads=4, kv_heads=2, d_k=30, d_v=60, d_o=60, beta=0.9,
                  sharing="gqa")
    m = AttentionModel.from_config(c, "values")
    assert isinstance(m, AttentionModel) and m.config == c and m.kind == "values"
    assert (m.kv_heads, m.d_v, m.d_o, m.tied) == (2, 60, 60, False)
    law = c.law("values")
    assert law is c.law("values")  # cached per configuration and kind
    assert m.limit_mean() == float(law.mean())
    assert m.limit_mean() == pytest.approx(c.gamma_v * math.expm1(0.81), rel=1e-14)
    assert c.limit_mean("attention") == pytest.approx(math.expm1(0.81), rel=1e-14)
    assert AttentionModel(beta=1.0, n=40, d_k=10, heads=4, kv_heads=1).config.sharing == "mqa"
    assert AttentionModel(beta=1.0, n=40, d_k=10, tied=True).config.sharing == "tied_kv"
    with pytest.raises(ParameterError) as exc:
        c.law("output")
    assert exc.value.param == "kind"


def test_docstring_examples():
    import doctest

    result = doctest.testmod(cfgmod, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_table_d2_mean_is_the_law_mean():
    c = MHAConfig(n=64, heads=4, kv_heads=1, d_k=24, d_v=32, d_o=128, beta=0.7, sharing="mqa")
    assert c.table_d2_mean() == pytest.approx(c.limit_mean("mha"), rel=1e-13)
    bert = MHAConfig.preset("bert-base")
    assert bert.table_d2_mean() == pytest.approx(768 / 512 * (math.e - 1), rel=1e-15)
    kay = MHAConfig.preset("kayyam-1.2b")  # (d_O/n)(e − 1 + n/d_K), App. D.1
    assert kay.table_d2_mean() == pytest.approx(math.e - 1 + 2048 / 64, rel=1e-15)
