"""The operation registry: one record per operation, nothing dispatches on operation names elsewhere."""

from __future__ import annotations

import ast
import dataclasses
import random
from pathlib import Path

import pytest

from dhp.builder.build import check_methods
from dhp.builder.perturb.base import Perturbed
from dhp.builder.perturb.registry import REGISTRY, OperationRecord, build_prompt, lookup, validate
from dhp.builder.perturb.validate import check_replacement_text
from dhp.data.items import Item
from dhp.errors import BuildError, DataError, SpecError
from dhp.spec import BENCHMARK
from dhp.types import Method, Operation, PairRow, Severity, row_columns

PACKAGE = Path(__file__).resolve().parents[2] / "dhp"
#: the modules allowed to name operations one by one: where the enum is declared, where each becomes
#: code, and the built-in dataset declarations (which construct perturbations, never compare them)
DECLARING = {"types.py", "builder/perturb/registry.py", "spec.py"}
VALUES = {op.value for op in Operation}


def test_every_operation_has_exactly_one_record() -> None:
    assert list(REGISTRY) == list(Operation)
    assert all(rec.operation is op for op, rec in REGISTRY.items())


def test_a_record_must_match_its_method() -> None:
    with pytest.raises(SpecError, match="a rule operation needs a rule"):
        OperationRecord(Operation.CHAR_TYPO, check_replacement_text)
    rule, llm = lookup(Operation.CHAR_TYPO), lookup(Operation.GRAMMATICAL_ERRORS)
    with pytest.raises(SpecError, match="a rule operation needs a rule"):  # the method is the spec's fact
        dataclasses.replace(rule, rule=None, offline=llm.offline, prompt=llm.prompt)
    with pytest.raises(SpecError, match="an LLM operation needs an offline generator"):
        dataclasses.replace(llm, rule=rule.rule)


def test_records_refuse_what_their_method_lacks() -> None:
    spec = BENCHMARK["summeval"]
    rule = spec.perturbation("char_typo_minor")
    with pytest.raises(ValueError, match="rule-based and has no LLM prompt"):
        build_prompt(spec, rule, "A text.")
    with pytest.raises(ValueError, match="no offline generator for operation 'char_typo'"):
        lookup(rule.operation).apply_offline("A text.", Severity.MINOR, random.Random(1))
    llm = spec.perturbation("word_grammar_minor")
    item = Item("i", "He goes home. She stays.", {})
    with pytest.raises(SpecError, match="is not a rule operation"):
        lookup(llm.operation).apply_rule(llm, item, [], random.Random(1))


def test_rule_records_apply_and_pass_their_own_check() -> None:
    text = "The council met on Monday. It approved the budget. Residents asked for parks."
    item = Item("a", text, {})
    pool = [("a", text), ("b", "Another text entirely.")]
    for p in BENCHMARK["summeval"].perturbations:
        rec = lookup(p.operation)
        if rec.method is Method.RULE:
            out = rec.apply_rule(p, item, pool, random.Random(3))
            assert isinstance(out, Perturbed) and out.text != text, p.id
            assert validate(p, text, out.text).ok, p.id


def test_validate_refuses_empty_and_unchanged_before_the_check() -> None:
    p = BENCHMARK["summeval"].perturbation("char_deletion_minor")
    assert validate(p, "Some text.", "  ").reason == "the perturbed text is empty"
    assert validate(p, "Some text.", "Some text.").reason == "the perturbed text equals the original"


def test_built_in_datasets_declare_the_registry_methods() -> None:
    for spec in BENCHMARK.values():
        check_methods(spec)  # raises on a mismatch
    spec = BENCHMARK["summeval"]
    perts = tuple(
        dataclasses.replace(p, method=Method.LLM) if p.id == "char_typo_minor" else p
        for p in spec.perturbations
    )
    bad = dataclasses.replace(spec, perturbations=perts)
    with pytest.raises(BuildError, match="declares method 'llm', but 'char_typo' is a rule operation"):
        check_methods(bad)


def _dispatch_sites(tree: ast.AST) -> list[int]:
    """Lines comparing against an operation (``Operation.X`` or its string value), keying a dict by an
    ``Operation.X`` or listing several (a hand-made group of operations)."""

    def is_member(node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "Operation"
        )

    def names_op(node: ast.AST) -> bool:
        return is_member(node) or (isinstance(node, ast.Constant) and node.value in VALUES)

    lines = []
    for node in ast.walk(tree):
        if (
            (isinstance(node, ast.Compare) and any(names_op(n) for n in (node.left, *node.comparators)))
            or (isinstance(node, ast.Dict) and any(k is not None and is_member(k) for k in node.keys))
            or (isinstance(node, (ast.Set, ast.Tuple, ast.List)) and sum(map(is_member, node.elts)) > 1)
        ):
            lines.append(node.lineno)
    return lines


def test_no_dispatch_on_operation_names_outside_the_registry() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel not in DECLARING:
            found += [f"{rel}:{line}" for line in _dispatch_sites(ast.parse(path.read_text("utf-8")))]
    assert found == []


def test_the_dispatch_scan_finds_a_dispatch() -> None:
    code = (
        "if p.operation is Operation.CHAR_TYPO: pass\n"
        "x = {Operation.WRONG_ENDING: 1}\n"
        "y = op == 'sentence_reorder'\n"
        "z = (Operation.CHAR_TYPO, Operation.CHAR_DELETION)\n"
    )
    assert _dispatch_sites(ast.parse(code)) == [1, 2, 3, 4]


def test_pair_row_columns_are_its_fields_with_context_spread() -> None:
    spec = BENCHMARK["summeval"]
    cols = row_columns(spec)
    names = [f.name for f in dataclasses.fields(PairRow)]
    assert cols == (names[0], *(c.name for c in spec.context_fields), *names[2:])
    row = PairRow(
        "i1",
        {c.name: "ctx" for c in spec.context_fields},
        "A b.",
        "A.",
        "p",
        "W",
        "rule",
        "minor",
        "rule",
        "{}",
    )
    rec = row.record()
    assert tuple(rec) == cols
    assert PairRow.from_record(rec, [c.name for c in spec.context_fields], "here") == row


def test_pair_row_reading_refuses_missing_and_non_string_columns() -> None:
    rec = PairRow("i1", {}, "A b.", "A.", "p").record()
    assert PairRow.from_record(rec, [], "x").generator is None  # descriptive columns may be absent
    del rec["perturbed"]
    with pytest.raises(DataError, match=r"here: a row lacks the columns \['perturbed'\]"):
        PairRow.from_record(rec, [], "here")
    with pytest.raises(DataError, match=r"non-strings in \['original'\]"):
        PairRow.from_record({**PairRow("i1", {}, "A b.", "A.", "p").record(), "original": 3}, [], "here")
