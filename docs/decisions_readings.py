"""Write the tables of docs/decisions/readings.md (run by hand, result committed): every claim's reading
with the date it was fixed, and every declared unstated setting with its range, from the paper packages'
ledgers (``readings.json``) and declarations. ``tests/unit/experiments/test_readings.py`` checks that the
committed page is what this writes.

Run ``python docs/decisions_readings.py`` after ``safebandits readings --changed ...``."""

from __future__ import annotations

from pathlib import Path

BEGIN, END = "<!-- readings tables: begin -->", "<!-- readings tables: end -->"
PAGE = Path(__file__).resolve().parent / "decisions" / "readings.md"


def render(text: str) -> str:
    from safebandits.experiments.readings import ledger_markdown

    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return head + BEGIN + "\n" + "\n".join(ledger_markdown()) + "\n" + END + tail


if __name__ == "__main__":
    PAGE.write_text(render(PAGE.read_text()))
