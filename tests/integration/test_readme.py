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


def test_readme_regret_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) >= 2, "README has no regret example"
    code = blocks[1]
    assert len([ln for ln in code.splitlines() if ln.strip()]) <= 10
    exec(compile(code, "README.md", "exec"), {})
    violations, rounds, regret = capsys.readouterr().out.split()
    assert int(violations) == 0 and int(rounds) == 19_999 and 0 < float(regret) < 0.5 * 19_999


def test_readme_study_example_runs(capsys, tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) >= 3, "README has no study example"
    code = blocks[2]
    assert len([ln for ln in code.splitlines() if ln.strip() and not ln.startswith("import")]) <= 6
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})
    n_answered, done, _arm = capsys.readouterr().out.split()
    assert n_answered == "1" and done in ("True", "False")
