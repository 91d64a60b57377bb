"""Test evidence in the file view: the best test files vouch for the files they test."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from codecompass.engine import Engine
from codecompass.indexing.languages import name_under_test
from codecompass.schemas import FileHit
from codecompass.search.candidates import files_under_test
from codecompass.search.rank import file_scores, raise_files
from codecompass.search.retrieve import SearchResult
from tests.conftest import make_git_repo


def test_a_test_file_names_the_file_it_tests() -> None:
    assert name_under_test("sympy/printing/tests/test_ccode.py") == "ccode.py"
    assert name_under_test("pkg/rounding_test.py") == "rounding.py"
    assert name_under_test("mux_test.go") == "mux.go"
    assert name_under_test("src/app.spec.ts") == "app.ts"
    assert name_under_test("src/__tests__/button.test.jsx") == "button.jsx"
    assert name_under_test("spec/models/user_spec.rb") == "user.rb"
    assert name_under_test("src/test/java/org/ParserTest.java") == "Parser.java"
    assert name_under_test("src/test/java/org/TestParser.java") == "Parser.java"
    # A file in a test folder without a test name tests its namesake.
    assert name_under_test("tests/cli.py") == "cli.py"
    # Not a test, a fixture module, or nothing left of the name.
    for path in (
        "pkg/rounding.py",
        "tests/conftest.py",
        "pkg/tests/__init__.py",
        "tests/test_.py",
        "Testing.java",
    ):
        assert name_under_test(path) is None


def test_a_test_vouches_for_its_nearest_namesake() -> None:
    paths = [
        "sympy/printing/ccode.py",
        "sympy/codegen/ccode.py",
        "sympy/printing/tests/test_ccode.py",
        "sklearn/linear_model/_logistic.py",
        "lib/a/util.py",
        "lib/b/util.py",
        "lib/c/util.py",
    ]
    # The namesake sharing the longest folder once `tests/` is left out.
    assert files_under_test("sympy/printing/tests/test_ccode.py", paths) == [
        "sympy/printing/ccode.py"
    ]
    # Python's private module counts as the namesake.
    assert files_under_test("sklearn/linear_model/tests/test_logistic.py", paths) == [
        "sklearn/linear_model/_logistic.py"
    ]
    # Two at the same depth are both named; three say nothing.
    assert files_under_test("tests/test_util.py", paths[4:6]) == ["lib/a/util.py", "lib/b/util.py"]
    assert files_under_test("tests/test_util.py", paths) == []
    assert files_under_test("tests/test_missing.py", paths) == []
    assert files_under_test("sympy/printing/ccode.py", paths) == []


def test_a_namesake_in_a_sibling_package_is_not_the_file_under_test() -> None:
    paths = [
        "astropy/io/ascii/core.py",
        "astropy/io/registry/core.py",
        "astropy/units/function/units.py",
        "astropy/units.py",
        "src/_pytest/fixtures.py",
    ]
    # `io/fits` tests have no `core.py` of their own: the siblings' are not theirs.
    assert files_under_test("astropy/io/fits/tests/test_core.py", paths) == []
    # Below the test's folder, or above it, a namesake is its own.
    assert files_under_test("astropy/units/tests/test_units.py", paths) == [
        "astropy/units/function/units.py"
    ]
    assert files_under_test("astropy/units/quantity/tests/test_units.py", paths[3:4]) == [
        "astropy/units.py"
    ]
    # Tests under their own root name the code under another...
    assert files_under_test("testing/python/fixtures.py", paths) == ["src/_pytest/fixtures.py"]
    # ...but tests inside a package test that package.
    xarray = ["xarray/core/dataset.py", "asv_bench/benchmarks/coding.py"]
    assert files_under_test("xarray/tests/test_coding.py", xarray) == []
    assert files_under_test("tests/test_coding.py", xarray) == ["asv_bench/benchmarks/coding.py"]


def test_a_tests_tree_that_mirrors_the_package_names_the_mirrored_folder() -> None:
    paths = [
        "django/forms/forms.py",
        "django/contrib/auth/forms.py",
        "django/contrib/admin/forms.py",
        "django/contrib/flatpages/forms.py",
        "pylint/lint/utils.py",
        "pylint/checkers/utils.py",
    ]
    assert files_under_test("tests/auth_tests/test_forms.py", paths) == [
        "django/contrib/auth/forms.py"
    ]
    assert files_under_test("tests/forms_tests/tests/test_forms.py", paths) == [
        "django/forms/forms.py"
    ]
    assert files_under_test("tests/lint/test_utils.py", paths) == ["pylint/lint/utils.py"]
    # No folder to go by: four namesakes tie and none is named.
    assert files_under_test("tests/test_forms.py", paths) == []


def test_a_bonus_raises_a_file_but_the_best_chunk_still_leads_unless_clearly_passed() -> None:
    scored = [("a", 1.0), ("b", 0.9), ("b", 0.1), ("c", 0.7), ("d", 0.5)]
    plain = file_scores(scored, 0.5)
    assert [(k, round(v, 4)) for k, v in plain] == [("a", 1.0), ("b", 0.95), ("c", 0.7), ("d", 0.5)]
    raised = raise_files(plain, {"d": 0.6, "a": 0.1}, "a")
    assert [(k, round(v, 4)) for k, v in raised] == [
        ("a", 1.1),
        ("d", 1.1),
        ("b", 0.95),
        ("c", 0.7),
    ]
    # A bonus of more than LEAD_MARGIN above the lead's total passes it.
    assert [k for k, _ in raise_files(plain, {"c": 5.0}, "a")] == ["c", "a", "b", "d"]


ROUNDING = '''"""Decimal helpers."""


def quantize_half_even(value, places):
    """Nearest representable value, ties to the even neighbour."""
    scale = 10**places
    whole, rest = divmod(value * scale, 1)
    if rest > 0.5 or (rest == 0.5 and whole % 2):
        whole += 1
    return whole / scale
'''
INVOICE = '''"""Invoices."""


def invoice_total(lines):
    """Sum the invoice lines and round the total for display."""
    return round(sum(line.amount for line in lines), 2)


def invoice_lines(order):
    return [item for item in order.items if item.amount]
'''
REPORTS = '''"""Reports."""


def totals_report(invoices):
    """One line per invoice with its total, for the bank export."""
    return [f"{inv.number}: {inv.total:.2f}" for inv in invoices]
'''
TEST_ROUNDING = """from shop.money.rounding import quantize_half_even


def test_ties_go_to_the_even_neighbour():
    assert quantize_half_even(0.125, 2) == 0.12
    assert quantize_half_even(0.135, 2) == 0.14
    assert quantize_half_even(2.5, 0) == 2
"""
ISSUE = """Invoice totals round ties the wrong way

An invoice with a single line of 0.125 shows a total of 0.13; banks expect 0.12 (ties
to the even neighbour). Smaller cases show it too:

    >>> from shop import money
    >>> money.round_total(0.125)
    0.13
    >>> money.round_total(2.5)
    3.0
"""


def test_the_file_a_matching_test_tests_rises_in_the_file_view(tmp_path: Path) -> None:
    """The issue's example reads like `test_rounding.py`, which tests `rounding.py`;
    the real model ranks the files of invoices and reports above it until the test
    vouches for it. The symbol view and the hits do not take test evidence."""
    repo = make_git_repo(
        tmp_path / "shop",
        {
            "shop/money/rounding.py": ROUNDING,
            "shop/invoices.py": INVOICE,
            "shop/reports.py": REPORTS,
            "shop/money/tests/test_rounding.py": TEST_ROUNDING,
        },
    )
    eng, root = Engine.for_repo(repo, data_dir=tmp_path / "data")
    with eng:
        eng.index(root)
        assert eng.settings.search.file_tested == 0.5
        # `totals_report` is three lines, which the `short` weight (-0.2) sinks on its
        # own; what is measured here is the test evidence, so that weight is off.
        search = replace(eng.settings.search, weight_short=0.0)
        eng.settings = replace(eng.settings, search=search)
        on = eng.retrieve(ISSUE, eng.search_options(k=5))
        eng.settings = replace(eng.settings, search=replace(search, file_tested=0.0))
        off = eng.retrieve(ISSUE, eng.search_options(k=5))
        eng.settings = replace(eng.settings, search=replace(search, file_tested=2.0))
        strong = eng.retrieve(ISSUE, eng.search_options(k=5))

    def by_path(result: SearchResult) -> dict[str, FileHit]:
        return {f.path: f for f in result.files}

    assert [f.path for f in off.files][:3] == [
        "shop/invoices.py",
        "shop/reports.py",
        "shop/money/rounding.py",
    ]
    assert "tested_by" not in by_path(off)["shop/money/rounding.py"].why
    tested = by_path(on)["shop/money/rounding.py"]
    why = tested.why["tested_by"]
    assert why["path"] == "shop/money/tests/test_rounding.py"
    assert 0 < why["relevance"] <= 1
    assert why["contribution"] == pytest.approx(0.5 * why["relevance"], abs=1e-4)
    before = by_path(off)["shop/money/rounding.py"].score
    assert tested.score == pytest.approx(before + why["contribution"], abs=1e-4)
    # The tested file passes the reports, not the best chunk's file; a stronger test
    # (a total more than LEAD_MARGIN higher) passes that too.
    assert [f.path for f in on.files][:3] == [
        "shop/invoices.py",
        "shop/money/rounding.py",
        "shop/reports.py",
    ]
    assert [f.path for f in strong.files][:3] == [
        "shop/money/rounding.py",
        "shop/invoices.py",
        "shop/reports.py",
    ]
    assert [(h.path, h.symbol, h.score) for h in on.hits] == [
        (h.path, h.symbol, h.score) for h in off.hits
    ]
    assert on.symbols == off.symbols
