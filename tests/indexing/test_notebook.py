"""Jupyter notebooks are read through their cells, at the notebook file's own lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from codecompass.cli import main
from codecompass.engine import Engine
from codecompass.indexing import pipeline
from codecompass.indexing.notebook import NotebookError, notebook_view
from codecompass.indexing.parse import SourceFile, parse_file
from codecompass.models import ParsedFile
from tests.conftest import TinyEmbedder, make_git_repo

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk" * 40


def cell(kind: str, source: str, **extra: Any) -> dict[str, Any]:
    return {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True), **extra}


def notebook(
    *cells: dict[str, Any], language: str | None = "python", indent: int | None = 1
) -> str:
    """A notebook as Jupyter writes it: one source line per JSON string, keys sorted."""
    metadata: dict[str, Any] = {"kernelspec": {"name": "k", "display_name": "K"}}
    if language is not None:
        metadata["kernelspec"]["language"] = language
    document = {"cells": list(cells), "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(document, indent=indent, sort_keys=True, ensure_ascii=False) + "\n"


PLOT = notebook(
    cell("markdown", "# Loss curves\n\nPlot the **training** loss per epoch.\n"),
    cell(
        "code",
        "%matplotlib inline\n!pip install tqdm\nimport numpy as np\nfrom model import train\n",
        execution_count=1,
        outputs=[{"output_type": "stream", "name": "stdout", "text": ["import numpy as np\n"]}],
    ),
    cell(
        "code",
        'def smooth(values, weight=0.9):\n    """Exponential moving average."""\n'
        "    return np.convolve(values, [weight])\n\n\nlosses = smooth(train(epochs=3))\n",
        execution_count=2,
        outputs=[{"data": {"image/png": PNG}, "metadata": {}, "output_type": "display_data"}],
    ),
    cell("code", "%%bash\nls -l data/\n", execution_count=3, outputs=[]),
    cell("code", "%%time\nbest = min(losses,\n           key=abs)\n", execution_count=4),
)


def file_line(text: str, needle: str) -> int:
    """The 1-based line of the notebook file holding `needle` as a source string."""
    for number, line in enumerate(text.split("\n"), start=1):
        if json.dumps(needle, ensure_ascii=False) in line:
            return number
    raise AssertionError(needle)


def test_symbols_sit_at_the_notebooks_own_lines() -> None:
    source = parse_file("notebooks/plot.ipynb", PLOT)
    parsed = source.parsed
    assert (parsed.language, parsed.error) == ("python", None)
    (smooth,) = parsed.symbols
    first = file_line(PLOT, "def smooth(values, weight=0.9):\n")
    last = file_line(PLOT, "    return np.convolve(values, [weight])\n")
    assert (smooth.qualified_name, smooth.kind, smooth.start_line, smooth.end_line) == (
        "smooth",
        "function",
        first,
        last,
    )
    assert source.lines[first - 1 : last] == [
        "def smooth(values, weight=0.9):",
        '    """Exponential moving average."""',
        "    return np.convolve(values, [weight])",
    ]
    # One entry per line of the file; JSON, outputs and metadata are blank.
    assert len(source.lines) == len(PLOT.split("\n")) - 1
    shown = [line for line in source.lines if line]
    assert shown == [
        "# Loss curves",
        "Plot the **training** loss per epoch.",
        "%matplotlib inline",
        "!pip install tqdm",
        "import numpy as np",
        "from model import train",
        "def smooth(values, weight=0.9):",
        '    """Exponential moving average."""',
        "    return np.convolve(values, [weight])",
        "losses = smooth(train(epochs=3))",
        "%%bash",
        "ls -l data/",
        "%%time",
        "best = min(losses,",
        "           key=abs)",
    ]
    # The parser reads code cells only, without IPython's magics and shell escapes, and
    # not the body of a cell magic that runs another program.
    assert [line for line in source.code.split("\n") if line] == shown[4:10] + shown[13:]


def test_calls_and_imports_in_cells_are_references() -> None:
    parsed = parse_file("plot.ipynb", PLOT).parsed
    calls = {(r.kind, r.name, r.line) for r in parsed.references}
    assert ("import", "model.train", file_line(PLOT, "from model import train\n")) in calls
    line = file_line(PLOT, "losses = smooth(train(epochs=3))\n")
    assert {("call", "smooth", line), ("call", "train", line)} <= calls


def test_the_kernel_language_parses_the_cells() -> None:
    r_notebook = notebook(cell("code", "area <- function(r) {\n  pi * r^2\n}\n"), language="R")
    parsed = parse_file("stats.ipynb", r_notebook).parsed
    assert parsed.language == "r"
    assert [(s.name, s.kind) for s in parsed.symbols] == [("area", "function")]
    # No language in the metadata: Python, nbformat's default.
    assert notebook_view(notebook(cell("code", "x = 1\n"), language=None)).language == "python"
    unknown = notebook(cell("code", "let x = 1\n"), language="fsharp")
    source = parse_file("f.ipynb", unknown)
    assert (source.parsed.language, source.parsed.symbols) == ("text", [])
    assert source.parsed.error == (
        "no reader for the kernel's language 'fsharp': its source lines chunked as text"
    )
    assert [line for line in source.lines if line] == ["let x = 1"]


def test_a_notebook_not_stored_line_by_line_shows_its_source_lines_as_text() -> None:
    minified = notebook(cell("code", "def f():\n    return 1\n"), indent=None)
    source = parse_file("min.ipynb", minified)
    assert source.parsed.language == "text"
    assert source.parsed.error == (
        "cell sources are not stored one line per file line: its source lines chunked as text"
    )
    assert source.lines == minified.split("\n")[:-1]
    # Sources kept as one string each (SymPy's fresnel_integrals.ipynb): the lines holding
    # them stay, JSON-escaped; the outputs and metadata around them are blank.
    stored = [
        "{",
        ' "cells": [',
        '  {"cell_type": "code", "outputs": [{"data": {"image/png": "iVBORw0KGgo"}}],',
        '   "source": "import math\\nr = 2.0\\narea = math.pi * r ** 2"},',
        '  {"cell_type": "markdown", "source": ["One line"]}',
        " ],",
        ' "metadata": {"kernelspec": {"language": "python"}}',
        "}",
    ]
    source = parse_file("one_string.ipynb", "\n".join(stored) + "\n")
    assert source.parsed.error is not None and source.parsed.language == "text"
    assert source.lines == ["", "", "", stored[3], stored[4], "", "", ""]
    one_string = json.dumps(
        {"cells": [{"cell_type": "code", "source": "x = 1\ny = 2\n"}], "metadata": {}}, indent=1
    )
    view = notebook_view(one_string)
    assert view.problem == "cell sources are not stored one line per file line"
    assert [line for line in view.shown if line] == ['   "source": "x = 1\\ny = 2\\n"']


def test_nbformat_3_cells_in_worksheets() -> None:
    """The format before 2015, still in repositories (SymPy's examples): cells inside
    worksheets, a code cell's source under `input`."""
    v3 = {
        "metadata": {"name": "spin"},
        "nbformat": 3,
        "worksheets": [
            {
                "cells": [
                    {"cell_type": "heading", "level": 1, "source": ["Spin states"]},
                    {
                        "cell_type": "code",
                        "input": ["from sympy import S\n", "def half():\n", "    return S(1)/2"],
                        "language": "python",
                        "outputs": [{"output_type": "pyout", "text": ["1/2"]}],
                    },
                ]
            }
        ],
    }
    text = json.dumps(v3, indent=1)
    parsed = parse_file("spin.ipynb", text).parsed
    assert parsed.language == "python"
    assert [(s.name, s.start_line) for s in parsed.symbols] == [
        ("half", file_line(text, "def half():\n"))
    ]
    assert [line for line in notebook_view(text).shown if line] == [
        "Spin states",
        "from sympy import S",
        "def half():",
        "    return S(1)/2",
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"cells": [', "not a notebook"),
        ("[1, 2]", "not a notebook"),
        ('{"nbformat": 4, "metadata": {}}', "no cells"),
    ],
)
def test_what_is_no_notebook_is_named(text: str, message: str) -> None:
    with pytest.raises(NotebookError, match=message):
        notebook_view(text)
    assert parse_file("x.ipynb", text).parsed.error.startswith(message)  # type: ignore[union-attr]


def test_a_notebook_indexed_searched_and_linked(tmp_path: Path) -> None:
    """Through the CLI with the real model: the cell is found at its lines, its text has
    no JSON or output in it, and the notebook's call reaches the module it imports."""
    repo = make_git_repo(
        tmp_path / "proj",
        {
            "model.py": "def train(epochs):\n    return [1.0 / (e + 1) for e in range(epochs)]\n",
            "notebooks/plot.ipynb": PLOT,
        },
    )
    data = str(tmp_path / "data")
    runner = CliRunner()
    indexed = runner.invoke(main, ["index", str(repo), "--data-dir", data, "--json"])
    assert indexed.exit_code == 0, indexed.output
    found = runner.invoke(
        main, ["search", "exponential moving average", "--data-dir", data, "--json", "-k", "3"]
    )
    assert found.exit_code == 0, found.output
    best = json.loads(found.output)["results"][0]
    first = file_line(PLOT, "def smooth(values, weight=0.9):\n")
    assert (best["path"], best["symbol"], best["start_line"]) == (
        "notebooks/plot.ipynb",
        "smooth",
        first,
    )
    assert best["language"] == "python"
    # Ranked as documentation: a repository's notebooks are its tutorials and examples.
    assert best["why"]["features"]["doc"] == {"value": 1.0, "weight": -0.5, "contribution": -0.5}
    assert "cell_type" not in best["snippet"] and PNG[:20] not in best["snippet"]
    # Opening the hit's range shows the cell's code, as the hit did, not its JSON.
    opened = runner.invoke(
        main, ["open", f"notebooks/plot.ipynb:{first}-{first + 2}", "--data-dir", data, "--json"]
    )
    assert opened.exit_code == 0, opened.output
    assert json.loads(opened.output)["text"].split("\n") == [
        "def smooth(values, weight=0.9):",
        '    """Exponential moving average."""',
        "    return np.convolve(values, [weight])",
    ]
    callers = runner.invoke(main, ["callers", "train", "--data-dir", data, "--json"])
    assert callers.exit_code == 0, callers.output
    edges = json.loads(callers.output)["edges"]
    assert {(e["evidence_path"], e["evidence_line"]) for e in edges} == {
        ("notebooks/plot.ipynb", file_line(PLOT, "losses = smooth(train(epochs=3))\n"))
    }


def test_an_indented_percent_continues_an_expression() -> None:
    text = notebook(cell("code", "label = ('%d items'\n         % len(items))\n!ls\n"))
    view = notebook_view(text)
    assert [line for line in view.code.split("\n") if line] == [
        "label = ('%d items'",
        "         % len(items))",
    ]
    assert parse_file("n.ipynb", text).parsed.error is None


def test_an_index_made_before_reads_its_notebooks_again_without_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Notebooks indexed as JSON text by an earlier version (whose files hold another
    reader version) are read through their cells on the next ordinary run, and only once."""
    repo = make_git_repo(tmp_path / "proj", {"plot.ipynb": PLOT, "model.py": "X = 1\n"})

    def as_json_text(path: str, text: str) -> SourceFile:  # what versions before did
        lines = text.split("\n")[:-1]
        return SourceFile(ParsedFile("text"), text, lines)

    embedder = TinyEmbedder()
    with monkeypatch.context() as patch:
        patch.setattr(pipeline, "parse_file", as_json_text)
        patch.setattr(pipeline, "READER_VERSION", 0)
        with Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=embedder)[0] as engine:
            engine.index(repo)
            assert "smooth" not in {h.symbol for h in engine.search("smooth", k=5)}
    with Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=embedder)[0] as engine:
        stats = engine.index(repo)
        assert (stats.upgraded, stats.changed, stats.unchanged) == (2, 0, 0)
        assert engine.search("smooth", k=1)[0].symbol == "smooth"
        again = engine.index(repo)
        assert (again.upgraded, again.changed, again.unchanged) == (0, 0, 2)
