"""Secrets off the command line (issue 12 item 4): `--secret NAME` from the environment, `--secret-file`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from trailblaze.cli.main import main
from trailblaze.common.secret_sources import collect_secrets, env_var_for, read_secret_file
from trailblaze.errors import UsageError

pytest_plugins = ["pytester"]

ENV_FILE = """\
# secrets for the demo account
password=hunter2-from-file
export API_TOKEN = "a \\"quoted\\" value\\n2nd line"  # a comment
single='kept literally # not a comment \\n'
hash=abc#def
spaced = plain value   # trailing comment

empty-ish=    x y z
"""


def test_a_dotenv_file_reads_comments_quotes_and_export(tmp_path: Path) -> None:
    file = tmp_path / "ci.env"
    file.write_text(ENV_FILE)
    assert read_secret_file(file) == {
        "password": "hunter2-from-file",
        "API_TOKEN": 'a "quoted" value\n2nd line',
        "single": "kept literally # not a comment \\n",
        "hash": "abc#def",
        "spaced": "plain value",
        "empty-ish": "x y z",
    }


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("just-a-value-s3cret", ":2: expected NAME=VALUE"),
        ("9bad=s3cret-value", ":2: the text before '=' is not a secret name"),
        ("s3cret-value and more=x", ":2: the text before '=' is not a secret name"),
        ("pw='s3cret-value", ":2: the value's ' quote is not closed on this line"),
        ('pw="s3cret-value" trailing', ':2: text after the closing " quote'),
    ],
)
def test_a_bad_line_is_named_by_file_and_line_never_by_value(
    tmp_path: Path, line: str, expected: str
) -> None:
    file = tmp_path / "ci.env"
    file.write_text(f"# first\n{line}\n")
    with pytest.raises(UsageError) as caught:
        read_secret_file(file)
    assert caught.value.message.startswith(f"{file}{expected}")
    assert "s3cret-value" not in caught.value.message and "just-a-value" not in caught.value.message


def test_name_alone_reads_the_environment_and_the_command_line_wins() -> None:
    env = {"TRAILBLAZE_SECRET_PASSWORD": "from-env-1", "TRAILBLAZE_SECRET_API_KEY": "from-env-2"}
    assert env_var_for("api-key") == "TRAILBLAZE_SECRET_API_KEY"
    assert collect_secrets(["password", "api-key", "other=given=with=equals"], environ=env) == {
        "password": "from-env-1",
        "api-key": "from-env-2",
        "other": "given=with=equals",
    }
    with pytest.raises(
        UsageError, match=r"^--secret token: the environment variable TRAILBLAZE_SECRET_TOKEN is not set"
    ):
        collect_secrets(["token"], environ=env)


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main(list(args))
    out, err = capsys.readouterr()
    return int(done.value.code or 0), out, err


@pytest.mark.parametrize("source", ["env", "file"])
def test_the_cli_takes_a_secret_from_the_environment_or_a_file(
    source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The value reaches the device (the selector matches "Sign in") and is still never printed."""
    if source == "env":
        monkeypatch.setenv("TRAILBLAZE_SECRET_LABEL", "Sign in")
        flags = ["--secret", "label"]
    else:
        (tmp_path / ".env").write_text("# the button\nlabel='Sign in'\n")
        flags = ["--secret-file", str(tmp_path / ".env")]
    tool = "{tapOnElementBySelector: {nodeSelector: {androidAccessibility: {textRegex: '{{label}}'}}}}"
    code, out, err = _cli(capsys, "tool", tool, "--device", "sim:android", *flags)
    assert code == 0, out + err
    assert "Sign in" not in out + err


def test_the_cli_refuses_a_short_secret_before_the_device(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(
        capsys, "replay", "trails/login.trail.yaml", "--device", "android:nowhere", "--secret", "pin=e"
    )
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "error: --secret pin: the value is shorter than 4 characters" in err


def test_the_cli_names_a_bad_secret_file_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "s.env").write_text("ok=long-enough\noops\n")
    code, _, err = _cli(
        capsys, "tool", "pressBack", "--device", "sim:android", "--secret-file", str(tmp_path / "s.env")
    )
    assert code == 2 and f"error: {tmp_path / 's.env'}:2: expected NAME=VALUE" in err


@pytest.mark.slow
def test_a_secret_from_the_environment_is_not_in_the_process_command_line(tmp_path: Path) -> None:
    """What `ps` / /proc/PID/cmdline shows of a running `trailblaze` holds the name, not the value."""
    env = {**os.environ, "TRAILBLAZE_SECRET_PASSWORD": "hunter2-env-only"}
    script = (
        "import sys; from trailblaze.cli.main import main; "
        "open(sys.argv[1], 'wb').write(open('/proc/self/cmdline', 'rb').read()); "
        "main(['tool', 'pressBack', '--device', 'sim:android', '--secret', 'password'])"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "cmdline")], env=env, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    cmdline = (tmp_path / "cmdline").read_bytes()
    assert b"password" in cmdline and b"hunter2-env-only" not in cmdline


PLUGIN_TEST = """
def test_secrets(trailblaze_secrets):
    assert trailblaze_secrets == {"password": "from-the-env-var", "token": "from the file"}
"""


@pytest.mark.slow
def test_pytest_takes_secrets_from_the_environment_and_a_file(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAILBLAZE_SECRET_PASSWORD", "from-the-env-var")
    pytester.makefile(".env", secrets="token='from the file'\npassword=overridden\n")
    pytester.makepyfile(test_it=PLUGIN_TEST)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--trailblaze-secret-file", "secrets.env", "--trailblaze-secret", "password"
    )
    result.assert_outcomes(passed=1)
    short = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--trailblaze-secret", "pin=abc")
    assert short.ret == pytest.ExitCode.USAGE_ERROR
    assert "--trailblaze-secret pin: the value is shorter than 4 characters" in short.stderr.str()
    unset = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--trailblaze-secret", "nothere")
    assert unset.ret == pytest.ExitCode.USAGE_ERROR
    assert "the environment variable TRAILBLAZE_SECRET_NOTHERE is not set" in unset.stderr.str()


VAULT_CONFTEST = """
import pytest

@pytest.fixture(scope="session")
def trailblaze_secrets():
    return {"vault": "from-the-vault-123"}
"""


@pytest.mark.slow
def test_a_conftest_override_of_trailblaze_secrets_is_redacted_too(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(VAULT_CONFTEST)
    pytester.makepyfile(
        test_it="def test_it(trailblaze_secrets):\n"
        "    print(trailblaze_secrets['vault'])\n"
        "    assert trailblaze_secrets['vault'] == 'x'\n"
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rA", "--junitxml=j.xml")
    result.assert_outcomes(failed=1)
    output = result.stdout.str() + result.stderr.str() + (pytester.path / "j.xml").read_text()
    assert "from-the-vault-123" not in output and "{{vault}}" in output


def test_a_form_feed_or_unicode_line_break_stays_inside_the_value(tmp_path: Path) -> None:
    file = tmp_path / "ci.env"
    file.write_text("pw=abc\x0cdef\nsep=one\u2028two\x1cthree\r\n", "utf-8")
    assert read_secret_file(file) == {"pw": "abc\x0cdef", "sep": "one\u2028two\x1cthree"}


def test_a_line_that_breaks_at_a_form_feed_is_not_echoed(tmp_path: Path) -> None:
    file = tmp_path / "ci.env"
    file.write_text("pw=first\x0cs3cret value here\nx y=\x0cs3cret-value\n", "utf-8")
    with pytest.raises(UsageError) as caught:
        read_secret_file(file)
    assert caught.value.message.startswith(f"{file}:2: the text before '=' is not a secret name")
    assert "s3cret" not in caught.value.message and "x y" not in caught.value.message


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_a_device_or_a_pipe_is_refused_before_it_is_read(tmp_path: Path, special: str) -> None:
    import os

    path = special
    if special == "fifo":
        path = str(tmp_path / "secrets.fifo")
        os.mkfifo(path)  # nobody writes: reading it would wait for ever
    with pytest.raises(UsageError, match=r"not a regular file \(a device or a pipe\)"):
        read_secret_file(path)


def test_a_huge_file_is_refused_by_size_and_a_long_one_by_lines(tmp_path: Path) -> None:
    from trailblaze.common.secret_sources import MAX_SECRET_FILE_BYTES, MAX_SECRET_FILE_LINES

    big = tmp_path / "big.env"
    big.write_bytes(b"X=" + b"a" * MAX_SECRET_FILE_BYTES)
    with pytest.raises(UsageError, match=r"bytes, more than 1,048,576; a \.env of secrets is small"):
        read_secret_file(big)
    long = tmp_path / "long.env"
    long.write_text("#\n" * (MAX_SECRET_FILE_LINES + 1))
    with pytest.raises(UsageError, match=r"more than 10,000 lines"):
        read_secret_file(long)
