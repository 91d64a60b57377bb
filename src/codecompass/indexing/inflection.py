"""Rails's names for one thing: a model `PlaidAccount`, its table and resources
`plaid_accounts`, one of them `plaid_account` (associations in `rules.py`, routes in
`graph/route_tables.py`). English plurals by their common endings, not Rails's whole
inflector: `people` is not `person`."""

from __future__ import annotations


def singular(word: str) -> str:
    """`entries` → `entry`, `matches` → `match`, `accounts` → `account`."""
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def plural(word: str) -> str:
    """`session` → `sessions`, `transfer_match` → `transfer_matches`, `entry` →
    `entries`; a word ending in `s` stays."""
    if word.endswith("s"):
        return word
    if word.endswith(("ch", "sh", "x", "z")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def camel(word: str) -> str:
    """`plaid_account` → `PlaidAccount`."""
    return "".join(part[:1].upper() + part[1:] for part in word.split("_"))
