"""matplotlib set-up shared by every figure freeattn writes (imported only when plotting)."""
from __future__ import annotations

__all__ = ["pyplot", "save"]


def pyplot():
    """``matplotlib.pyplot`` on a file backend (Agg) unless one is already in use."""
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "pdf", "svg", "ps", "cairo"):
        try:
            matplotlib.use("Agg")
        except Exception:  # noqa: BLE001 - keep the user's backend if it cannot switch
            pass
    import matplotlib.pyplot as plt

    return plt


def save(fig, path, dpi):
    """Lay out, write and close ``fig`` (format from the extension of ``path``)."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path
