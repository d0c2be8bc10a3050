"""Configuration: the file, the environment, and errors that say where."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cursor_byok.config.guards import Redactor
from cursor_byok.config.reader import ConfigError
from cursor_byok.config.settings import (
    DEFAULT_PORT,
    Secret,
    load_config,
    resolve_key,
)
from cursor_byok.store.database import PostgresURL, parse_database

GOOD = """\
default_model = "sonnet"

[server]
port = 9000
database = "~/byok.sqlite3"

[providers.anthropic]
api = "anthropic"
base_url = "https://api.anthropic.com/"
api_key = "sk-ant-planted-secret"

[providers.local]
api = "openai-chat"
base_url = "http://127.0.0.1:11434/v1"
vendor = "ollama"

[models.sonnet]
provider = "anthropic"
model = "claude-sonnet-4-6"
context_window = 200000
thinking = "medium"
price = { input = 3, output = 15, cache_read = 0.3, cache_write = 3.75 }

[models.qwen]
provider = "local"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_a_valid_file_loads_every_section(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD), env={})
    assert config.server.port == 9000
    assert config.server.database == Path("~/byok.sqlite3").expanduser()
    assert config.providers["anthropic"].base_url == "https://api.anthropic.com"
    assert config.providers["local"].vendor == "ollama"
    sonnet = config.models["sonnet"]
    assert sonnet.price is not None
    assert (sonnet.model, sonnet.thinking, sonnet.price.output) == (
        "claude-sonnet-4-6",
        "medium",
        15,
    )
    assert config.models["qwen"].model == "qwen"
    assert config.default_model == "sonnet"


def test_keys_never_show_in_reprs_or_errors(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD), env={})
    assert "planted" not in repr(config)
    assert "planted" not in str(config.providers["anthropic"])
    assert config.secrets() == ["sk-ant-planted-secret"]
    assert resolve_key(config.providers["anthropic"]) == Secret("sk-ant-planted-secret")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '[providers.x]\napi = "cohere"\nbase_url = "https://x"\n',
            r":2: providers\.x\.api: must be one of",
        ),
        ('[providers.x]\napi = "gemini"\nbase_url = "ftp://x"\n', r":3: providers\.x\.base_url"),
        ("[server]\nport = 70000\n", r":2: server\.port: must be between"),
        ('[server]\nport = "80"\n', r":2: server\.port: expected an integer"),
        ('[server]\nhots = "x"\n', r":2: server\.hots: unknown key"),
        ('[server]\nhttp2 = "yes"\n', r":2: server\.http2: expected true or false"),
        ('[server]\ntls_cert = "c.pem"\n', r"server\.tls_key: needs tls_cert and tls_key"),
        ('[models.m]\nprovider = "ghost"\n', r":2: models\.m\.provider: unknown provider 'ghost'"),
        ('[models.m]\nmodel = "x"\n', r":1: models\.m: missing key 'provider'"),
        ('colour = "blue"\n', r":1: colour: unknown key"),
        ('default_model = "nope"\n', r":1: default_model: not a configured model"),
        ("[server\n", r"invalid TOML"),
    ],
)
def test_errors_name_the_line_and_the_key(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        load_config(write(tmp_path, text), env={})


def test_a_thinking_level_and_prices_are_checked(tmp_path: Path) -> None:
    base = '[providers.p]\napi = "gemini"\nbase_url = "https://g"\n[models.m]\nprovider = "p"\n'
    with pytest.raises(ConfigError, match=r":6: models\.m\.thinking"):
        load_config(write(tmp_path, base + 'thinking = "maximum"\n'), env={})
    with pytest.raises(ConfigError, match=r"models\.m\.price: input must be a non-negative"):
        load_config(write(tmp_path, base + "price = { input = -1 }\n"), env={})


def test_with_no_file_one_key_in_the_environment_gives_default_models() -> None:
    config = load_config(None, env={"ANTHROPIC_API_KEY": "sk-k"})
    assert list(config.providers) == ["anthropic"]
    assert config.default_model in config.models
    assert all(m.provider == "anthropic" for m in config.models.values())
    assert config.server.port == DEFAULT_PORT and config.server.host == "127.0.0.1"
    key = resolve_key(config.providers["anthropic"], {"ANTHROPIC_API_KEY": "sk-k"})
    assert key == Secret("sk-k")


def test_an_openai_compatible_base_url_makes_a_chat_provider() -> None:
    env = {"OPENAI_BASE_URL": "http://localhost:8000/v1/", "OPENAI_MODEL": "qwen3"}
    config = load_config(None, env=env)
    provider = config.providers["openai-compatible"]
    assert (provider.api, provider.base_url) == ("openai-chat", "http://localhost:8000/v1")
    assert list(config.models) == ["qwen3"]


def test_with_nothing_configured_there_are_no_models() -> None:
    config = load_config(None, env={})
    assert config.providers == {} and config.models == {} and config.default_model is None


def test_the_access_token_can_come_from_the_environment() -> None:
    config = load_config(None, env={"CURSOR_BYOK_TOKEN": "tok-1"})
    assert config.server.access_token == Secret("tok-1")
    assert "tok-1" in config.secrets()


PROVIDER = '[providers.x]\napi = "anthropic"\nbase_url = "https://x"\n'


@pytest.mark.parametrize(
    ("text", "env", "expected"),
    [
        ('[server]\naccess_token = "abc"\n', {}, r":2: server\.access_token: "),
        ("", {"CURSOR_BYOK_TOKEN": "abc"}, r"CURSOR_BYOK_TOKEN: "),
        (PROVIDER + 'api_key = "abc"\n', {}, r":4: providers\.x\.api_key: "),
        (PROVIDER + 'api_key_env = "X_KEY"\n', {"X_KEY": " abc\n"}, r"X_KEY \(providers\.x\): "),
        ("", {"ANTHROPIC_API_KEY": "abc"}, r"ANTHROPIC_API_KEY \(providers\.anthropic\): "),
        (PROVIDER + 'headers = { X-Key = "abc" }\n', {}, r":4: providers\.x\.headers: 'X-Key' "),
        (
            '[server]\ndatabase = "postgresql://u:p%23@db/x"\n',
            {},
            r":2: server\.database: the password ",
        ),
    ],
)
def test_a_secret_too_short_to_be_cut_from_logs_is_refused(
    tmp_path: Path, text: str, env: dict[str, str], expected: str
) -> None:
    """A secret under four characters would be left in every log line (cutting
    it would mangle ordinary words), so it is refused, naming where it is."""
    with pytest.raises(ConfigError, match=expected + r".*at least 4 characters") as refused:
        load_config(write(tmp_path, text), env=env)
    assert "abc" not in str(refused.value) and "p%23" not in str(refused.value)


def test_provider_header_values_are_secrets(tmp_path: Path) -> None:
    text = PROVIDER + 'headers = { Authorization = "Bearer hdr-planted", X-Org = "org-planted" }\n'
    config = load_config(write(tmp_path, text), env={})
    secrets = config.secrets()
    assert {"Bearer hdr-planted", "hdr-planted", "org-planted"} <= set(secrets)
    assert "planted" not in repr(config)
    redact = Redactor(secrets)
    assert redact("401: token hdr-planted for org-planted") == "401: token *** for ***"


def test_every_form_of_the_database_password_is_a_secret(tmp_path: Path) -> None:
    text = '[server]\ndatabase = "postgresql://u:pa#s%3F@db/x"\n'
    config = load_config(write(tmp_path, text), env={})
    assert {"pa#s%3F", "pa#s?"} <= set(config.secrets())


def test_an_unreadable_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the configuration"):
        load_config(tmp_path / "missing.toml", env={})


def test_zero_is_not_mistaken_for_unset(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r":2: server\.port"):
        load_config(write(tmp_path, "[server]\nport = 0\n"), env={})
    base = '[providers.p]\napi = "gemini"\nbase_url = "https://g"\n[models.m]\nprovider = "p"\n'
    with pytest.raises(ConfigError, match=r"models\.m\.context_window: must be positive"):
        load_config(write(tmp_path, base + "context_window = 0\n"), env={})


def test_a_pasted_key_with_a_newline_is_trimmed_and_env_keys_are_redacted() -> None:
    env = {"ANTHROPIC_API_KEY": "sk-ant-abc123\n"}
    config = load_config(None, env=env)
    assert resolve_key(config.providers["anthropic"], env) == Secret("sk-ant-abc123")
    assert config.secrets(env) == ["sk-ant-abc123"]
    quoted = "Illegal header value b'sk-ant-abc123\\n' and sk-ant-abc123"
    assert "abc123" not in Redactor(["sk-ant-abc123"])(quoted)


def test_durability_defaults_to_full_and_accepts_normal(tmp_path: Path) -> None:
    assert load_config(None, env={}).server.durability == "full"
    assert (
        load_config(write(tmp_path, '[server]\ndurability = "normal"\n'), env={}).server.durability
        == "normal"
    )
    with pytest.raises(ConfigError, match=r":2: server\.durability"):
        load_config(write(tmp_path, '[server]\ndurability = "fast"\n'), env={})


def test_timeouts_hosts_and_metrics_access_are_configurable(tmp_path: Path) -> None:
    server = load_config(write(tmp_path, ""), env={}).server
    assert (server.body_timeout_s, server.keepalive_timeout_s) == (30.0, 5)
    assert (server.stall_timeout_s, server.retry_budget_s) == (300.0, 30.0)
    assert server.allowed_hosts == () and not server.metrics_public
    assert (server.max_connections, server.max_connections_per_peer) == (2048, 512)
    assert not server.allow_cleartext
    text = (
        "[server]\nbody_timeout_s = 2.5\nkeepalive_timeout_s = 1\nstall_timeout_s = 60\n"
        'retry_budget_s = 10\nallowed_hosts = ["proxy.lan"]\nmetrics_public = true\n'
        "max_connections = 100\nmax_connections_per_peer = 10\nallow_cleartext = true\n"
    )
    server = load_config(write(tmp_path, text), env={}).server
    assert (server.body_timeout_s, server.keepalive_timeout_s) == (2.5, 1)
    assert (server.stall_timeout_s, server.retry_budget_s) == (60.0, 10.0)
    assert server.allowed_hosts == ("proxy.lan",) and server.metrics_public
    assert (server.max_connections, server.max_connections_per_peer) == (100, 10)
    assert server.allow_cleartext


def test_how_long_a_question_or_an_approval_waits_is_configurable(tmp_path: Path) -> None:
    server = load_config(write(tmp_path, ""), env={}).server
    assert (server.question_wait_s, server.approval_wait_s) == (1800.0, 300.0)
    text = "[server]\nquestion_wait_s = 600\napproval_wait_s = 45.5\n"
    server = load_config(write(tmp_path, text), env={}).server
    assert (server.question_wait_s, server.approval_wait_s) == (600.0, 45.5)
    with pytest.raises(ConfigError, match=r":2: server\.question_wait_s: must be a"):
        load_config(write(tmp_path, "[server]\nquestion_wait_s = 0\n"), env={})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[server]\nstall_timeout_s = 0\n", "config.toml:2: server.stall_timeout_s: must be a"),
        ("[server]\nbody_timeout_s = -1\n", "config.toml:2: server.body_timeout_s: must be a"),
        ("[server]\nkeepalive_timeout_s = 0.5\n", "server.keepalive_timeout_s: expected an int"),
        ("[server]\nallowed_hosts = [1]\n", "server.allowed_hosts: must be a list of host names"),
        ("[server]\nmetrics_public = 1\n", "server.metrics_public: expected true or false"),
        ("[server]\nmax_connections = 0\n", "server.max_connections: must be a positive"),
        (
            "[server]\nmax_connections = 10\nmax_connections_per_peer = 20\n",
            "server.max_connections_per_peer: exceeds max_connections",
        ),
        ("[server]\nallow_cleartext = 1\n", "server.allow_cleartext: expected true or false"),
    ],
)
def test_bad_timeouts_and_host_lists_are_named(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(expected)):
        load_config(write(tmp_path, text), env={})


def test_http2_is_on_by_default_and_tls_takes_a_certificate_and_its_key(tmp_path: Path) -> None:
    plain = load_config(write(tmp_path, "[server]\nport = 9000\n"), env={})
    assert plain.server.http2 and plain.server.tls is None
    text = '[server]\nhttp2 = false\ntls_cert = "c.pem"\ntls_key = "k.pem"\n'
    config = load_config(write(tmp_path, text), env={})
    assert not config.server.http2
    assert config.server.tls == (Path("c.pem"), Path("k.pem"))


def test_compact_at_defaults_to_ninety_percent_and_must_be_a_share(tmp_path: Path) -> None:
    assert load_config(None, env={}).server.compact_at == 0.9
    loaded = load_config(write(tmp_path, "[server]\ncompact_at = 0.75\n"), env={})
    assert loaded.server.compact_at == 0.75
    for bad in ("0", "1.5", '"most"'):
        with pytest.raises(ConfigError, match=r":2: server\.compact_at"):
            load_config(write(tmp_path, f"[server]\ncompact_at = {bad}\n"), env={})


def test_the_memory_budget_and_the_append_limit_are_configurable(tmp_path: Path) -> None:
    server = load_config(write(tmp_path, ""), env={}).server
    mib = 1024 * 1024
    assert (server.max_body_bytes, server.max_append_bytes) == (4 * mib, 32 * mib)
    assert (server.request_memory_bytes, server.memory_budget_bytes) == (64 * mib, 512 * mib)
    text = (
        "[server]\nmax_append_bytes = 1000\nrequest_memory_bytes = 2000\n"
        "memory_budget_bytes = 3000\nmax_body_bytes = 500\n"
    )
    server = load_config(write(tmp_path, text), env={}).server
    assert (server.max_body_bytes, server.max_append_bytes) == (500, 1000)
    assert (server.request_memory_bytes, server.memory_budget_bytes) == (2000, 3000)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[server]\nmemory_budget_bytes = 0\n", "server.memory_budget_bytes: must be a positive"),
        ("[server]\nmax_append_bytes = 1.5\n", "server.max_append_bytes: expected an integer"),
        ("[server]\nmax_body_bytes = -1\n", "server.max_body_bytes: must be a positive number of"),
        (
            "[server]\nmemory_budget_bytes = 10\nrequest_memory_bytes = 20\n",
            "config.toml:3: server.request_memory_bytes: exceeds memory_budget_bytes",
        ),
    ],
)
def test_bad_memory_limits_are_named(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(expected)):
        load_config(write(tmp_path, text), env={})


def test_a_postgresql_url_selects_postgresql_and_its_password_is_a_secret(
    tmp_path: Path,
) -> None:
    text = GOOD.replace(
        'database = "~/byok.sqlite3"',
        'database = "postgresql://byok:pg-planted-pw@db.internal:5433/byok?sslmode=require"',
    )
    config = load_config(write(tmp_path, text), env={})
    database = config.server.database
    assert isinstance(database, PostgresURL)
    assert database.url.endswith("@db.internal:5433/byok?sslmode=require")
    assert "pg-planted-pw" in config.secrets()
    assert "pg-planted-pw" not in str(database) + repr(database) + repr(config)
    assert str(database) == "postgresql://byok:***@db.internal:5433/byok?sslmode=require"


def test_a_password_given_as_a_query_parameter_is_hidden_too() -> None:
    database = parse_database("postgres://byok@/byok?host=/run/pg&password=q-pw")
    assert isinstance(database, PostgresURL) and database.password == "q-pw"
    assert "q-pw" not in str(database)
    assert parse_database("~/state.db") == Path("~/state.db").expanduser()


def test_a_database_url_of_another_kind_is_refused_naming_the_line(tmp_path: Path) -> None:
    text = GOOD.replace('database = "~/byok.sqlite3"', 'database = "mysql://db/byok"')
    with pytest.raises(ConfigError, match=r"config.toml:\d+: server.database: 'mysql://db/byok'"):
        load_config(write(tmp_path, text), env={})
