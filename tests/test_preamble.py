"""What counts as a file's head (imports, includes, package and namespace lines)."""

from __future__ import annotations

import pytest

from codecompass.preamble import only_preamble, preamble_end

HEADS = {
    "php": "<?php\n\nnamespace App\\Http;\n\nuse Closure;\nuse Illuminate\\Http\\Request;",
    "csharp": "namespace eShop.Ordering.API;",
    "csharp block": "namespace Shop.Web\n{\n    ...\n}",
    "csharp global": "global using System.Linq;\nglobal using Clock = Shop.SystemClock;",
    "python": "from __future__ import annotations\n\nimport os\nfrom .core import *",
    "go": 'package main\n\nimport (\n\t"fmt"\n\t"os"\n)',
    "rust": "use std::io;\npub mod cli;\nmod util;\nextern crate x;\npub(crate) use a::b;",
    "javascript": "'use strict'\nconst x = require('x')\nimport y from 'y'",
    "c": "#pragma once\n#include <stdio.h>",
    "comments": "// Licensed under MIT\nimport os\n# why os",
}
NOT_HEADS = {
    "a statement": "import os\n__all__ = ['x']",
    "code only": "x = 1",
    "a main guard": "import sys\nif __name__ == '__main__':\n    main()",
    "a namespace with code": "namespace App;\n\nfunction helper() {}",
    "empty": "\n\n",
}


@pytest.mark.parametrize("text", HEADS.values(), ids=HEADS.keys())
def test_a_files_head_alone_is_preamble(text: str) -> None:
    assert only_preamble(text)


@pytest.mark.parametrize("text", NOT_HEADS.values(), ids=NOT_HEADS.keys())
def test_anything_else_is_not(text: str) -> None:
    assert not only_preamble(text)


def test_preamble_end_stops_before_code_and_leaves_its_comment() -> None:
    lines = ["import os", "# the loader", "import sys", "# reads argv", "main(sys.argv)"]
    assert preamble_end(lines, 0) == 3
    assert preamble_end(lines, 4) == 4
