"""Submission validation: URLs and SSRF (with an injected resolver), limits, duplicates."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from dhp.inference.judge import BuiltinJudge, EndpointJudge, HubJudge, Judge
from dhp.leaderboard.submissions.validation import (
    Existing,
    Submission,
    SubmissionErrors,
    ValidationError,
    allowed_ports_from_env,
    check_endpoint_url,
    find_duplicate,
    judge_key,
    validate_submission,
)
from dhp.scoring.results import JudgeInfo
from dhp.types import ControlJudge, EndpointProtocol


def resolver(table: dict[str, Sequence[str]]):  # type: ignore[no-untyped-def]
    def resolve(host: str) -> Sequence[str]:
        if host not in table:
            raise OSError("Name or service not known")
        return table[host]

    return resolve


PUBLIC = resolver({"judge.example.org": ["93.184.216.34"], "api.example.com": ["2606:2800:220:1::1"]})


def form(**over: str) -> dict[str, Any]:  # Any: spread as validate_submission's keywords
    base = {
        "judge_name": "My judge 7B",
        "endpoint_url": "https://judge.example.org/v1",
        "protocol": "openai",
        "model": "meta-llama/Llama-3.1-8B-Instruct",
        "hf_model_id": "meta-llama/Llama-3.1-8B-Instruct",
        "revision": "main",
        "mode": "expected",
        "contact": "me@example.org",
    }
    base.update(over)
    return base


def test_valid_space_submission_is_normalised() -> None:
    sub = validate_submission(
        **form(endpoint_url="https://judge.example.org/v1/"), app_mode="space", resolver=PUBLIC
    )
    assert isinstance(sub.judge, EndpointJudge) and sub.judge.endpoints == ("https://judge.example.org/v1",)
    assert sub.judge.protocol is EndpointProtocol.OPENAI and sub.mode == "expected"


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        ("http://judge.example.org/v1", "https"),
        ("ftp://judge.example.org", "https://"),
        ("https://127.0.0.1:8080", "loopback"),
        ("https://localhost:8080", "localhost"),
        ("https://10.1.2.3", "private"),
        ("https://192.168.0.10", "private"),
        ("https://172.16.5.5", "private"),
        ("https://169.254.169.254/latest/meta-data", "link-local"),
        ("https://[::1]/v1", "loopback"),
        ("https://[fe80::1]/v1", "link-local"),
        ("https://[::ffff:127.0.0.1]/v1", "loopback"),
        ("https://metadata.google.internal/computeMetadata", "metadata"),
        ("https://100.100.100.200/latest", "metadata"),
        ("https://0.0.0.0/", "reserved"),
        ("https://user:pw@judge.example.org/v1", "credentials"),
        ("https://judge.example.org/v1?api_key=abc", "secrets"),
        ("https://unknown-host.example.net/v1", "does not resolve"),
        ("https://judge.example.org/v1#frag", "fragment"),
        ("https://judge example.org/v1", "spaces"),
        ("https://singlelabel/v1", "public host"),
    ],
)
def test_space_mode_refuses(url: str, needle: str) -> None:
    with pytest.raises(ValidationError) as e:
        check_endpoint_url(url, "space", PUBLIC)
    assert needle in e.value.message
    assert e.value.field == "endpoint_url"


@pytest.mark.parametrize(
    ("host", "addrs"),
    [
        ("evil.example.org", ["10.0.0.5"]),
        ("evil.example.org", ["93.184.216.34", "127.0.0.1"]),  # any bad address refuses
        ("evil.example.org", ["169.254.169.254"]),
        ("evil.example.org", ["fd00:ec2::254"]),
        ("evil.example.org", ["::ffff:10.0.0.1"]),
    ],
)
def test_space_mode_refuses_names_resolving_to_internal_addresses(host: str, addrs: list[str]) -> None:
    with pytest.raises(ValidationError) as e:
        check_endpoint_url(f"https://{host}/v1", "space", resolver({host: addrs}))
    assert "resolves to" in e.value.message


def test_local_mode_allows_http_only_to_loopback() -> None:
    assert check_endpoint_url("http://127.0.0.1:8080/v1", "local") == "http://127.0.0.1:8080/v1"
    assert check_endpoint_url("http://localhost:8080", "local") == "http://localhost:8080"
    assert check_endpoint_url("https://10.1.2.3/v1", "local") == "https://10.1.2.3/v1"
    with pytest.raises(ValidationError, match="localhost"):
        check_endpoint_url("http://10.1.2.3:8080", "local")
    with pytest.raises(ValidationError, match="localhost"):
        check_endpoint_url("http://judge.example.org", "local")


@pytest.mark.parametrize(
    ("field", "value", "needle"),
    [
        ("judge_name", "", "required"),
        ("judge_name", "-x", "starting with a letter or digit"),  # the judge record's one name rule
        ("judge_name", "my/judge", "starting with a letter or digit"),
        ("judge_name", "a" * 65, "too long"),
        ("judge_name", "bad<script>", "without / \\ < or >"),
        ("judge_name", "tab\there", "control"),
        ("model", "", "required"),
        ("model", "m" * 201, "too long"),
        ("model", "rm -rf /;", "not allowed"),
        ("hf_model_id", "not-an-id", "not allowed"),
        ("revision", "../../etc", "not allowed"),
        ("revision", "a..b", ".."),
        ("contact", "", "required"),
        ("contact", "x" * 121, "too long"),
        ("protocol", "grpc", "Protocol must be"),
        ("mode", "greedy", "Scoring mode"),
    ],
)
def test_field_limits(field: str, value: str, needle: str) -> None:
    with pytest.raises(ValidationError) as e:
        validate_submission(**form(**{field: value}), app_mode="space", resolver=PUBLIC)
    assert needle in e.value.message
    assert e.value.field == field


@pytest.mark.parametrize(
    "name", ["x", "my judge v2", "GPT-4o (temp 0)", "-x", "my/judge", "bad<script>", "a" * 65, "Jüdge"]
)
def test_the_form_and_the_judge_record_share_one_name_rule(name: str) -> None:
    """The form accepts exactly the names the judge record (CLI, judge files) accepts (the form strips
    surrounding spaces first, as it does for every field)."""
    from dhp.inference.judge import EndpointJudge, JudgeSpecError

    try:
        EndpointJudge(name=name, endpoints=("https://api.example.com/v1",), protocol=EndpointProtocol.OPENAI)
        record_ok = True
    except (ValueError, JudgeSpecError):
        record_ok = False
    try:
        validate_submission(**form(judge_name=name), app_mode="space", resolver=PUBLIC)
        form_ok = True
    except ValidationError:
        form_ok = False
    assert form_ok == record_ok == (name in ("x", "my judge v2", "GPT-4o (temp 0)", "Jüdge"))


def test_revision_needs_model_id() -> None:
    with pytest.raises(ValidationError, match="needs an HF model id"):
        validate_submission(**form(hf_model_id=""), app_mode="space", resolver=PUBLIC)


def test_builtin_judges_only_locally() -> None:
    sub = validate_submission(**form(protocol="builtin", model="random", endpoint_url=""), app_mode="local")
    assert (
        sub.judge == BuiltinJudge(name="My judge 7B", control=ControlJudge.RANDOM) and sub.mode == "builtin"
    )
    with pytest.raises(ValidationError, match="Protocol"):
        validate_submission(**form(protocol="builtin", model="random"), app_mode="space", resolver=PUBLIC)
    with pytest.raises(ValidationError, match="control judge"):
        validate_submission(**form(protocol="builtin", model="gpt-4"), app_mode="local")


def test_duplicates_point_at_the_existing_entry() -> None:
    sub = validate_submission(**form(), app_mode="space", resolver=PUBLIC)
    assert isinstance(sub.judge, EndpointJudge)

    def row(where: str, judge: Judge, mode: str = "expected") -> Existing:
        return Existing(judge.name, judge_key(judge, mode), where)

    same = sub.judge.model_copy(update={"name": "Other name", "revision": "MAIN"})  # case-insensitive
    msg = find_duplicate(sub, [row("row 'x'", same)])
    assert msg is not None and "row 'x'" in msg
    assert "revision" in msg and "HF model id" in msg  # the advice names what a revision needs
    assert find_duplicate(sub, [row("row 'y'", same, mode="paper")]) is None
    other_host = same.model_copy(update={"endpoints": ("https://tgi.other.org/v1",)})
    assert (
        find_duplicate(sub, [row("row 'z'", other_host)]) is None
    )  # two servers may both call their model "tgi"
    name_taken = Existing("my judge 7b", ("other",), "request 1 (PENDING)")
    msg = find_duplicate(sub, [name_taken])
    assert msg is not None and "taken" in msg and "request 1" in msg


def test_all_form_errors_at_once_in_form_order() -> None:
    with pytest.raises(SubmissionErrors) as e:
        validate_submission(
            judge_name="", endpoint_url="http://judge.example.org", protocol="grpc", model="", hf_model_id="",
            revision="r1", mode="greedy", contact="", app_mode="space", resolver=PUBLIC,
        )  # fmt: skip
    fields = [x.field for x in e.value.errors]
    assert fields == ["judge_name", "contact", "endpoint_url", "protocol", "model", "mode", "revision"]
    assert e.value.field == "judge_name"


def test_space_mode_takes_only_the_standard_https_port_unless_allowed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(ValidationError, match="standard HTTPS port"):
        check_endpoint_url("https://judge.example.org:22/v1", "space", PUBLIC)
    assert check_endpoint_url("https://judge.example.org:443/v1", "space", PUBLIC).endswith(":443/v1")
    monkeypatch.setenv("DHP_ALLOWED_PORTS", "443,8443")
    ports = allowed_ports_from_env()
    assert check_endpoint_url("https://judge.example.org:8443/v1", "space", PUBLIC, ports)
    with pytest.raises(ValidationError, match="443, 8443"):
        check_endpoint_url("https://judge.example.org:22/v1", "space", PUBLIC, ports)
    assert check_endpoint_url("https://judge.example.org:22/v1", "local")  # local mode: any port
    monkeypatch.setenv("DHP_ALLOWED_PORTS", "https")
    with pytest.raises(ValueError, match="DHP_ALLOWED_PORTS"):
        allowed_ports_from_env()


def test_duplicate_names_compare_by_the_one_slug() -> None:
    sub = Submission(
        judge=BuiltinJudge(name="GPT-4o (temp 0)", control=ControlJudge.RANDOM), mode="builtin", contact="c"
    )
    taken = Existing("gpt-4o  temp 0-", ("other",), "row 'z'")  # same folder name: gpt-4o--temp-0-
    msg = find_duplicate(sub, [taken])
    assert msg is not None and "taken" in msg
    assert find_duplicate(sub, [Existing("gpt-4o temp 0", ("other",), "row 'w'")]) is None


# -- a Hub model id instead of an endpoint URL (#14) -------------------------------------------------
def test_a_hub_model_id_without_an_endpoint_url_is_a_hub_judge_in_both_modes() -> None:
    for app_mode in ("space", "local"):
        sub = validate_submission(**form(endpoint_url="", model="", revision=""), app_mode=app_mode)  # type: ignore[arg-type]
        assert sub.judge == HubJudge(
            name="My judge 7B", model_id="meta-llama/Llama-3.1-8B-Instruct", provider="auto"
        )
    sub = validate_submission(**form(endpoint_url="", model="", provider="Novita"), app_mode="space")
    assert isinstance(sub.judge, HubJudge) and sub.judge.provider == "novita" and sub.judge.revision == "main"


def test_hub_submission_errors_come_all_at_once_in_form_order() -> None:
    with pytest.raises(SubmissionErrors) as e:
        validate_submission(**form(endpoint_url="", protocol="tgi", model="x/y", mode="greedy", provider="no such!"),
                            app_mode="space")  # fmt: skip
    assert [x.field for x in e.value.errors] == ["protocol", "model", "mode", "provider"]
    msgs = [x.message for x in e.value.errors]
    assert (
        "OpenAI-compatible route" in msgs[0]
        and "Leave the model name empty" in msgs[1]
        and "'novita'" in msgs[3]
    )


def test_a_provider_needs_a_hub_model_id_and_an_endpoint_still_needs_its_url() -> None:
    with pytest.raises(SubmissionErrors) as e:
        validate_submission(**form(provider="novita"), app_mode="space", resolver=PUBLIC)
    assert [x.field for x in e.value.errors] == ["provider"]
    with pytest.raises(SubmissionErrors) as e:
        validate_submission(**form(endpoint_url="", hf_model_id="", revision=""), app_mode="space")
    assert [x.field for x in e.value.errors] == ["endpoint_url"] and "HF model id" in e.value.message


def test_the_duplicate_key_of_a_hub_judge_names_its_provider_and_agrees_with_its_results() -> None:
    novita = validate_submission(**form(endpoint_url="", model="", provider="novita"), app_mode="space")
    auto = validate_submission(**form(judge_name="Auto one", endpoint_url="", model=""), app_mode="space")
    assert judge_key(novita.judge, "expected") != judge_key(auto.judge, "expected")
    on_board = JudgeInfo.of(
        novita.judge, model="meta-llama/Llama-3.1-8B-Instruct:novita", settings={"mode": "expected"}
    )
    row = Existing(on_board.name, judge_key(on_board.judge, "expected"), "leaderboard row 'My judge 7B'")
    again = validate_submission(
        **form(judge_name="Renamed", endpoint_url="", model="", provider="novita"), app_mode="space"
    )
    msg = find_duplicate(again, [row])
    assert msg is not None and "already submitted" in msg
    assert find_duplicate(auto, [row]) is None  # another provider is another judge
    ep = validate_submission(
        **form(judge_name="At an endpoint"), app_mode="space", resolver=PUBLIC
    )  # same model id
    assert find_duplicate(ep, [row]) is None
    published = ep.judge.model_copy(update={"publish_host": True})  # results name a published host only
    ep_board = JudgeInfo.of(
        published, model="meta-llama/Llama-3.1-8B-Instruct", settings={"mode": "expected"}
    )
    assert judge_key(ep_board.judge, "expected") == judge_key(published, "expected")  # one key, both records
    hidden = JudgeInfo.of(ep.judge, model="meta-llama/Llama-3.1-8B-Instruct", settings={"mode": "expected"})
    assert hidden.endpoint_hosts == () and hidden.judge.urls == ()  # no host in the public record
    assert (
        judge_key(hidden.judge, "expected")[0] == ""
    )  # its duplicate check is the queue's, which keeps the host


# -- messages say what is wrong, once ------------------------------------------------------------
def _url_message(url: str) -> str:
    with pytest.raises(ValidationError) as e:
        check_endpoint_url(url, "local")
    return e.value.message


def test_url_messages_name_the_problem_once() -> None:
    assert _url_message("not a url") == "Endpoint URL must look like https://host/path, not 'not a url'."
    assert (
        _url_message("ftp://host/x") == "Endpoint URL must look like https://host/path, not 'ftp://host/x'."
    )
    assert _url_message("https://host/a b") == "Endpoint URL must not contain spaces."
    assert ". ." not in _url_message("https:///nohost") and not _url_message("https:///nohost").endswith("..")


def test_an_empty_form_says_a_url_or_a_model_id_is_needed() -> None:
    with pytest.raises(SubmissionErrors) as e:
        validate_submission(judge_name="", endpoint_url="", protocol="openai", model="", hf_model_id="",
                            revision="", mode="expected", contact="", app_mode="space")  # fmt: skip
    messages = [x.message for x in e.value.errors]
    assert "Give an endpoint URL, or leave it empty and give an HF model id" in " ".join(messages)
    assert "Endpoint URL is required." not in messages
