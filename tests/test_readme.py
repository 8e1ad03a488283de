"""The README's Python examples run as written (concatenated into one script, since the later
blocks use the first one's names), so the front page cannot drift from the API."""
import re
import runpy
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_blocks_run(tmp_path, capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "the README has no python examples"
    script = tmp_path / "readme_examples.py"
    # catad reads a function's source, so the examples must live in a file, as a user's would
    script.write_text("\n".join(blocks))
    names = runpy.run_path(str(script))
    assert "catad" in names and "f" in names
    assert "reverse" in capsys.readouterr().out
