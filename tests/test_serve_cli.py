"""`kb serve` refuses to start, in one line, when it has nothing to serve or may not bind."""

from __future__ import annotations

from click.testing import CliRunner

from kbtools.cli import main


def test_nothing_to_serve_is_one_line(tmp_path):
    result = CliRunner().invoke(main, ["serve", "--index", str(tmp_path / "none")])
    assert result.exit_code == 1
    assert result.stderr.startswith("kb: error:") and "no index here" in result.stderr
    assert "Traceback" not in result.output + result.stderr


def test_network_bind_needs_a_token_or_open(tmp_path):
    result = CliRunner().invoke(main, ["serve", "--host", "0.0.0.0", "--index", str(tmp_path)])
    assert result.exit_code == 2 and "without a token" in result.stderr
    bad = tmp_path / "token"
    bad.write_text("short\n")
    result = CliRunner().invoke(main, ["serve", "--host", "0.0.0.0", "--token-file", str(bad),
                                       "--index", str(tmp_path)])
    assert result.exit_code == 2 and "token file" in result.stderr
