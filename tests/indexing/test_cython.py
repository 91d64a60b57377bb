"""Cython files are code (`indexing/cython.py`; its symbols are checked with the other
languages' fixtures in `test_languages_v2.py`)."""

from __future__ import annotations

from codecompass.indexing.languages import declared_code, language_for_path


def test_cython_files_are_code_and_a_pxd_declares_its_pyx() -> None:
    assert language_for_path("sklearn/linear_model/_sgd_fast.pyx") == "cython"
    assert language_for_path("sklearn/utils/_typedefs.pxd") == "cython"
    assert language_for_path("sklearn/tree/_utils.pxi") == "cython"
    assert declared_code("sklearn/tree/_tree.pxd") == ("sklearn/tree/_tree.pyx",)
