"""matplotlib set-up shared by every figure freeattn writes (imported only when plotting)."""
from __future__ import annotations

import re

__all__ = ["pyplot", "save", "mathtext"]

#: a one-character subscript after a letter (E_λ, d_K), not inside an identifier (rel_w1)
_SINGLE = re.compile(r"(?<=[^\W\d_])_([^\W_])(?![\w{])")


def pyplot():
    """``matplotlib.pyplot`` on a file backend (Agg) unless one is already in use."""
    import matplotlib  # optional heavy dependency: loaded when a figure is drawn

    if matplotlib.get_backend().lower() not in ("agg", "pdf", "svg", "ps", "cairo"):
        try:
            matplotlib.use("Agg")
        except Exception:  # noqa: BLE001 - keep the user's backend if it cannot switch
            pass
    import matplotlib.pyplot as plt  # after the backend choice above

    return plt


def save(fig, path, dpi):
    """Lay out, write and close ``fig`` (format from the extension of ``path``)."""
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    pyplot().close(fig)
    return path


def mathtext(text, single=False):
    """``text`` with its TeX-style sub- and superscripts as matplotlib mathtext.

    ``"ν_{∞,h} ⊠ MP_{1/γ_V}"`` → ``"ν$_{∞,h}$ ⊠ MP$_{1/γ_V}$"``: each ``_{…}`` or ``^{…}``
    (braces balanced, nested groups kept inside the same math span) becomes a ``$…$`` span,
    so that figures never show raw braces.  With ``single=True`` (axis labels and titles
    written for the figure, not a law's Python name) a one-character subscript after a
    letter (``E_λ``, ``d_K``) too, while identifiers such as ``rel_w1`` are left alone.
    Text that already holds ``$`` is returned as is.
    """
    if text is None or "$" in text:
        return text
    out, i = [], 0
    while i < len(text):
        if text[i] in "_^" and text[i + 1:i + 2] == "{":
            depth, j = 0, i + 1
            while j < len(text):
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                if depth == 0:
                    break
                j += 1
            if depth == 0:
                out.append("$" + text[i:j + 1] + "$")
                i = j + 1
                continue
        out.append(text[i])
        i += 1
    if not single:
        return "".join(out)
    parts = "".join(out).split("$")  # even parts lie outside the math spans
    parts[0::2] = [_SINGLE.sub(r"$_\1$", p) for p in parts[0::2]]
    return "$".join(parts)
