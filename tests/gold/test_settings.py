"""settings.yaml: models, YAML with positions, workflow files, the configuration digest and
`goldgate validate`. Nothing the settings name is imported or run."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from goldgate.base.errors import InvalidInputError
from goldgate.gold.errors import YamlSyntaxError
from goldgate.gold.settings import SettingsError, load_settings
from goldgate.gold.settings.yamlfile import load_yaml_file

WORKFLOW_FILE = """\
revision: r1
target:
  python: app.main:handle
flows:
  main:
    steps:
      classify: {}
      units:
        collection: [route]
"""

SETTINGS_WITH_FILE = """\
workflows:
  triage: triage/workflow.yaml
scorers:
  casefold:
    import: app.scorers:casefold
    revision: "1"
"""

REFORMATTED = """\
# The same settings, written differently: comments, flow style, other key order, quoting.
scorers: {casefold: {revision: '1', import: "app.scorers:casefold"}}

workflows:
  triage:   # the one workflow
    flows: {main: {steps: {units: {collection: ['route']}, classify: {}}}}
    target: {python: 'app.main:handle'}
    revision: "r1"
"""


def digest(project: Any) -> str:
    return load_settings(project.root / project.SETTINGS).configuration_digest


def test_the_baseline_loads(gold_project: Any) -> None:
    loaded = load_settings(gold_project.write().root / gold_project.SETTINGS)

    assert set(loaded.workflows) == {"triage"}
    workflow = loaded.workflows["triage"]
    assert workflow.target.kind == "python"
    assert workflow.live is False
    assert workflow.flows["main"].steps["units"].collection == ["route"]
    assert loaded.settings.scorers["casefold"].import_path == "app.scorers:casefold"
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", loaded.configuration_digest)
    assert loaded.dataset_path == gold_project.root / "evaluation" / "dataset.json"
    assert loaded.project_root == gold_project.root


def test_the_example_loads(repo_root: Path) -> None:
    loaded = load_settings(repo_root / "examples/support_triage/config/settings.yaml")

    assert set(loaded.workflows) == {
        "support_triage",
        "support_triage_cli",
        "answer_live",
        "tone_judge",
    }
    assert {name: w.target.kind for name, w in loaded.workflows.items()} == {
        "support_triage": "python",
        "support_triage_cli": "command",
        "answer_live": "http",
        "tone_judge": "model",
    }
    assert loaded.workflows["answer_live"].live is True
    assert loaded.workflows["answer_live"].credentials == ["OPENAI_API_KEY"]
    assert set(loaded.workflow_files) == {"support_triage"}
    assert loaded.settings.judges["tone"].workflow == "tone_judge"


# --- the digest -----------------------------------------------------------------------------------


def test_validate_prints_the_digest(gold_project: Any, run_cli: Any) -> None:
    expected = digest(gold_project.write())

    text = run_cli("validate", cwd=gold_project.root)
    machine = run_cli("validate", "--format", "json", cwd=gold_project.root)

    assert text.code == 0
    assert text.stdout.splitlines() == [
        "settings OK: config/settings.yaml (1 workflows: triage)",
        f"configuration digest: {expected}",
    ]
    assert machine.code == 0
    payload = json.loads(machine.stdout)
    assert payload["ok"] is True
    assert payload["configuration_digest"] == expected
    assert payload["workflows"] == ["triage"]
    assert payload["scorers"] == ["casefold"]


def test_digest_ignores_formatting_comments_and_key_order(gold_project: Any) -> None:
    before = digest(gold_project.write())

    gold_project.settings = REFORMATTED

    assert digest(gold_project.write()) == before


def test_digest_ignores_the_dataset_path_and_the_schema_comment(gold_project: Any) -> None:
    before = digest(gold_project.write())

    gold_project.settings = (
        "$schema: ../schemas/settings.schema.json\n"
        + gold_project.settings
        + "evaluation:\n  dataset: ../../reviewed-gold/support.json\n"
    )
    loaded = load_settings(gold_project.write().root / gold_project.SETTINGS)

    assert loaded.configuration_digest == before
    assert loaded.dataset_path == gold_project.root / "config/../../reviewed-gold/support.json"


def test_dataset_path_is_literal_never_environment_expanded(
    gold_project: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOLD", "/somewhere/else")
    gold_project.settings += "evaluation:\n  dataset: $GOLD/gold.json\n"

    loaded = load_settings(gold_project.write().root / gold_project.SETTINGS)

    assert loaded.dataset_path == gold_project.root / "config" / "$GOLD" / "gold.json"


def test_digest_changes_with_what_the_application_does(gold_project: Any) -> None:
    before = digest(gold_project.write())

    gold_project.settings = gold_project.settings.replace("app.main:handle", "app.main:other")

    assert digest(gold_project.write()) != before


def test_workflow_file_is_inlined_in_the_digest(gold_project: Any) -> None:
    inline = digest(gold_project.write())

    gold_project.settings = SETTINGS_WITH_FILE
    gold_project.put("config/triage/workflow.yaml", WORKFLOW_FILE)
    referenced = digest(gold_project.write())

    assert referenced == inline


def test_digest_follows_the_workflow_file_content(gold_project: Any) -> None:
    gold_project.settings = SETTINGS_WITH_FILE
    workflow = gold_project.put("config/triage/workflow.yaml", WORKFLOW_FILE)
    before = digest(gold_project.write())

    workflow.write_text("# only a comment more\n" + WORKFLOW_FILE, encoding="utf-8")
    assert digest(gold_project) == before

    workflow.write_text(WORKFLOW_FILE.replace("revision: r1", "revision: r2"), encoding="utf-8")
    assert digest(gold_project) != before


def test_validate_json_lists_the_workflow_file_problems(gold_project: Any, run_cli: Any) -> None:
    gold_project.settings = SETTINGS_WITH_FILE
    gold_project.put("config/triage/workflow.yaml", WORKFLOW_FILE + "colour: red\n")
    gold_project.write()

    result = run_cli("validate", "--format", "json", cwd=gold_project.root)

    assert result.code == 2
    assert json.loads(result.stdout) == {
        "ok": False,
        "violations": [
            {
                "file": "config/triage/workflow.yaml",
                "line": 10,
                "column": 1,
                "pointer": "/colour",
                "message": 'unknown key "colour"; check its spelling against the schema',
            }
        ],
    }


# --- nothing is imported, run or constructed -----------------------------------------------------


def test_unsafe_yaml_is_refused_not_executed(gold_project: Any) -> None:
    marker = gold_project.root / "executed"
    gold_project.settings = gold_project.settings.replace(
        "revision: r1", f"revision: !!python/object/apply:os.mkdir [{str(marker)!r}]"
    )

    with pytest.raises(SettingsError) as raised:
        load_settings(gold_project.write().root / gold_project.SETTINGS)

    assert not marker.exists()
    (violation,) = raised.value.violations
    assert (violation.line, violation.column) == (3, 15)
    assert "could not determine a constructor" in violation.message


def test_targets_and_scorers_are_not_imported(gold_project: Any) -> None:
    gold_project.settings = gold_project.settings.replace(
        "app.main:handle", "goldgate_no_such_module.anywhere:handle"
    )

    loaded = load_settings(gold_project.write().root / gold_project.SETTINGS)

    assert loaded.workflows["triage"].target.python == "goldgate_no_such_module.anywhere:handle"


# --- errors: every one, in order, in one sentence each -------------------------------------------


def test_settings_error_lists_every_violation_sorted(
    gold_project: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(gold_project.root)  # files are shown relative to the working folder
    gold_project.settings = (
        gold_project.settings.replace("revision: r1", "revision: 1")
        .replace("app.scorers:casefold", "casefold")
        .replace("    flows:", "    live: maybe\n    flows:")
    )

    with pytest.raises(SettingsError) as raised:
        load_settings(gold_project.write().root / gold_project.SETTINGS)

    rendered = [v.render() for v in raised.value.violations]
    assert rendered == [
        "config/settings.yaml:3:5: expected a string, found number (at /workflows/triage/revision)",
        "config/settings.yaml:6:5: expected true or false, found string "
        "(at /workflows/triage/live)",
        'config/settings.yaml:15:5: "casefold" is not an import path of the form '
        "'package.module:attribute' (at /scorers/casefold/import)",
    ]
    assert str(raised.value).endswith("\n3 problems in the settings.")
    assert raised.value.exit_code == 2


def test_union_branches_never_leak_into_pointers(gold_project: Any) -> None:
    """An inline workflow is one branch of `WorkflowSettings | str`: one mistake in it is one
    violation at its real place, not one per branch under the branch's name."""
    gold_project.settings = gold_project.settings.replace("    revision: r1\n", "")

    with pytest.raises(SettingsError) as raised:
        load_settings(gold_project.write().root / gold_project.SETTINGS)

    assert [(v.pointer, v.message) for v in raised.value.violations] == [
        ("/workflows/triage/revision", "missing required key 'revision'")
    ]


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        pytest.param("a: [1\n", (2, 1), "expected ',' or ']', but got '<stream end>'", id="flow"),
        pytest.param("a: 1\nb: 2\na: 3\n", (3, 1), 'duplicate key "a"', id="duplicate"),
        pytest.param("a:\n  b: 1\n  b: 2\n", (3, 3), 'duplicate key "b"', id="nested-duplicate"),
        pytest.param("a: *nowhere\n", (1, 4), "found undefined alias 'nowhere'", id="alias"),
    ],
)
def test_yaml_problems_have_a_place(
    tmp_path: Path, text: str, where: tuple[int, int], message: str
) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")

    with pytest.raises(YamlSyntaxError) as raised:
        load_yaml_file(path, "s.yaml")

    assert (raised.value.line, raised.value.column) == where
    assert raised.value.message == message
    assert str(raised.value) == f"s.yaml:{where[0]}:{where[1]}: {message}."


def test_yaml_positions(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("a:\n  b: [x, {c: 1}]\n  'd e': null\n", encoding="utf-8")

    document = load_yaml_file(path)

    assert document.value == {"a": {"b": ["x", {"c": 1}], "d e": None}}
    assert document.position(("a", "b")) == (2, 3)
    assert document.position(("a", "b", 1)) == (2, 10)
    assert document.position(("a", "b", 1, "c")) == (2, 11)
    assert document.position(("a", "d e")) == (3, 3)
    assert document.position(("a", "zz")) == (2, 3)
    assert document.position(()) == (1, 1)


def test_yaml_is_parsed_once_indexed_as_written_and_refused_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One parse gives the value and the places: the tree is indexed before the value is
    built from it (building folds ``<<`` keys into it, and an overriding key is no
    duplicate), and what building refuses is said before a duplicate key after it."""
    import yaml

    readers: list[object] = []
    original = yaml.reader.Reader.__init__

    def counted(self: Any, stream: Any) -> None:
        readers.append(stream)
        original(self, stream)

    monkeypatch.setattr(yaml.reader.Reader, "__init__", counted)
    merged = tmp_path / "merged.yaml"
    merged.write_text("base: &b {a: 1, b: 2}\nx:\n  <<: *b\n  b: 3\n", encoding="utf-8")

    document = load_yaml_file(merged)

    assert len(readers) == 1
    assert document.value == {"base": {"a": 1, "b": 2}, "x": {"a": 1, "b": 3}}
    assert document.position(("x", "b")) == (4, 3)
    assert document.position(("x", "<<")) == (3, 3)
    assert document.position(("x", "a")) == (3, 3)  # a merged key: its mapping's place
    both = tmp_path / "both.yaml"
    both.write_text("a: 1\na: 2\nd: 2020-13-01\n", encoding="utf-8")
    with pytest.raises(YamlSyntaxError) as raised:
        load_yaml_file(both, "both.yaml")
    assert str(raised.value) == "both.yaml:3:4: cannot load this value (month must be in 1..12)."
    duplicate = tmp_path / "duplicate.yaml"
    duplicate.write_text("a: 1\na: 2\n", encoding="utf-8")
    with pytest.raises(YamlSyntaxError) as raised:
        load_yaml_file(duplicate, "duplicate.yaml")
    assert str(raised.value) == 'duplicate.yaml:2:1: duplicate key "a".'


def test_unreadable_yaml(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match=r"^nope\.yaml: file not found\.$"):
        load_yaml_file(tmp_path / "nope.yaml", "nope.yaml")
    (tmp_path / "latin1.yaml").write_bytes(b"a: \xe9\nb: caf\xc3\xa9 \xff\n")
    with pytest.raises(InvalidInputError) as refused:
        load_yaml_file(tmp_path / "latin1.yaml", "latin1.yaml")
    assert str(refused.value) == "latin1.yaml:1:4: not UTF-8 text (byte 0xe9)."
    (tmp_path / "later.yaml").write_bytes(b"a: 1\nb: caf\xc3\xa9 \xff\n")
    with pytest.raises(InvalidInputError) as refused:
        load_yaml_file(tmp_path / "later.yaml", "later.yaml")
    assert str(refused.value) == "later.yaml:2:9: not UTF-8 text (byte 0xff)."  # characters
