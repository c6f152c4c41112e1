"""Where the consent to send a paper is remembered: the user-level config dir, per project and per
provider; never the project (colosseum/app/consent.py)."""

from __future__ import annotations

from colosseum.app.consent import SendSummary, consent_path, has_consent, provider_label, remember_consent


def test_a_send_is_remembered_per_project_and_provider_in_the_user_config(tmp_path):
    environ = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "HOME": str(tmp_path / "home")}
    project, other = tmp_path / "paper", tmp_path / "other"
    project.mkdir(), other.mkdir()
    assert not has_consent(project, "anthropic", environ)
    written = remember_consent(project, "anthropic", environ)
    assert written == consent_path(environ) == tmp_path / "config" / "colosseum" / "consent.json"
    assert has_consent(project, "anthropic", environ)
    assert not has_consent(other, "anthropic", environ)  # another project asks again
    assert not has_consent(project, "openai-compatible at http://localhost:8000/v1", environ)  # another provider too
    assert list(project.iterdir()) == []
    remember_consent(project, "anthropic", environ)  # once is enough: no duplicate
    assert consent_path(environ).read_text().count('"anthropic"') == 1


def test_a_broken_memory_file_is_no_consent(tmp_path):
    environ = {"XDG_CONFIG_HOME": str(tmp_path)}
    consent_path(environ).parent.mkdir(parents=True)
    consent_path(environ).write_text("[not an object")
    assert not has_consent(tmp_path, "anthropic", environ)
    remember_consent(tmp_path, "anthropic", environ)
    assert has_consent(tmp_path, "anthropic", environ)


def test_the_question_names_what_how_much_and_where():
    label = provider_label({"provider": "openai-compatible", "base_url": "http://localhost:8000/v1"})
    text = SendSummary("the statement of lem:a", 12_345, 0.4321, label, "m").question()
    assert "the statement of lem:a" in text and "12,345 tokens" in text and "$0.43" in text
    assert "openai-compatible at http://localhost:8000/v1 (m)" in text
    assert "cost unknown" in SendSummary("x", None, None, "anthropic", "m").question()
    assert provider_label({}) == "anthropic"
