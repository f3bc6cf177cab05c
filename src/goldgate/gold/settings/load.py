"""Reading settings.yaml (and the workflow files it references) into one frozen object."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from goldgate.base.errors import InvalidInputError, MissingFileError
from goldgate.base.jsonvalue import canonical_json
from goldgate.base.problems import (
    Violation,
    display_path,
    from_validation_error,
    violation_at,
)
from goldgate.base.textsafe import escape_control, note_secret_variables, quote
from goldgate.gold.errors import SettingsError, YamlSyntaxError
from goldgate.gold.settings.models import EnvHeader, Settings, WorkflowSettings
from goldgate.gold.settings.yamlfile import YamlDocument, load_yaml_file

DEFAULT_SETTINGS = Path("config/settings.yaml")


@dataclass(frozen=True)
class LoadedSettings:
    """Settings with every reference resolved, where they came from, and their digest."""

    path: Path
    settings: Settings
    workflows: dict[str, WorkflowSettings]
    workflow_files: dict[str, Path]
    configuration_digest: str

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def project_root(self) -> Path:
        """The folder holding config/: the default home of gold, reports and python code."""
        return self.folder.parent

    @property
    def dataset_path(self) -> Path:
        """The literal ``evaluation.dataset`` path, else evaluation/dataset.json beside config/."""
        literal = self.settings.evaluation.dataset
        if literal is not None:
            return self.folder / literal
        return self.project_root / "evaluation" / "dataset.json"

    @property
    def python_paths(self) -> list[Path]:
        return [self.project_root, *(self.folder / entry for entry in self.settings.python_path)]


def secret_variables(workflows: Iterable[WorkflowSettings]) -> list[str]:
    """The environment variables whose values are secret: every workflow's credentials, the
    variables its HTTP headers are read from and its model target's API key."""
    names: list[str] = []
    for workflow in workflows:
        http, model = workflow.target.http, workflow.target.model
        headers = [] if http is None else list(http.headers.values())
        found = [*workflow.credentials, *(h.env for h in headers if isinstance(h, EnvHeader))]
        if model is not None and model.api_key is not None:
            found.append(model.api_key)
        names += [name for name in dict.fromkeys(found) if name not in names]
    return names


def load_settings(path: Path) -> LoadedSettings:
    """Load and validate settings without importing or calling anything they name."""
    try:
        document = load_yaml_file(path, display_path(path))
    except YamlSyntaxError as error:
        raise SettingsError([Violation.of_syntax(error)]) from None
    except MissingFileError:
        # Say where the path came from: most often the command ran from another folder.
        raise MissingFileError(
            f"{escape_control(display_path(path))}: settings file not found; goldgate reads "
            f"{DEFAULT_SETTINGS} from the working folder unless --config names another."
        ) from None
    if not isinstance(document.value, dict):
        raise SettingsError([violation_at(document, (), "settings must be a YAML mapping")])
    try:
        settings = Settings.model_validate(document.value)
    except ValidationError as error:
        raise SettingsError(from_validation_error(document, error)) from None
    workflows, files, violations = _resolve_workflows(path, settings, document)
    violations.extend(_cross_check(document, settings, workflows))
    if violations:
        raise SettingsError(violations)
    note_secret_variables(secret_variables(workflows.values()))
    return LoadedSettings(
        path=path,
        settings=settings,
        workflows=workflows,
        workflow_files=files,
        configuration_digest=configuration_digest(settings, workflows),
    )


def _resolve_workflows(
    path: Path, settings: Settings, document: YamlDocument
) -> tuple[dict[str, WorkflowSettings], dict[str, Path], list[Violation]]:
    workflows: dict[str, WorkflowSettings] = {}
    files: dict[str, Path] = {}
    violations: list[Violation] = []
    for name, entry in settings.workflows.items():
        if isinstance(entry, WorkflowSettings):
            workflows[name] = entry
            continue
        if Path(entry).is_absolute():
            violations.append(
                violation_at(document, ("workflows", name), "a workflow file must be relative")
            )
            continue
        file = path.parent / entry
        try:
            included = load_yaml_file(file, display_path(file))
        except YamlSyntaxError as error:  # reported in the workflow file, where it is
            violations.append(Violation.of_syntax(error))
            continue
        except InvalidInputError as error:
            line, column = document.position(("workflows", name))
            violations.append(
                Violation(
                    document.source, line, column, str(error).rstrip("."), f"/workflows/{name}"
                )
            )
            continue
        try:
            workflows[name] = WorkflowSettings.model_validate(included.value)
            files[name] = file
        except ValidationError as error:
            violations.extend(from_validation_error(included, error))
    return workflows, files, violations


def _cross_check(
    document: YamlDocument, settings: Settings, workflows: dict[str, WorkflowSettings]
) -> list[Violation]:
    violations = []
    for name, workflow in workflows.items():
        if workflow.credentials and not workflow.live:
            violations.append(
                violation_at(
                    document,
                    ("workflows", name, "credentials"),
                    "credentials are only resolved for live workflows; add 'live: true'",
                )
            )
        model = workflow.target.model
        if model is not None and model.api_key and model.api_key not in workflow.credentials:
            violations.append(
                violation_at(
                    document,
                    ("workflows", name, "target", "model", "api_key"),
                    f"the API key's variable {model.api_key} must be one of the workflow's "
                    "credentials, so that a run without it stops before anything runs",
                )
            )
        for flow_name, flow in workflow.flows.items():
            for step_name, step in flow.steps.items():
                if step.collection is not None and len(set(step.collection)) != len(
                    step.collection
                ):
                    violations.append(
                        violation_at(
                            document,
                            ("workflows", name, "flows", flow_name, "steps", step_name),
                            "a collection names each child step once",
                        )
                    )
    for name, judge in settings.judges.items():
        if judge.workflow not in settings.workflows:
            violations.append(
                violation_at(
                    document,
                    ("judges", name, "workflow"),
                    f"judge {quote(name)} names the workflow {quote(judge.workflow)}, which "
                    "these settings do not declare",
                )
            )
    return violations


def configuration_digest(settings: Settings, workflows: dict[str, WorkflowSettings]) -> str:
    """sha256 over the canonical settings with referenced workflow files inlined. The dataset
    path is left out: where gold lives does not change the configuration."""
    content: dict[str, Any] = settings.model_dump(mode="json", by_alias=True, exclude={"schema_"})
    content.pop("evaluation", None)
    content.pop("judges", None)  # a judge is a reviewer of gold, not the application's setup
    content["workflows"] = {
        name: _unset_left_out(workflow.model_dump(mode="json"))
        for name, workflow in sorted(workflows.items())
    }
    return "sha256:" + hashlib.sha256(canonical_json(content).encode("utf-8")).hexdigest()


_LATER_FIELDS: tuple[tuple[tuple[str, ...], dict[str, Any]], ...] = (
    ((), {"retry": None, "rate_limit": None, "pricing": None}),
    (("target",), {"model": None}),
    (("target", "http"), {"proxy": None}),
    (("target", "model"), {"api": "chat"}),
)
"""Fields added after settings had digests (the live settings, the model target's ``api``),
each with the value it has when left unset: left out of the digest while they hold it, so
that a configuration that does not use them keeps its revision, and replaying its earlier
reports still finds the configuration they ran."""


def _unset_left_out(workflow: dict[str, Any]) -> dict[str, Any]:
    for path, unset in _LATER_FIELDS:
        place: Any = workflow
        for key in path:
            place = place.get(key) if isinstance(place, dict) else None
        if isinstance(place, dict):
            for name, value in unset.items():
                if name in place and place[name] == value:
                    del place[name]
    return workflow
