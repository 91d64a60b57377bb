"""What a newcomer meets first (issue 13): output a pipe can trust, filters that say
when they cannot match, errors in the interface's own words, and JSON errors for
programs. The real embedding model, through click."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from codecompass.cli import main
from codecompass.engine import parse_location
from codecompass.errors import InputError
from codecompass.mcp_config import CLIENTS as MCP_CLIENTS
from tests.conftest import make_git_repo

LONG_COMMENT = "# " + " ".join(f"word{i}" for i in range(60))  # about 420 characters
BILLING = f'''"""Billing helpers."""


def charge_card(card: str, cents: int) -> str:
    {LONG_COMMENT}
    receipt = {{"[bold]card": card, "cents": cents}}   \t
    return f"charged {{cents}} to {{card}}"
'''
UTILS = '''def format_cents(cents: int) -> str:
    """Render cents as a price such as 12.50."""
    return f"{cents / 100:.2f}"
'''
CHECKOUT = """from billing.charge import charge_card


def checkout(card: str) -> str:
    return charge_card(card, 100)
"""
TEST_HELPERS = """from billing.charge import charge_card


def fake_card() -> str:
    return "4242"


def test_charge() -> None:
    assert charge_card(fake_card(), 1)
"""
README = '# <img alt="shop" src="logo.svg">\n\n## Usage\n\nCall checkout.\n'


@pytest.fixture(scope="module")
def two_repos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("first-hour")
    data = root / "data"
    shop = {
        "billing/charge.py": BILLING,
        "billing/checkout.py": CHECKOUT,
        "tests/test_billing.py": TEST_HELPERS,
        "README.md": README,
        "logo.png": "\x89PNG\r\n\x1a\n\x00\x00binary",
    }
    for name, files in [("shop", shop), ("utils", {"money.py": UTILS})]:
        repo = make_git_repo(root / name, files)
        result = CliRunner().invoke(main, ["index", str(repo), "--data-dir", str(data), "--json"])
        assert result.exit_code == 0, result.output
    return data


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_snippets_in_a_pipe_are_the_source_lines(two_repos: Path) -> None:
    code, out, _ = run(
        "search", "charge_card", "--data-dir", str(two_repos), "--detail", "full", "-k", "1"
    )
    assert code == 0
    function = BILLING[BILLING.index("def charge_card") :].rstrip("\n")
    assert function in out  # not wrapped at 80 columns, trailing blanks kept, no markup
    assert out.count("\n") == 1 + function.count("\n") + 1  # header, the code, nothing else


def test_results_name_their_repository_when_several_are_indexed(two_repos: Path) -> None:
    code, out, _ = run("search", "format cents as a price", "--data-dir", str(two_repos), "-k", "1")
    assert code == 0 and out.startswith("1. utils/money.py:1-3  function format_cents")
    code, out, _ = run("search", "format cents", "--data-dir", str(two_repos), "--files", "-k", "1")
    assert out.startswith("1. utils/money.py  ")


def test_filters_that_cannot_match_are_errors_listing_the_valid_values(two_repos: Path) -> None:
    data = str(two_repos)
    code, _, err = run("search", "charge", "--data-dir", data, "--lang", "cobol")
    assert code == 1
    assert "Unknown language 'cobol'; use one of: bash, c, cmake, cpp, csharp, css," in err
    code, _, err = run("search", "charge", "--data-dir", data, "--kind", "func")
    assert code == 1 and "Unknown kind 'func'; use one of: class, constant, enum, function," in err
    code, _, err = run("search", "charge", "--data-dir", data, "--repo", "nope")
    assert code == 1 and "Unknown repository 'nope'; indexed: shop, utils." in err
    # mealie: `--path nosuchdir/` printed "No results." and exited 0
    code, _, err = run("search", "charge", "--data-dir", data, "--path", "src/billing")
    assert code == 1
    assert (
        "No indexed file's path starts with 'src/billing'; paths are relative to their "
        "repository's root, which holds: README.md, billing/, money.py, tests/." in err
    )
    code, _, err = run("search", "charge", "--data-dir", data, "--repo", "utils", "--path", "b")
    assert code == 1 and "which holds: money.py." in err


def test_filter_values_are_normalized(two_repos: Path) -> None:
    def paths(*options: str) -> list[str]:
        code, out, _ = run(
            "search", "charge card", "--data-dir", str(two_repos), "--json", *options
        )
        assert code == 0, out
        return [f"{r['repo']}/{r['path']}" for r in json.loads(out)["results"]]

    python = {
        "shop/billing/charge.py",
        "shop/billing/checkout.py",
        "shop/tests/test_billing.py",
        "utils/money.py",
    }
    assert set(paths("--lang", "Python")) == python
    assert paths("--lang", "py") == paths("--lang", "python")
    assert set(paths("--path", "./billing")) == {
        "shop/billing/charge.py",
        "shop/billing/checkout.py",
    }
    assert paths("--path", "./billing") == paths("--path", "billing")
    assert set(paths("--kind", "FUNCTION", "--repo", "utils")) == {"utils/money.py"}


def test_errors_with_json_are_json_on_stdout(two_repos: Path) -> None:
    code, out, err = run("search", "x", "--data-dir", str(two_repos), "--lang", "cobol", "--json")
    assert code == 1 and err == ""
    error = json.loads(out)["error"]
    assert error["code"] == "invalid_argument" and error["message"].startswith("Unknown language")
    code, out, _ = run(
        "open", "money.py:9-3", "--data-dir", str(two_repos), "--repo", "utils", "--json"
    )
    assert code == 1 and json.loads(out)["error"]["code"] == "out_of_range"


def test_open_says_what_is_wrong_with_a_range(two_repos: Path) -> None:
    data = str(two_repos)
    code, _, err = run("open", "money.py:3-1", "--data-dir", data, "--repo", "utils")
    assert code == 1
    assert "Line range 3-1 is reversed; swap them: money.py:1-3." in err
    for bad in ("money.py:-5", "money.py:0", "money.py:1-2-3", "money.py:2-0"):
        code, _, err = run("open", bad, "--data-dir", data, "--repo", "utils")
        assert code == 1 and "Bad line range" in err and "Traceback" not in err, bad
    code, out, _ = run("open", "money.py:2-", "--data-dir", data, "--repo", "utils")
    assert code == 0 and out.endswith(UTILS[UTILS.index('    """Render') :])


def test_parse_location_forms() -> None:
    assert parse_location("a/b.py:10-20") == ("a/b.py", 10, 20)
    assert parse_location("a/b.py:7") == ("a/b.py", 7, 7)
    assert parse_location("a/b.py:7-") == ("a/b.py", 7, None)
    assert parse_location("a/b.py") == ("a/b.py", None, None)
    assert parse_location("C:/x.py") == ("C:/x.py", None, None)
    assert parse_location("notes:todo.md") == ("notes:todo.md", None, None)
    with pytest.raises(InputError, match="Bad line range '-5'"):
        parse_location("types.py:-5")


def test_index_names_what_it_skipped(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "r", {"a.py": "x = 1\n", "logo.png": "\x89PNG\x00\x00"})
    code, out, _ = run("index", str(repo), "--data-dir", str(tmp_path / "d"))
    assert code == 0 and "binary 1 (logo.png)" in out


def test_indexing_a_folder_again_updates_it_under_its_name(tmp_path: Path) -> None:
    """A folder indexed `--name just` and then indexed again without the option had
    become a second repository named after the folder, every result twice."""
    repo = make_git_repo(tmp_path / "src", {"a.py": "def area():\n    return 1\n"})
    data = str(tmp_path / "d")
    assert run("index", str(repo), "--name", "just", "--data-dir", data)[0] == 0
    (repo / "b.py").write_text("def volume():\n    return 2\n", encoding="utf-8")
    code, out, _ = run("index", str(repo), "--data-dir", data, "--json")
    assert code == 0 and json.loads(out)["repo"] == "just"
    code, out, _ = run("status", "--data-dir", data, "--json")
    assert [r["id"] for r in json.loads(out)["repos"]] == ["just"]
    code, out, _ = run("search", "volume", "--data-dir", data, "--json")
    assert {(h["repo"], h["path"]) for h in json.loads(out)["results"]} >= {("just", "b.py")}


def test_status_names_the_files_that_fell_back_to_line_windows(tmp_path: Path) -> None:
    """aeson's status said "38 parse errors" and nowhere which files: they were the
    JSON test suite's deliberately broken documents."""
    broken = {f"cases/n_{i}.json": "[1, {\n" for i in range(7)}
    repo = make_git_repo(tmp_path / "r", {"a.py": "x = 1\n", **broken})
    assert run("index", str(repo), "--data-dir", str(tmp_path / "d"))[0] == 0
    code, out, _ = run("status", "--data-dir", str(tmp_path / "d"), "--json")
    (status,) = json.loads(out)["repos"]
    why = "syntax errors throughout the file"
    assert status["parse_errors"] == 7
    assert status["parse_error_files"] == [{"path": p, "problem": why} for p in sorted(broken)]
    code, out, _ = run("status", "--data-dir", str(tmp_path / "d"))
    listed = [line.strip() for line in out.splitlines() if "cases/" in line or "more" in line]
    assert listed == [
        *(f"{p}: {why}" for p in sorted(broken)[:5]),
        "… and 2 more (`codecompass status --json` lists them as parse_error_files)",
    ]


def test_callers_read_left_to_right(two_repos: Path) -> None:
    code, out, _ = run("callers", "charge_card", "--data-dir", str(two_repos), "--repo", "shop")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Callers of shop/billing/charge.py#charge_card"
    assert any(
        line.startswith("  shop/billing/checkout.py#checkout —calls→ this  ") for line in lines
    ), out


def test_overview_counts_agree_with_status_and_put_tests_last(two_repos: Path) -> None:
    code, out, _ = run("status", "--data-dir", str(two_repos), "--json")
    shop = next(r for r in json.loads(out)["repos"] if r["id"] == "shop")
    code, out, _ = run("overview", "--data-dir", str(two_repos), "--repo", "shop", "--json")
    assert code == 0, out
    overview = json.loads(out)
    head = overview["text"].splitlines()[0]
    assert f"{shop['files']} files, {shop['symbols']} symbols (" in head
    assert f"{shop['symbols'] - 2} in code, 2 document sections" in head  # README: 2 headings
    paths = [f["path"] for f in overview["files"]]
    assert paths[-1] == "tests/test_billing.py"
    assert max(f["importance"] for f in overview["files"]) == 1.0


def test_readme_headings_are_words(two_repos: Path) -> None:
    code, out, _ = run("symbol", "Usage", "--data-dir", str(two_repos), "--json")
    assert code == 0
    assert [m["qualified_name"] for m in json.loads(out)["matches"]][:1] == ["shop > Usage"]


def test_a_repository_root_is_refused_as_data_dir(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    (repo / "notes.txt").write_text("untracked\n", encoding="utf-8")
    code, _, err = run("search", "x", "--data-dir", str(repo))
    assert code == 1 and "is a repository, not an index" in err
    code, _, err = run("index", str(repo), "--data-dir", str(repo))
    assert code == 1 and "is the root of a git repository, not a data folder" in err
    assert sorted(p.name for p in repo.iterdir()) == [".git", "a.py", "notes.txt"]
    other = tmp_path / "docs"
    other.mkdir()
    (other / "report.md").write_text("mine\n", encoding="utf-8")
    code, _, err = run("index", str(repo), "--data-dir", str(other))
    assert code == 1 and "already holds files the index did not create (report.md)" in err
    assert [p.name for p in other.iterdir()] == ["report.md"]


def test_indexing_a_folder_inside_a_repository_says_what_to_do(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "r", {"lib/a.py": "x = 1\n", "b.py": "y = 2\n"})
    code, _, err = run("index", str(repo / "lib"))
    assert code == 1
    assert f"is a folder inside the git repository {repo}" in err
    assert "--path lib/" in err
    assert not (repo / "lib" / ".codecompass").exists()


def test_a_git_directory_is_refused_not_indexed(tmp_path: Path) -> None:
    """`codecompass index repo/.git` indexed git's hooks, logs and objects as a
    repository named `.git`."""
    repo = make_git_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    data = tmp_path / "data"
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(bare)], check=True)
    for folder in (repo / ".git", bare):
        for command in (["index", str(folder)], ["repo", "add", str(folder)]):
            code, _, err = run(*command, "--data-dir", str(data))
            assert code == 1
            assert f"{folder} is a git directory (git's own objects, not a work tree)" in err
    assert not data.exists()


@pytest.mark.parametrize("client", MCP_CLIENTS)
def test_mcp_config_prints_a_ready_entry_with_absolute_paths(two_repos: Path, client: str) -> None:
    code, out, err = run("mcp-config", client, "--data-dir", str(two_repos))
    assert code == 0 and "Put this in " in err
    if client == "codex":
        entry = tomllib.loads(out)["mcp_servers"]["codecompass"]
        command = [entry["command"], *entry["args"]]
    else:
        parsed = json.loads(out)
        key = {"vscode": "servers", "opencode": "mcp"}.get(client, "mcpServers")
        entry = parsed[key]["codecompass"]
        if client == "opencode":
            assert entry["type"] == "local" and entry["enabled"] is True
            command = entry["command"]
        else:
            assert entry.get("type", "stdio") == "stdio"
            command = [entry["command"], *entry["args"]]
    assert Path(command[0]).is_absolute() and Path(command[0]).exists()
    assert command[-3:] == ["serve", "--data-dir", str(two_repos.resolve())]


def test_the_printed_entry_starts_a_working_server(two_repos: Path) -> None:
    import anyio
    from mcp import Client, StdioServerParameters

    _, out, _ = run("mcp-config", "claude-code", "--data-dir", str(two_repos))
    entry = json.loads(out)["mcpServers"]["codecompass"]
    params = StdioServerParameters(command=entry["command"], args=entry["args"])

    async def session() -> list[str]:
        async with Client(params, read_timeout_seconds=60) as client:
            status = await client.call_tool("index_status", {})
            assert not status.is_error
            return sorted(t.name for t in (await client.list_tools()).tools)

    assert "search_code" in anyio.run(session)


def test_doctor_checks_the_install_and_the_index(tmp_path: Path) -> None:
    code, out, _ = run("doctor", "--data-dir", str(tmp_path / "none"), "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] is True
    statuses = {c["name"]: c["status"] for c in report["checks"]}
    assert statuses == {
        "install": "ok",
        "grammars": "ok",
        "mcp": "ok",
        "config": "ok",
        "model": "ok",
        "index": "warn",
    }
    repo = make_git_repo(tmp_path / "r", {"a.py": "def a():\n    return 1\n"})
    data = tmp_path / "d"
    assert run("index", str(repo), "--data-dir", str(data), "--json")[0] == 0
    code, out, _ = run("doctor", "--data-dir", str(data), "--json")
    statuses = {c["name"]: c["status"] for c in json.loads(out)["checks"]}
    assert code == 0 and statuses["vectors"] == "ok" and statuses["freshness"] == "ok"
    (repo / "b.py").write_text("b = 2\n", encoding="utf-8")
    shutil.rmtree(data / "vectors")  # planted damage: every vector gone
    code, out, _ = run("doctor", "--data-dir", str(data))
    assert code == 1
    assert "FAIL vectors" in out and "0 vectors for 1 active chunk\n" in out
    assert "warn freshness" in out and "1 file added, changed or removed" in out


# Another process in the middle of `codecompass index`: it holds the writer lock.
HOLD_THE_WRITER = """
import sys, time
from pathlib import Path
from codecompass.engine import Engine
engine = Engine.open(Path(sys.argv[1]))
engine.backend.runs.start_run("r")
print("writing", flush=True)
time.sleep(120)
"""


def test_vectors_an_index_run_is_computing_are_not_called_lost(tmp_path: Path) -> None:
    """The progress line says "searchable now" while vectors are computed: a search then
    told the user to run `codecompass index`, which refused, another indexer running."""
    repo = make_git_repo(tmp_path / "r", {"a.py": "def a():\n    return 1\n"})
    data = tmp_path / "d"
    assert run("index", str(repo), "--data-dir", str(data), "--json")[0] == 0
    shutil.rmtree(data / "vectors")  # as at the start of a run's vectors stage
    writer = subprocess.Popen(
        [sys.executable, "-c", HOLD_THE_WRITER, str(data)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "writing\n"
        code, _, err = run("search", "return one", "--data-dir", str(data))
        computing = "the index run of r is still computing vectors; search again when it is done"
        assert code == 0 and computing in " ".join(err.split())
        code, out, _ = run("status", "--data-dir", str(data))
        assert code == 0 and f"0 for 1 active chunks: {computing}" in " ".join(out.split())
        assert json.loads(run("status", "--data-dir", str(data), "--json")[1])["indexing_now"] == [
            "r"
        ]
        code, out, _ = run("doctor", "--data-dir", str(data), "--json")
        vectors = {c["name"]: c for c in json.loads(out)["checks"]}["vectors"]
        assert (code, vectors["status"]) == (0, "warn")
    finally:
        writer.kill()  # as kill -9: its run stays marked running, its lock goes
        writer.wait()
    code, _, err = run("search", "return one", "--data-dir", str(data))
    assert "Run `codecompass index` to rebuild them from the cache" in " ".join(err.split())
    assert json.loads(run("status", "--data-dir", str(data), "--json")[1])["indexing_now"] == []
    code, out, _ = run("doctor", "--data-dir", str(data))
    assert code == 1 and "FAIL vectors" in out


def test_errors_name_the_interface_in_use(two_repos: Path) -> None:
    code, _, err = run("open", "nosuch.go", "--data-dir", str(two_repos), "--repo", "utils")
    assert code == 1 and "Find it with `codecompass search` or `codecompass symbol`." in err
    assert "search_code" not in err
    code, _, err = run("callers", "no_such_function", "--data-dir", str(two_repos))
    assert code == 1 and "`codecompass symbol no_such_function`" in err


def test_every_command_shows_an_example() -> None:
    import click

    def commands(group: click.Group, prefix: str) -> list[tuple[str, click.Command]]:
        found: list[tuple[str, click.Command]] = []
        for name, command in group.commands.items():
            if isinstance(command, click.Group):
                found += commands(command, f"{prefix}{name} ")
            else:
                found.append((prefix + name, command))
        return found

    missing = [name for name, c in commands(main, "") if "Examples:" not in (c.help or "")]
    assert missing == []


def test_a_data_folder_another_process_is_creating_is_accepted(tmp_path: Path) -> None:
    # Three indexers starting on one new folder see each other's files half written.
    from codecompass.engine import refuse_foreign_folder
    from codecompass.errors import DataDirError

    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "config.toml").write_text("[storage]\n", encoding="utf-8")
    (folder / ".write-test-x1y2").write_bytes(b"")
    (folder / ".gitignore").write_text("", encoding="utf-8")
    refuse_foreign_folder(folder)  # nothing foreign yet
    (folder / ".gitignore").write_text("node_modules/\n", encoding="utf-8")
    with pytest.raises(DataDirError, match="did not create"):
        refuse_foreign_folder(folder)


def test_a_reader_that_stops_early_is_not_an_error(two_repos: Path) -> None:
    import subprocess
    import sys

    search = subprocess.Popen(
        [sys.executable, "-m", "codecompass", "search", "charge", "--data-dir", str(two_repos)]
        + ["--detail", "full", "-k", "20"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert search.stdout is not None
    search.stdout.close()  # like `| head -0` or `| grep -q` after its match
    assert search.wait(timeout=120) == 0
    assert search.stderr is not None and b"Error" not in search.stderr.read()


def test_python_m_runs_inside_a_checkout_of_its_own_dependency(tmp_path: Path) -> None:
    """`python -m codecompass` puts the working directory first on sys.path: in a
    checkout of pydantic (or click, rich) that package shadowed the installed one and
    `--help` crashed. The MCP entry falls back to `python -m codecompass` without a
    console script, and clients start servers in the project's folder."""
    for package in ("pydantic", "click"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text(
            f"raise ImportError('the checkout\\'s {package}')\n", encoding="utf-8"
        )
    done = subprocess.run(
        [sys.executable, "-m", "codecompass", "--version"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert "codecompass, version " in done.stdout
