"""The process's redactor (trailblaze.common.redact): every spelling of a secret, short secrets refused."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from tests.support.leak_scan import LeakScan, spellings
from trailblaze.common.redact import Redactor, register_secrets, scrub
from trailblaze.errors import UsageError
from trailblaze.llm.client import ImageBlock, LLMRequest, Message, TextBlock, scrub_request
from trailblaze.output.runlog import RunRecord, StepRecord, TrailRecord, write_run
from trailblaze.tools.memory import Memory

SPECIAL = 'p&<>"Äß%+/=x9'


@pytest.mark.parametrize("value", [SPECIAL, "hunter2-Plain", "pw😀 ünï\\cøde'", "tab\there\nnew"])
def test_every_spelling_the_formats_give_a_secret_is_redacted(value: str) -> None:
    redactor = Redactor({"pw": value})
    for encoding, form in spellings(value).items():
        text = form.decode("utf-8")
        assert redactor.scrub(f"<a>{text}</a>") == "<a>{{pw}}</a>", encoding


def test_mixed_and_numeric_escapes_are_redacted_too() -> None:
    redactor = Redactor({"pw": SPECIAL})
    for spelled in (
        "p&#38;&#x3C;&GT;&#34;&Auml;&szlig;%+/=x9".replace("&GT;", "&gt;"),  # numeric / named references
        'p\\u0026<>\\"\\u00C4\\u00df%+/=x9',  # JSON with some characters escaped, upper-case hex
        "p%26<%3e%22Äß%25%2b%2F%3dx9",  # half URL-encoded, lower-case hex
        'p&<>\\\\\\"Äß%+/=x9',  # JSON inside JSON
    ):
        assert redactor.scrub(f"[{spelled}]") == "[{{pw}}]", spelled


def test_base64_inside_a_longer_run_is_redacted_at_every_offset() -> None:
    redactor = Redactor({"pw": SPECIAL})
    for prefix in (b"", b"a", b"ab", b"abc"):
        blob = base64.b64encode(prefix + SPECIAL.encode() + b"tail").decode()
        assert "{{pw}}" in redactor.scrub(blob), prefix


def test_other_text_is_left_alone() -> None:
    redactor = Redactor({"pw": "hunter2"})
    text = 'hunter <hunter> "2" hunte r2 &amp; \\u0068'
    assert redactor.scrub(text) == text
    assert Redactor().scrub("hunter2") == "hunter2"


def test_a_secret_that_contains_another_is_replaced_whole() -> None:
    assert Redactor({"short": "abcd", "long": "abcdefgh"}).scrub("abcdefgh abcd") == "{{long}} {{short}}"


@pytest.mark.parametrize("value", ["", "e", "pin"])
def test_short_secrets_are_refused_without_showing_the_value(value: str) -> None:
    with pytest.raises(UsageError) as caught:
        Memory(secrets={"pin": value})
    message = caught.value.message
    assert message.startswith("--secret pin: the value is") and "at least 4 characters" in message
    assert "\n" not in message and (not value or f"'{value}'" not in message)


def test_llm_requests_are_scrubbed_but_images_stay_decodable() -> None:
    register_secrets({"pw": SPECIAL})
    image = base64.b64encode(b"\x89PNG" + SPECIAL.encode() + b"x" * 10).decode()
    request = LLMRequest(
        system=[TextBlock(text="system")],
        messages=[Message(role="user", content=[TextBlock(text=f'EditText "{SPECIAL}"'),
                                                 ImageBlock(media_type="image/png", data_base64=image)])],
    )  # fmt: skip
    clean = scrub_request(request)
    dumped = json.dumps(clean.model_dump())
    assert SPECIAL not in dumped and 'EditText \\"{{pw}}\\"' in dumped
    assert clean.messages[0].content[1] == request.messages[0].content[1]  # the picture is not text


def _android_dump(text: str) -> str:
    from xml.sax.saxutils import quoteattr

    return (
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
        f'<node index="0" text={quoteattr(text)} resource-id="dev.trailblaze.demo:id/email" '
        'class="android.widget.EditText" package="dev.trailblaze.demo" content-desc="" checkable="false" '
        'checked="false" clickable="true" enabled="true" focusable="true" focused="true" scrollable="false" '
        'long-clickable="false" password="false" selected="false" visible-to-user="true" '
        'bounds="[0,0][1080,200]" /></hierarchy>'
    )


def test_the_report_and_junit_hide_a_secret_from_a_dump_written_before(tmp_path: Path) -> None:
    """The HTML report re-parses the saved dump: the parsed value is redacted on the way out too."""
    from trailblaze.output.junit import write_junit
    from trailblaze.output.report import write_html_report

    (tmp_path / "t").mkdir()
    # a dump that was saved raw (e.g. by another tool): the secret XML-escaped, as uiautomator writes it
    (tmp_path / "t" / "dump.xml").write_text(_android_dump(SPECIAL), "utf-8")
    register_secrets({"pw": SPECIAL})
    step = StepRecord(index=0, kind="step", text="type it", status="failed", hierarchy_after="t/dump.xml",
                      error=f"NOT_FOUND; closest on screen: EditText {SPECIAL!r}", candidates=[f'EditText "{SPECIAL}"'])  # fmt: skip
    run = RunRecord(run_id="r", started_at="2026-01-01T00:00:00Z",
                    trails=[TrailRecord(path="t.trail.yaml", directory="t", steps=[step])])  # fmt: skip
    write_run(run, tmp_path)
    report = write_html_report(tmp_path)
    junit = write_junit(run, tmp_path / "junit.xml")
    scan = LeakScan({"pw": SPECIAL})
    scan.path(tmp_path / "run.json")
    scan.path(report)
    scan.path(junit)
    assert scan.scans == 3 and scan.occurrences == [], scan.report()
    assert "{{pw}}" in report.read_text() and "{{pw}}" in junit.read_text()


def test_scrub_is_the_identity_without_secrets() -> None:
    assert scrub('p&<>"Äß%+/=x9') == 'p&<>"Äß%+/=x9'


def test_debug_tracebacks_are_scrubbed(capsys: pytest.CaptureFixture[str]) -> None:
    from trailblaze.cli.main import _print_traceback

    register_secrets({"pw": SPECIAL})
    try:
        raise RuntimeError(f"closest on screen: EditText {SPECIAL!r}")
    except RuntimeError:
        _print_traceback()
    err = capsys.readouterr().err
    assert "RuntimeError: closest on screen: EditText '{{pw}}'" in err and SPECIAL not in err
