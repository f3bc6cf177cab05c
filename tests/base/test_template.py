"""Message templates: {/pointer} placeholders filled from an envelope, braces doubled."""

from __future__ import annotations

import pytest

from goldgate.base.errors import TemplateError
from goldgate.base.jsonvalue import freeze
from goldgate.base.template import parse_template

ENVELOPE = {"payload": {"message": "Où est ma facture ?", "n": 3, "tags": ["a", "b"]},
            "metadata": {"a/b": "slash"}}  # fmt: skip


@pytest.mark.parametrize(
    ("text", "filled"),
    [
        ("{/payload/message}", "Où est ma facture ?"),
        ("Ticket: {/payload/message} ({/payload/n})", "Ticket: Où est ma facture ? (3)"),
        ("tags {/payload/tags}", 'tags ["a","b"]'),
        ("{{literal}} {/metadata/a~1b}", "{literal} slash"),
        ("no placeholders", "no placeholders"),
        ("", ""),
    ],
)
def test_a_template_fills_strings_as_they_are_and_other_values_as_json(
    text: str, filled: str
) -> None:
    template = parse_template(text)
    assert template.fill(ENVELOPE) == filled
    assert template.fill(freeze(ENVELOPE)) == filled  # the Python API's frozen envelopes


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Hi {/payload/message", "a placeholder opened at character 4 is not closed"),
        ("Hi {payload}", "the placeholder at character 4 is not a JSON pointer"),
        ("{}", "names the whole input"),
        ("a } b", "a lone '}' at character 3: write '}}' for a literal brace"),
    ],
)
def test_a_bad_template_is_refused_with_its_place(text: str, message: str) -> None:
    with pytest.raises(TemplateError, match=message.replace("{", r"\{").replace("}", r"\}")):
        parse_template(text)


def test_a_missing_value_names_the_pointer_never_a_value() -> None:
    with pytest.raises(TemplateError) as caught:
        parse_template("{/payload/message} {/payload/missing}").fill(ENVELOPE)
    assert str(caught.value) == "the template's /payload/missing is absent from the case input"
    assert "facture" not in str(caught.value)
