"""The flags that describe one attention layer (``check mha``, ``density mha``), and the
:class:`freeattn.attention.MHAConfig` they give."""
from __future__ import annotations

import click

from .. import _validation as v
from ..attention.config import PRESETS, MHAConfig, width_from_ratio
from ..attention.domains import (BETA, BETA_MODEL, D, D_K, D_O, D_V, GAMMA_K, GAMMA_O, GAMMA_V,
                                 KV_HEADS, N, SHARINGS)
from ._domains import param_option
from ._errors import usage_error as _usage

__all__ = ["layer_options", "preset_kv_heads", "config_from_flags", "preset_note",
           "SHARING_CHOICE"]

#: the --sharing choices, from the declared sharings
SHARING_CHOICE = click.Choice(SHARINGS)


def layer_options(f):
    """The click options that describe one layer (shared by ``check mha`` and ``density mha``)."""
    opts = [
        click.option("--preset", default=None,
                     help="A published layer (Table D.2): bert-base, modernbert-large, "
                          "dinov3-l16, llada-8b, gpt3-175b, falcon-7b, kayyam-1.2b, "
                          "mistral-7b; other flags override its values."),
        param_option(BETA_MODEL, default_help="1", extra="The limit law needs β in "
                                                         f"[{BETA.domain[1]:g}, "
                                                         f"{BETA.domain[2]:g}]."),
        param_option(N),
        param_option(D, default_help="n"),
        click.option("--heads", type=int, default=None, help="Number of query heads h."),
        param_option(KV_HEADS, default_help="from --sharing", extra="1 = MQA."),
        click.option("--sharing", type=SHARING_CHOICE, default=None,
                     help="K/V sharing across heads (gqa, mqa) or tying W^V = W^K (tied_kv).  "
                          "Default none (gqa/mqa when --kv-heads < --heads)."),
        click.option("--tied", is_flag=True, help="Same as --sharing tied_kv."),
        param_option(D_K),
        param_option(D_V, default_help="d_K"),
        param_option(D_O, default_help="d"),
        param_option(GAMMA_K, extra="Instead of --d-k (rounded to an integer width within "
                                    "0.5 %)."),
        param_option(GAMMA_V, extra="Instead of --d-v."),
        param_option(GAMMA_O, extra="Instead of --d-o."),
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


def preset_kv_heads(row, heads, kv_heads, sharing):
    """h_KV of a preset layer after the user's overrides (None: the pattern's default).

    ``--kv-heads`` wins; else the preset's h_KV is kept only where it still describes the
    layer: independent heads (h_KV = h in the preset) follow an overridden ``--heads``,
    ``--sharing none`` means h_KV = h and ``--sharing mqa`` h_KV = 1.  (Before, ``--preset
    bert-base --heads 8`` kept h_KV = 12 and failed with "--kv-heads must divide heads=8".)
    """
    if kv_heads is not None:
        return kv_heads
    final = sharing if sharing is not None else row["sharing"]
    if final == "none":
        return None
    if final == "mqa":
        return 1
    if row["kv_heads"] == row["heads"]:
        return None if heads is not None else row["kv_heads"]
    return row["kv_heads"]


def config_from_flags(preset, beta, n, d, heads, kv_heads, sharing, tied, d_k, d_v, d_o,
                      gamma_k, gamma_v, gamma_o, rho=None):
    """An :class:`freeattn.attention.MHAConfig` from the layer flags (usage errors name flags)."""
    if tied:
        if sharing not in (None, "tied_kv"):
            raise click.UsageError("--tied means --sharing tied_kv; give one of them")
        sharing = "tied_kv"
    for width, ratio in (("d_k", "gamma_k"), ("d_v", "gamma_v"), ("d_o", "gamma_o")):
        if locals()[width] is not None and locals()[ratio] is not None:
            raise click.UsageError(f"give either --{width.replace('_', '-')} or "
                                   f"--{ratio.replace('_', '-')}, not both")
    fields = {}
    try:
        if preset is not None:
            if preset not in PRESETS:
                raise v.ParameterError("preset", f"preset must be one of {tuple(PRESETS)}, "
                                                  f"got {preset!r}")
            fields = {k: val for k, val in PRESETS[preset].items() if k != "source"}
            if heads is not None:
                v.positive_integer("heads", heads)
            fields["kv_heads"] = preset_kv_heads(fields, heads, kv_heads, sharing)
            if fields["kv_heads"] is None:
                del fields["kv_heads"]
        given = dict(beta=beta, n=n, d=d, heads=heads, kv_heads=kv_heads, sharing=sharing,
                     d_k=d_k, d_v=d_v, d_o=d_o, rho=rho)
        if n is not None and preset is not None and d is None and fields.get("d", 0) < n:
            fields["d"] = None
        fields.update({k: val for k, val in given.items() if val is not None})
        if "n" not in fields:
            raise click.UsageError("give --n (or --preset)")
        fields.setdefault("heads", 1)
        if sharing is None and preset is None and kv_heads is not None \
                and kv_heads != fields["heads"]:
            fields["sharing"] = "mqa" if kv_heads == 1 else "gqa"
        nn = v.integer_at_least("n", fields["n"], 2)
        h = v.positive_integer("heads", fields["heads"])
        if gamma_k is not None:
            fields["d_k"] = width_from_ratio("gamma_k", gamma_k, nn, h)
        if gamma_v is not None:
            fields["d_v"] = width_from_ratio("gamma_v", gamma_v, nn, h)
        if gamma_o is not None:
            fields["d_o"] = width_from_ratio("gamma_o", gamma_o, nn, 1)
        if "d_k" not in fields:
            raise click.UsageError("give --d-k or --gamma-k (or --preset)")
        return MHAConfig(**fields)
    except (TypeError, ValueError) as exc:
        raise _usage(preset_note(exc, preset, kv_heads, fields.get("kv_heads"))) from None


def preset_note(exc, preset, kv_flag, kv_used):
    """Say where an h_KV that the user did not give came from (the preset)."""
    if preset is None or kv_flag is not None or getattr(exc, "param", None) != "kv_heads":
        return exc
    return v.ParameterError("kv_heads", f"{exc} (h_KV = {kv_used} comes from --preset "
                                        f"{preset}; give --kv-heads or --sharing)")


