"""``goldgate validate`` and ``goldgate evaluate --check``: settings and gold checked offline
(nothing imported or run), every violation listed with its place, or a one-line count."""

from __future__ import annotations

from pathlib import Path

from goldgate.app.conclude import (
    emit_json,
    emit_text,
    refusal_json,
    violations_listing,
)
from goldgate.base import english
from goldgate.base.errors import (
    ExitCode,
    GoldgateError,
    InvalidInputError,
)
from goldgate.base.memory import long_lived
from goldgate.base.problems import Violation, display_path, sort_violations
from goldgate.gold.errors import SettingsError
from goldgate.gold.settings.load import LoadedSettings, load_settings


def load_for_check(
    config: Path, json_output: bool, github: bool = False
) -> LoadedSettings | ExitCode:
    """The settings, or their problems listed as a check's output (exit 2). A file that
    cannot be read at all is an error like any other, in JSON when JSON was asked for."""
    try:
        return load_settings(config)
    except SettingsError as error:
        return violations_listing(error.violations, json_output, github)
    except InvalidInputError as error:
        if not json_output:
            raise
        return refusal_json(error)


def validate_settings(config: Path, *, json_output: bool, github: bool = False) -> ExitCode:
    """``goldgate validate``: the settings' problems, or their digest."""
    loaded = load_for_check(config, json_output, github)
    if isinstance(loaded, ExitCode):
        return loaded
    if json_output:
        emit_json(
            {
                "ok": True,
                "settings": str(loaded.path),
                "configuration_digest": loaded.configuration_digest,
                "workflows": sorted(loaded.workflows),
                "scorers": sorted(loaded.settings.scorers),
                "dataset": str(loaded.dataset_path),
            }
        )
    else:
        workflows = ", ".join(sorted(loaded.workflows))
        emit_text(f"settings OK: {loaded.path} ({len(loaded.workflows)} workflows: {workflows})")
        emit_text(f"configuration digest: {loaded.configuration_digest}")
    return ExitCode.PASSED


def gold_without_settings(config: Path, dataset: Path | None) -> list[Violation]:
    """The problems of the gold itself when the settings did not load: of ``dataset``, else
    of the gold the settings name (read as plain YAML) or the default, when it is there.
    Nothing that needs the settings is checked, and a gold file that is not found adds
    nothing (the settings' own problems may be why)."""
    from goldgate.gold.load import check_gold
    from goldgate.gold.settings.yamlfile import load_yaml_file

    path = dataset
    if path is None:
        try:
            value = load_yaml_file(config, display_path(config)).value
        except (GoldgateError, OSError, ValueError):
            return []
        evaluation = value.get("evaluation") if isinstance(value, dict) else None
        literal = evaluation.get("dataset") if isinstance(evaluation, dict) else None
        if literal is not None and not isinstance(literal, str):
            return []
        path = (
            config.parent.parent / "evaluation" / "dataset.json"
            if literal is None
            else config.parent / literal
        )
        if not path.is_file():
            return []
    try:
        return list(check_gold(None, path).violations)
    except (GoldgateError, OSError, ValueError):
        return []


def check_gold_command(
    config: Path, dataset: Path | None, *, json_output: bool, github: bool = False
) -> ExitCode:
    """``goldgate evaluate --check``: every violation in the gold, or its fingerprints."""
    with long_lived():
        from goldgate.gold.load import check_gold

    try:
        loaded = load_settings(config)
    except SettingsError as error:  # the gold's own problems are listed with theirs
        violations = [*error.violations, *gold_without_settings(config, dataset)]
        return violations_listing(sort_violations(violations), json_output, github)
    except InvalidInputError as error:
        if not json_output:
            raise
        return refusal_json(error)
    try:
        result = check_gold(loaded, dataset)
    except InvalidInputError as error:  # a dataset file that cannot be read at all
        if not json_output:
            raise
        return refusal_json(error)
    gold = result.dataset
    if gold is None:
        return violations_listing(result.violations, json_output, github)
    if json_output:
        emit_json(
            {
                "ok": True,
                "dataset": str(result.path),
                "case_count": result.case_count,
                "violations": [],
                "name": gold.name,
                "revision": gold.revision,
                "fingerprint": gold.fingerprint,
                "suites": [
                    {"name": s.name, "cases": len(s.cases), "fingerprint": s.fingerprint}
                    for s in gold.suites
                ],
            }
        )
    else:
        emit_text(
            f"gold OK: {gold.name} @ {gold.revision}: {english.count(len(gold.suites), 'suite')}, "
            f"{english.count(result.case_count, 'case')}"
        )
        for suite in gold.suites:
            cases = english.count(len(suite.cases), "case")
            emit_text(f"  {suite.name}: {cases}, {suite.fingerprint}")
        emit_text(f"dataset fingerprint: {gold.fingerprint}")
    return ExitCode.PASSED
