"""Selector regexes: catastrophic ones are stopped and named, ordinary ones stay on the fast path."""

from __future__ import annotations

import re

import pytest

from tests.support.paths import ROOT
from trailblaze.screen.patterns import PatternTooSlow, _cannot_blow_up, full_match, matcher
from trailblaze.trail.model import load_trail


@pytest.mark.parametrize(
    "pattern",
    ["Sign in", "dev.trailblaze.demo:id/email", ".*sign_in", "Forgot password\\?", "[a-z]+", "a|b|c",
     "(?:Log in|Sign in)", "(?i:ok)", "\\(x\\)+", "[()*+]", "(unclosed", ".*a.*", "a*?b", "(?P<n>x)y+"],
)  # fmt: skip
def test_ordinary_patterns_take_the_fast_path(pattern: str) -> None:
    assert _cannot_blow_up(pattern)


@pytest.mark.parametrize(
    "pattern",
    ["(a+)+b", "(a|aa)+c", "(.*a){20}", ".*.*.*x", "(\\w+\\s?)*$", "(x)\\1", "(?P<n>a)(?P=n)", "(ab)?c",
     "a?a?a?aaa", "(a|b)(a|b)(a|b)c", "a|b|c|d"],
)  # fmt: skip
def test_risky_patterns_get_the_bounded_engine(pattern: str) -> None:
    assert not _cannot_blow_up(pattern)


def test_every_pattern_in_the_example_trails_is_on_the_fast_path() -> None:
    found = []
    for path in sorted((ROOT / "trails").glob("*.trail.yaml")):
        text = load_trail(path).source_text or ""
        found += re.findall(r"Regex: (.+)", text)
    assert found
    assert all(_cannot_blow_up(p.strip().strip("'\"")) for p in found), found


def test_a_catastrophic_pattern_raises_naming_itself_and_the_field() -> None:
    match = matcher("(.|..|...)*d\\d", "resourceIdRegex")
    with pytest.raises(PatternTooSlow) as raised:
        match("dev.trailblaze.demo:id/password")
    assert raised.value.message.startswith(
        "regex '(.|..|...)*d\\d' in resourceIdRegex took too long to match (over 0.1 s on one value)"
    )
    assert raised.value.exit_code == 1  # the trail failed, not the tool


def test_both_engines_give_re_semantics() -> None:
    # full match, `.` matches a newline, invalid patterns match literally
    for pattern in ("a.c", "(a|b)+c"):  # fast path, bounded path
        assert full_match(pattern, "a\nc" if pattern == "a.c" else "abac")
        assert not full_match(pattern, "xa\nc")
    assert full_match("(unclosed", "(unclosed")
    assert full_match("(a+)+b", "aaab") and not full_match("(a+)+b", "a" * 40)


@pytest.mark.parametrize(
    ("pattern", "value", "matches"),
    [
        (
            r"\QWireless Mouse - Bluetooth, Black - $29.99\E",
            "Wireless Mouse - Bluetooth, Black - $29.99",
            True,
        ),
        (r"\QA.B\E", "AxB", False),  # quoted: the dot is a dot
        (r"\QA.B\E", "A.B", True),
        (r"Total: \Q(3)\E.*", "Total: (3) items", True),  # a quote inside a regex
        (r"\Q1+1", "1+1", True),  # no \E: quoted to the end, as in Java
        (r"\\Qa", "\\Qa", True),  # an escaped backslash starts no quote
    ],
)
def test_java_literal_quotes_match_their_text(pattern: str, value: str, matches: bool) -> None:
    # Trailblaze writes `Regex.escape(text)`, Java's `\Q…\E`, into recorded selectors.
    assert full_match(pattern, value) is matches
