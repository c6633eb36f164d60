"""``python -m freeattn``: the command-line interface (same as the ``freeattn`` script)."""
from .cli import main

if __name__ == "__main__":
    main(prog_name="freeattn")
