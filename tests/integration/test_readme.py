"""The README's Python example runs as printed (documentation snippets are tested)."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_example_runs(capsys):
    text = README.read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "README has no python example"
    code = blocks[0]
    assert len([ln for ln in code.splitlines() if ln.strip()]) <= 10
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out.split()
    assert out[0] == "True" and int(out[1]) > 0
