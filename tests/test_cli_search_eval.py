"""`codecompass search --explain/--files/--json` and `codecompass eval`, through click
with the real embedding model."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from codecompass.cli import main, own_note, raised_note, uses_note
from tests.conftest import git, make_git_repo
from tests.fake_llm import fake_chat_server

AUTH = '''def verify_token(token, secret):
    """Check a token against the shared secret."""
    return compare(token, secret)


def compare(a, b):
    return a == b
'''
TEST_AUTH = """from app.auth import verify_token


def test_a_wrong_secret_is_refused():
    assert not verify_token("token", "other secret")
"""


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("cli-search")
    files = {"app/auth.py": AUTH, "tests/test_auth.py": TEST_AUTH, "README.md": "# Proj\n"}
    repo = make_git_repo(root / "proj", files)
    data = root / "data"
    result = CliRunner().invoke(main, ["index", str(repo), "--data-dir", str(data), "--json"])
    assert result.exit_code == 0, result.output
    return repo, data


def run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_search_explains_and_ranks_files(repo: tuple[Path, Path]) -> None:
    _, data = repo
    trace = 'File "/x/site-packages/app/auth.py", line 6, in compare\nTypeError: boom'
    out = run("search", trace, "--data-dir", str(data), "--explain", "-k", "2")
    assert "understood:" in out and "why: " in out and "frame" in out
    files = run("search", "verify_token", "--data-dir", str(data), "--files")
    assert "1. app/auth.py" in files
    # The best test file vouches for the file it tests (`test_auth.py` → `auth.py`).
    assert re.search(r"tested by tests/test_auth\.py \(\+0\.\d{4}\)", " ".join(files.split()))
    payload = json.loads(run("search", "verify_token", "--data-dir", str(data), "--json"))
    assert payload["understood"]["identifiers"] == ["verify_token"]
    assert payload["files"][0]["path"] == "app/auth.py"
    assert "features" in payload["results"][0]["why"]
    assert [s["symbol"] for s in payload["symbols"]][0] == "verify_token"
    # --json holds all three rankings whichever view is chosen (as --help says).
    as_files = json.loads(
        run("search", "verify_token", "--data-dir", str(data), "--files", "--json")
    )
    assert [f["path"] for f in as_files["files"]] == [f["path"] for f in payload["files"]]
    assert [h["symbol"] for h in as_files["results"]] == [h["symbol"] for h in payload["results"]]
    symbols = run("search", "verify_token", "--data-dir", str(data), "--symbols", "-k", "2")
    flat = " ".join(symbols.split())  # the console wraps long lines
    first = flat.index("1. app/auth.py:1-3 function verify_token score")
    assert flat.index("2. app/auth.py:6-7 function compare score") > first
    # Each symbol shows its own chunk's score and its share of its file's score.
    top = payload["symbols"][0]["why"]
    assert set(top) >= {"chunk_score", "file_score", "file_share"}
    assert re.search(r"verify_token score [-\d.]+ \(chunk [-\d.]+, file [-\d.]+ of [-\d.]+\)", flat)


def test_a_dash_reads_the_query_from_standard_input(repo: tuple[Path, Path]) -> None:
    """An issue longer than the 128 KiB one argument may hold comes in on stdin."""
    _, data = repo
    issue = "verify_token refuses a good token\n" + "log line\n" * 20_000  # 200 KB
    piped = CliRunner().invoke(
        main, ["search", "-", "--data-dir", str(data), "--symbols", "--json"], input=issue
    )
    assert piped.exit_code == 0, piped.output
    payload = json.loads(piped.output)
    assert payload["query"] == issue
    assert payload["symbols"][0]["symbol"] == "verify_token"
    asked = CliRunner().invoke(main, ["ask", "-", "--data-dir", str(data)], input="check a token")
    assert asked.exit_code == 0 and "`verify_token` (function)" in asked.output
    bad = CliRunner().invoke(main, ["search", "-", "--data-dir", str(data)], input=b"\xff\xfe")
    assert bad.exit_code == 2
    assert "standard input is not UTF-8 text (byte 0)" in bad.output


@pytest.mark.parametrize(
    "query",
    [
        "- [x] verify_token refuses a good token",  # a Markdown list opens many issues
        "--strict makes verify_token fail",
        "-k is ignored by verify_token",  # a real short option, then text
        "-h\nverify_token fails",
    ],
)
def test_a_query_starting_with_a_dash_is_text_not_an_option(
    repo: tuple[Path, Path], query: str
) -> None:
    _, data = repo
    payload = json.loads(run("search", query, "--data-dir", str(data), "-k", "1", "--json"))
    assert payload["query"] == query
    assert payload["results"][0]["symbol"] == "verify_token"
    # Options keep working around it, and a mistyped one is still an error.
    typo = CliRunner().invoke(main, ["search", "x", "--flies", "--data-dir", str(data)])
    assert typo.exit_code == 2 and "No such option '--flies'" in typo.output


def test_eval_golden_ablation_and_index_commit(repo: tuple[Path, Path], tmp_path: Path) -> None:
    source, data = repo
    golden = tmp_path / "golden.jsonl"
    golden.write_text(
        json.dumps({"query": "check a token", "expected": [{"path": "app/auth.py"}]}) + "\n",
        encoding="utf-8",
    )
    dump = tmp_path / "dump.jsonl"
    report = json.loads(
        run(
            "eval",
            str(golden),
            "--data-dir",
            str(data),
            "--ablation",
            "--dump-features",
            str(dump),
            "--json",
        )
    )
    modes = report["reports"][0]["modes"]
    assert [m["mode"] for m in modes] == ["bm25", "dense", "hybrid", "hybrid+graph"]
    assert all(m["recall@10"] == 100.0 for m in modes)
    [record] = [json.loads(line) for line in dump.read_text(encoding="utf-8").splitlines()]
    assert record["expected"] == [{"path": "app/auth.py", "symbol": None}]
    assert record["candidates"][0]["path"] == "app/auth.py"

    bare = tmp_path / "proj.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(source), str(bare)], check=True)
    head = git(source, "rev-parse", "HEAD").strip()
    stats = json.loads(
        run("index", str(bare), "--commit", "HEAD", "--data-dir", str(tmp_path / "d"), "--json")
    )
    assert (stats["commit"], stats["new"], stats["repo"]) == (head, 3, "proj")


def test_eval_as_indexed_runs_localization_tasks_on_the_index_as_it_stands(
    repo: tuple[Path, Path], tmp_path: Path
) -> None:
    source, data = repo
    task = {
        "instance_id": "proj-1",
        "repo": "acme/proj",
        "base_commit": "0" * 40,  # not in the repository: no commit is checked out
        "problem_statement": "verify_token accepts a token signed with another secret",
        "gold_files": ["app/auth.py"],
        "gold_functions": ["app/auth.py::verify_token"],
    }
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(task) + "\n", encoding="utf-8")
    dump = tmp_path / "dump.jsonl"
    args = ["eval", str(tasks), "--as-indexed", "--data-dir", str(data)]
    [report] = json.loads(run(*args, "--dump-features", str(dump), "--json"))["reports"]
    [summary] = report["modes"]
    assert (summary["n"], summary["file_acc@1"], summary["function_acc@10"]) == (1, 100.0, 100.0)
    [row] = report["tasks"]
    assert (row["hybrid+graph"]["missed_files"], row["hybrid+graph"]["missed_functions"]) == (
        [],
        [],
    )
    # A task with a gold location outside the lists says which one kept it from counting.
    missing = {
        **task,
        "gold_files": ["app/auth.py", "app/gone.py"],
        "gold_functions": ["app/auth.py::verify_token", "app/gone.py::nope"],
    }
    partial = tmp_path / "partial.jsonl"
    partial.write_text(json.dumps(missing) + "\n", encoding="utf-8")
    [other] = json.loads(
        run("eval", str(partial), "--as-indexed", "--data-dir", str(data), "--json")
    )["reports"]
    outcome = other["tasks"][0]["hybrid+graph"]
    assert (outcome["missed_files"], outcome["missed_functions"]) == (
        ["app/gone.py"],
        ["app/gone.py::nope"],
    )
    assert (outcome["file@5"], outcome["function@10"]) == (False, False)
    assert report["as_indexed"] == {"proj": git(source, "rev-parse", "HEAD").strip()}
    assert "indexing" not in report
    # A localization dump, as `tune --guard` reads it.
    [record] = [json.loads(line) for line in dump.read_text(encoding="utf-8").splitlines()]
    assert (record["gold_files"], record["candidates"][0]["path"]) == (
        ["app/auth.py"],
        "app/auth.py",
    )
    text = run(*args)
    assert "as indexed: proj@" in text
    # Printed whole on a piped console of 80 columns: no figure cut to `10…`.
    assert "…" not in text and "100.0" in text and "hits_fn@10" in text
    assert "acc@k: every gold file or function within the first k" in text

    with_git = CliRunner().invoke(main, [*args, "--git", f"acme/proj={source}"])
    assert with_git.exit_code == 2 and "--as-indexed checks out no commit" in with_git.output
    # One repository asked for and one indexed under another name (serde-rs/json indexed
    # as serde_json) is that one; two asked for must each be found by name.
    tasks.write_text(json.dumps({**task, "repo": "acme/other"}) + "\n", encoding="utf-8")
    assert "acme/other: scored against 'proj', the index's only repository" in run(*args)
    third = {**task, "repo": "acme/third", "instance_id": "third-1"}
    tasks.write_text(
        json.dumps({**task, "repo": "acme/other"}) + "\n" + json.dumps(third) + "\n",
        encoding="utf-8",
    )
    unknown = CliRunner().invoke(main, args)
    assert unknown.exit_code == 1
    assert "no repository named 'other' in this index (it holds: proj)" in unknown.output
    assert "codecompass index PATH --name other" in unknown.output


def test_search_rerank_needs_a_model_and_reorders_with_it(repo: tuple[Path, Path]) -> None:
    _, data = repo
    base = ["search", "check a token against the secret", "--data-dir", str(data)]
    refused = CliRunner().invoke(main, [*base, "--rerank"], env={"CODECOMPASS_LLM_BASE_URL": ""})
    assert refused.exit_code == 1
    assert "[llm] base_url and model in" in refused.output and "config.toml" in refused.output

    plain = [loc(h) for h in json.loads(run(*base, "--json"))["results"]]
    assert len(plain) >= 2 and "rerank" not in json.loads(run(*base, "--json"))
    with fake_chat_server() as chat:
        env = {"CODECOMPASS_LLM_BASE_URL": chat.base_url, "CODECOMPASS_LLM_MODEL": "m"}
        chat.replies = ["c2 c1"]
        out = CliRunner().invoke(main, [*base, "--rerank", "--json"], env=env)
        assert out.exit_code == 0, out.output
        payload = json.loads(out.stdout)
        files = [f["path"] for f in json.loads(run(*base, "--files", "--json"))["files"]]
        chat.replies = ["c2 c1"]
        by_file = CliRunner().invoke(main, [*base, "--files", "--rerank", "--json"], env=env)
        chat.replies = ["c2"]
        explained = CliRunner().invoke(main, [*base, "--rerank", "--explain"], env=env)
        chat.status = 500
        failed = CliRunner().invoke(main, [*base, "--rerank", "--json"], env=env)
        human = CliRunner().invoke(main, [*base, "--rerank"], env=env)
    assert [loc(h) for h in payload["results"]] == [plain[1], plain[0], *plain[2:]]
    assert payload["results"][0]["why"]["rank_before_rerank"] == 2
    assert payload["rerank"]["used"] is True and payload["rerank"]["model"] == "fake-chat-1"
    assert payload["rerank"]["candidates"] == len(plain)
    # --files (--symbols) with --rerank: the model orders the files, one candidate each.
    assert by_file.exit_code == 0, by_file.output
    reordered = json.loads(by_file.stdout)
    assert len(files) >= 2 and [f["path"] for f in reordered["files"]][:2] == [files[1], files[0]]
    assert [h["path"] for h in reordered["results"]][:2] == [files[1], files[0]]
    assert explained.exit_code == 0 and "reranked: #2 before" in explained.stdout
    assert "reranked by fake-chat-1" in explained.stdout
    assert failed.exit_code == 0
    fallback = json.loads(failed.stdout)
    assert [loc(h) for h in fallback["results"]] == plain
    assert fallback["rerank"]["reason"].startswith("llm: Chat request to ")
    assert human.exit_code == 0 and "Not reranked: llm: Chat request" in human.stderr


def loc(hit: dict[str, object]) -> str:
    return f"{hit['path']}:{hit['start_line']}-{hit['end_line']}"


def test_a_raised_or_brought_forward_score_prints_its_own() -> None:
    """`--files` showed the first file at the best chunk's score, and a brought-forward
    item at the next one's, without saying so (an outside audit: "silently raised")."""
    assert raised_note({"own_score": 1.5, "first_as_best_chunk": True}) == " (own 1.5000)"
    assert raised_note({"chunks_matched": 3}) == ""
    assert own_note({"own_score": 2.54}) == "own 2.5400: "
    # The symbol view's first, the best chunk's symbol, says its own total too.
    assert own_note({"own_score": 2.7625, "first_as_best_chunk": True}) == "own 2.7625: "
    assert uses_note({"caller_of": "r/app/auth.py#verify_token"}) == "uses verify_token, "
    assert uses_note({"special_of": "r/core/symbol.py#Symbol"}) == "runs for Symbol, "
    assert uses_note({}) == ""
