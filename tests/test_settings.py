import re
from pathlib import Path

import pytest

from codecompass.errors import ConfigError
from codecompass.settings import load_settings, render_default_config


def test_defaults_when_no_file(tmp_path: Path) -> None:
    s = load_settings(tmp_path / "data", environ={})
    assert s.data_dir == (tmp_path / "data").resolve()
    assert s.embedder.provider == "onnx"
    assert s.index.max_file_bytes == 1024 * 1024
    assert s.search.top_k == 10


def test_file_then_environment(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        '[index]\nmax_file_bytes = 2048\nblock = ["docs/**"]\n[search]\ntop_k = 7\n',
        encoding="utf-8",
    )
    env = {"CODECOMPASS_SEARCH_TOP_K": "3", "CODECOMPASS_INDEX_ALLOW": "src/**, lib/**"}
    s = load_settings(tmp_path, environ=env)
    assert s.index.max_file_bytes == 2048
    assert s.index.block == ("docs/**",)
    assert s.index.allow == ("src/**", "lib/**")
    assert s.search.top_k == 3


def test_data_dir_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODECOMPASS_DATA_DIR", str(tmp_path / "elsewhere"))
    assert load_settings(None).data_dir == (tmp_path / "elsewhere").resolve()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[index\n", "not valid TOML"),
        ("[nope]\nx = 1\n", "unknown section(s) ['nope']"),
        ("[index]\nmax_bytes = 1\n", "unknown key(s) ['max_bytes'] in [index]"),
        ('[index]\nmax_file_bytes = "big"\n', "expected int, got 'big'"),
    ],
)
def test_bad_config_is_named(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "config.toml").write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_settings(tmp_path, environ={})


def test_bad_environment_value_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="CODECOMPASS_SEARCH_TOP_K: expected int"):
        load_settings(tmp_path, environ={"CODECOMPASS_SEARCH_TOP_K": "ten"})


def test_rendered_default_config_loads_back(tmp_path: Path) -> None:
    text = render_default_config()
    assert '# provider = "onnx"' in text
    (tmp_path / "config.toml").write_text(text.replace("# top_k = 10", "top_k = 4"), "utf-8")
    assert load_settings(tmp_path, environ={}).search.top_k == 4


def test_rerank_is_off_by_default_and_configurable(tmp_path: Path) -> None:
    llm = load_settings(tmp_path, environ={}).llm
    assert (llm.rerank, llm.rerank_candidates, llm.rerank_tokens, llm.rerank_timeout_s) == (
        False,
        30,
        2500,
        20.0,
    )
    (tmp_path / "config.toml").write_text(
        "[llm]\nrerank = true\nrerank_candidates = 20\n", encoding="utf-8"
    )
    llm = load_settings(tmp_path, environ={"CODECOMPASS_LLM_RERANK_TOKENS": "1200"}).llm
    assert (llm.rerank, llm.rerank_candidates, llm.rerank_tokens) == (True, 20, 1200)
