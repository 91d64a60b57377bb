"""Where "the same memory said twice" ends and "a related but different memory" begins:
the cosine threshold at which a new memory is a near-duplicate of a stored one
(`[memory] near_duplicate`).

The hand-written pairs in tests/fixtures/memory/pairs.json (20 paraphrases, 20 related
but different facts, four of each memory type) are embedded with the default embedder,
built as `Engine.embedder` builds it from `EmbedderSettings()` defaults (the shipped
int8 all-MiniLM-L6-v2; no network). Each memory is embedded as three texts:

- raw:       the content as the agent wrote it ("Decision: use ..." or "use ...");
- stripped:  the product's `memory.bank.dedupe_text`: a leading "Decision:"-style type
             label removed (agents write it only sometimes);
- typed:     stripped, then "<type>: " put back from the memory's type field, so every
             memory of a type carries the same label.

Decisions at a threshold t: `cosine` merges a pair when cos >= t; `guard` is
`memory.similarity.same_fact` (cos >= t unless the two texts' numbers conflict);
`guard+negation` is an experiment that also keeps a pair apart when only one side has a
negation word. Printed per variant: both sorted cosine distributions (min / median / max,
every value, every pair), and per rule the paraphrase pairs merged and the related pairs
kept apart at t = 0.70 .. 0.98, and the best thresholds: max min(merged, kept), then max
merged + kept, then the widest margin (distance from t to the nearest cosine of a pair
the cosine decides), so a tie goes to the threshold least likely to flip a pair.

The recommendation across variants and rules takes the best (min, sum); on a tie it
prefers the text the bank already embeds (stripped, then typed, then raw) and the
simpler rule (cosine, then guard), and only then the wider margin: a variant or rule is
worth a change only when it wins pairs, not thousandths of a cosine.

    .venv/bin/python benchmarks/memory_dedupe.py [--pairs PATH] [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from codecompass.embedders import create_embedder
from codecompass.memory.similarity import numbers_conflict, same_fact
from codecompass.protocols import Embedder
from codecompass.settings import EmbedderSettings

try:
    from codecompass.memory.bank import dedupe_text

    PREFIX_SOURCE = "codecompass.memory.bank.dedupe_text"
except ImportError:  # the bank does not import in this checkout: its regex, copied
    _TYPE_PREFIX = re.compile(r"^\s*(decision|pattern|error|fix|spec|context)\s*[:\-–]\s*", re.I)
    PREFIX_SOURCE = "copy of memory.bank's _TYPE_PREFIX (the bank did not import)"

    def dedupe_text(content: str) -> str:
        return _TYPE_PREFIX.sub("", content, count=1)


ROOT = Path(__file__).resolve().parent.parent
PAIRS = ROOT / "tests" / "fixtures" / "memory" / "pairs.json"
THRESHOLDS = [round(0.70 + i / 100, 2) for i in range(29)]  # 0.70 .. 0.98
VARIANTS = ("raw", "stripped", "typed")
PREFERENCE = {"stripped": 2, "typed": 1, "raw": 0, "cosine": 2, "guard": 1, "guard+negation": 0}
_NEGATION = re.compile(r"\b(?:not|no|never|none|nothing|nobody|without|cannot)\b|n't\b", re.I)

Pair = dict[str, str]
Rule = Callable[[Pair, float, float], bool]  # (pair, cosine, threshold) -> same memory?


def negation_differs(a: str, b: str) -> bool:
    return bool(_NEGATION.search(a)) != bool(_NEGATION.search(b))


RULES: dict[str, Rule] = {
    "cosine": lambda p, c, t: c >= t,
    "guard": lambda p, c, t: same_fact(p["a"], p["b"], c, t),
    "guard+negation": lambda p, c, t: (
        same_fact(p["a"], p["b"], c, t) and not negation_differs(p["a"], p["b"])
    ),
}


def default_embedder() -> Embedder:
    """The embedder `Engine.embedder` builds with default settings."""
    e = EmbedderSettings()
    return create_embedder(
        e.provider,
        e.model or None,
        base_url=e.base_url or None,
        api_key_env=e.api_key_env or None,
        dim=e.dim or None,
    )


def embed_text(content: str, kind: str, variant: str) -> str:
    if variant == "raw":
        return content
    if variant == "stripped":
        return dedupe_text(content)
    return f"{kind}: {dedupe_text(content)}"


def load_pairs(path: Path = PAIRS) -> dict[str, list[Pair]]:
    data: dict[str, list[Pair]] = json.loads(path.read_text(encoding="utf-8"))
    return data


def pair_cosines(embedder: Embedder, pairs: list[Pair], variant: str) -> list[float]:
    """Cosine of each pair's two texts (renormalised, so a dot product)."""
    texts = [embed_text(p[side], p["type"], variant) for p in pairs for side in ("a", "b")]
    vectors = np.asarray(embedder.embed(texts), dtype=np.float64)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return [float(vectors[2 * i] @ vectors[2 * i + 1]) for i in range(len(pairs))]


def counts(
    data: dict[str, list[Pair]], para: list[float], rel: list[float], rule: Rule, t: float
) -> tuple[int, int]:
    """(paraphrase pairs merged, related pairs kept apart) at threshold t."""
    merged = sum(rule(p, c, t) for p, c in zip(data["paraphrases"], para, strict=True))
    kept = sum(not rule(p, c, t) for p, c in zip(data["related"], rel, strict=True))
    return merged, kept


def margin(data: dict[str, list[Pair]], para: list[float], rel: list[float], t: float) -> float:
    """Distance from t to the nearest cosine of a pair the guard leaves to the cosine."""
    pairs = data["paraphrases"] + data["related"]
    free = [
        c for p, c in zip(pairs, para + rel, strict=True) if not numbers_conflict(p["a"], p["b"])
    ]
    return min(abs(c - t) for c in free)


def sweep(
    data: dict[str, list[Pair]], para: list[float], rel: list[float], rule: Rule
) -> dict[str, Any]:
    rows = []
    for t in THRESHOLDS:
        merged, kept = counts(data, para, rel, rule, t)
        rows.append(
            {
                "threshold": t,
                "merged": merged,
                "kept": kept,
                "margin": round(margin(data, para, rel, t), 4),
            }
        )
    top = max((min(r["merged"], r["kept"]), r["merged"] + r["kept"]) for r in rows)
    tied = [r for r in rows if (min(r["merged"], r["kept"]), r["merged"] + r["kept"]) == top]
    best = max(tied, key=lambda r: r["margin"])
    return {
        "rows": rows,
        "best_min": top[0],
        "best_sum": top[1],
        "tied": [r["threshold"] for r in tied],
        "best": best["threshold"],
    }


def distribution(values: list[float]) -> dict[str, Any]:
    ordered = sorted(values)
    return {
        "min": round(ordered[0], 4),
        "median": round(statistics.median(ordered), 4),
        "max": round(ordered[-1], 4),
        "values": [round(v, 4) for v in ordered],
    }


def measure(embedder: Embedder, data: dict[str, list[Pair]]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "model": embedder.model_id,
        "prefix_stripping": PREFIX_SOURCE,
        "pairs": {k: len(v) for k, v in data.items()},
        "variants": {},
    }
    for variant in VARIANTS:
        para = pair_cosines(embedder, data["paraphrases"], variant)
        rel = pair_cosines(embedder, data["related"], variant)
        out["variants"][variant] = {
            "paraphrases": distribution(para),
            "related": distribution(rel),
            "paraphrase_cosines": [round(c, 4) for c in para],
            "related_cosines": [round(c, 4) for c in rel],
            "rules": {name: sweep(data, para, rel, rule) for name, rule in RULES.items()},
        }
    # The recommendation: best (min, sum), then the current text and simpler rule, then margin.
    candidates = [
        (
            s["best_min"],
            s["best_sum"],
            PREFERENCE[v],
            PREFERENCE[r],
            s["rows"][THRESHOLDS.index(s["best"])]["margin"],
            v,
            r,
        )
        for v, entry in out["variants"].items()
        for r, s in entry["rules"].items()
    ]
    *_, variant, rule = max(candidates)
    best = out["variants"][variant]["rules"][rule]
    row = best["rows"][THRESHOLDS.index(best["best"])]
    out["recommended"] = {
        "variant": variant,
        "rule": rule,
        "threshold": best["best"],
        "merged": row["merged"],
        "kept": row["kept"],
        "margin": row["margin"],
        "tied": best["tied"],
    }
    return out


def report(result: dict[str, Any], data: dict[str, list[Pair]]) -> None:
    n_para, n_rel = result["pairs"]["paraphrases"], result["pairs"]["related"]
    print(f"model {result['model']}; {n_para} paraphrase pairs, {n_rel} related pairs")
    print(f"stripped = {result['prefix_stripping']}")
    for variant, entry in result["variants"].items():
        print(f"\n== variant: {variant}")
        for label in ("paraphrases", "related"):
            d = entry[label]
            print(f"  {label:<12} min {d['min']:.4f}  median {d['median']:.4f}  max {d['max']:.4f}")
            print("    sorted: " + " ".join(f"{v:.4f}" for v in d["values"]))
        print("  per pair (P paraphrase / R related; # = numbers conflict):")
        for label, key, cos_key in (
            ("P", "paraphrases", "paraphrase_cosines"),
            ("R", "related", "related_cosines"),
        ):
            for pair, cos in zip(data[key], entry[cos_key], strict=True):
                flag = "#" if numbers_conflict(pair["a"], pair["b"]) else " "
                head = f"    {label}{flag} {cos:.4f} {pair['type']:<8}"
                print(f"{head} {pair['a'][:52]} | {pair['b'][:52]}")
        names = list(entry["rules"])
        print("  thresh  " + "  ".join(f"{n + ' merged/kept':>26}" for n in names) + "  margin")
        for i, t in enumerate(THRESHOLDS):
            cells = []
            for n in names:
                r = entry["rules"][n]["rows"][i]
                mark = (
                    "*"
                    if t == entry["rules"][n]["best"]
                    else ("=" if t in entry["rules"][n]["tied"] else " ")
                )
                cells.append(f"{r['merged']:>2}/{n_para} {r['kept']:>2}/{n_rel}{mark}".rjust(26))
            print(
                f"  {t:.2f}    "
                + "  ".join(cells)
                + f"  {entry['rules'][names[0]]['rows'][i]['margin']:.4f}"
            )
        for n in names:
            s = entry["rules"][n]
            tied = ", ".join(f"{t:.2f}" for t in s["tied"])
            score = f"min {s['best_min']}, sum {s['best_sum']}"
            print(f"  best {n:<15} {s['best']:.2f} ({score}; tied: {tied})")
    rec = result["recommended"]
    print(
        f"\nrecommended: embed the {rec['variant']} text, rule {rec['rule']}, threshold "
        f"{rec['threshold']:.2f}: {rec['merged']}/{n_para} paraphrases merged, "
        f"{rec['kept']}/{n_rel} related kept apart (margin {rec['margin']:.4f}; tied on counts: "
        + ", ".join(f"{t:.2f}" for t in rec["tied"])
        + ")"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    data = load_pairs(args.pairs)
    result = measure(default_embedder(), data)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
    else:
        report(result, data)


if __name__ == "__main__":
    main()
