"""``gpuadvisor catalog update``: a new catalog is validated whole, then swapped in atomically.

Files are served by a local ``http.server`` in a thread (never the internet): plain HTTP on
127.0.0.1 through the documented test-only hook (``GPUADVISOR_TEST_ALLOW_HTTP_LOOPBACK=1``),
and real HTTPS with a throwaway self-signed certificate when the ``openssl`` command exists.
In every failure the installed file stays byte-identical, with the same mtime, and no
backup or temporary file appears.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from gpuadvisor import catalog
from gpuadvisor.catalog import (
    ALLOW_HTTP_LOOPBACK_ENV,
    UpdateError,
    load_offers,
    update_catalog,
    updated_path,
    updater,
)
from gpuadvisor.cli import main

OLD = """\
[old-offer]
kind = "rent"
gpu_id = "rtx-4090"
provider = "Example Cloud"
price_usd = 0.50
instance = "1x RTX 4090"
region = "eu-west"
as_of = "2026-11-01"
source = "example price list, 2026-11-01"

[gone-offer]
kind = "cloud"
gpu_id = "h100-sxm"
provider = "Example Hyperscaler"
price_usd = 9.00
gpus_per_instance = 8
instance = "x8.huge"
region = "us-east"
interconnect = "sxm"
as_of = "2026-11-01"
source = "example price list, 2026-11-01"
"""

NEW = """\
schema_version = 1

[old-offer]
kind = "rent"
gpu_id = "rtx-4090"
provider = "Example Cloud"
price_usd = 0.45
instance = "1x RTX 4090"
region = "eu-west"
as_of = "2026-12-01"
source = "example price list, 2026-12-01"

[new-offer]
kind = "buy-used"
gpu_id = "rtx-3090"
provider = "used market"
price_usd = 800
as_of = "2026-12-01"
source = "example sold listings, 2026-12-01"
"""

BAD_SCHEMA = NEW.replace("price_usd = 800", "price_usd = -800")


# -- a local test server ------------------------------------------------------------------------


@dataclass
class Route:
    """What the server answers for one path."""

    body: bytes = b""
    status: int = 200
    content_length: int | None = None  # None: the real length; -1: no header (close-delimited)
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


class Server:
    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[str] = []
        routes, requests = self.routes, self.requests

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def do_GET(self) -> None:  # http.server's API
                requests.append(self.path)
                route = routes.get(self.path, Route(b"not found", 404))
                if route.delay_s:
                    time.sleep(route.delay_s)
                with contextlib.suppress(OSError):
                    self.send_response(route.status)
                    length = len(route.body) if route.content_length is None else (
                        route.content_length)
                    if length >= 0:
                        self.send_header("Content-Length", str(length))
                    for key, value in route.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(route.body)

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        scheme = "http"
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
            scheme = "https"
        self.base = f"{scheme}://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,),
                                       daemon=True)
        self.thread.start()

    def serve(self, path: str, route: Route | str | bytes) -> str:
        if isinstance(route, str):
            route = Route(route.encode("utf-8"))
        elif isinstance(route, bytes):
            route = Route(route)
        self.routes[path] = route
        return self.base + path

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch):
    """Requests to the local server must not go through a proxy from the environment."""
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY",
                 "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("no_proxy", "*")


@pytest.fixture
def server(monkeypatch) -> Iterator[Server]:
    monkeypatch.setenv(ALLOW_HTTP_LOOPBACK_ENV, "1")
    srv = Server()
    yield srv
    srv.close()


@pytest.fixture
def installed() -> Path:
    """An offers catalog already installed by an earlier update, with an old mtime."""
    path = updated_path("offers")
    path.parent.mkdir(parents=True)
    path.write_text(OLD, encoding="utf-8")
    os.utime(path, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    return path


def assert_untouched(path: Path) -> None:
    assert path.read_bytes() == OLD.encode("utf-8")
    assert path.stat().st_mtime_ns == 1_700_000_000_000_000_000
    assert sorted(p.name for p in path.parent.iterdir()) == ["offers.toml"]
    assert set(load_offers()) == {"old-offer", "gone-offer"}


def fails(source: str, match: str, **kwargs) -> str:
    with pytest.raises(UpdateError, match=match) as info:
        update_catalog(source, **kwargs)
    message = str(info.value)
    assert "\n" not in message
    return message


# -- success --------------------------------------------------------------------------------------


def test_good_update_swaps_the_file_keeps_the_previous_one_and_reports_the_changes(
        server, installed):
    url = server.serve("/catalog/offers.toml", NEW)
    result = update_catalog(url)
    assert result.kind == "offers" and result.path == installed
    assert installed.read_bytes() == NEW.encode("utf-8")
    assert result.backup == installed.with_name("offers.toml.previous")
    assert result.backup.read_bytes() == OLD.encode("utf-8")
    assert result.changes.added == ("new-offer",)
    assert result.changes.removed == ("gone-offer",)
    assert set(result.changes.changed) == {"old-offer"}
    fields_changed = {f for f, _old, _new in result.changes.changed["old-offer"]}
    assert fields_changed == {"price_usd", "as_of", "source"}
    assert "~ old-offer: price_usd 0.5 -> 0.45" in "\n".join(result.changes.lines())
    offers = load_offers()
    assert set(offers) == {"old-offer", "new-offer"}
    assert offers["old-offer"].price_usd == 0.45 and not offers["old-offer"].user
    assert sorted(p.name for p in installed.parent.iterdir()) == ["offers.toml",
                                                                  "offers.toml.previous"]


def test_first_update_installs_over_the_shipped_catalog_without_a_backup(server):
    shipped = load_offers()
    result = update_catalog(server.serve("/offers.toml", NEW))
    assert result.backup is None
    assert set(result.changes.removed) == set(shipped) - {"old-offer", "new-offer"}
    assert result.path.read_text(encoding="utf-8") == NEW


def test_update_from_a_local_path(tmp_path, installed):
    source = tmp_path / "offers.toml"
    source.write_text(NEW, encoding="utf-8")
    result = update_catalog(source)
    assert installed.read_text(encoding="utf-8") == NEW
    assert result.changes.summary() == "1 added, 1 removed, 1 changed"


def test_the_kind_comes_from_the_file_name_or_the_kind_argument(server, installed):
    url = server.serve("/latest.toml", NEW)
    fails(url, "cannot tell the catalog kind from 'latest.toml'")
    assert_untouched(installed)
    assert update_catalog(url, "offers").kind == "offers"


def test_user_overrides_stay_on_top_of_an_updated_catalog(server, installed):
    override = catalog.override_path("offers")
    override.write_text(NEW.replace("price_usd = 800", "price_usd = 650"), encoding="utf-8")
    update_catalog(server.serve("/offers.toml", NEW))
    offers = load_offers()
    assert offers["new-offer"].price_usd == 650 and offers["new-offer"].user


# -- failures change nothing ----------------------------------------------------------------------


def test_bad_schema_changes_nothing_and_says_which_entry_and_field(server, installed):
    message = fails(server.serve("/offers.toml", BAD_SCHEMA), "was not installed")
    assert "[new-offer] field 'price_usd': must be > 0 USD, got -800" in message
    assert_untouched(installed)


def test_unknown_gpu_in_the_new_file_changes_nothing(server, installed):
    fails(server.serve("/offers.toml", NEW.replace('"rtx-3090"', '"rtx-9999"')),
          "field 'gpu_id': unknown GPU 'rtx-9999'")
    assert_untouched(installed)


@pytest.mark.parametrize("body", [b"", b"schema_version = 1\n", b"\xff\xfe not utf-8",
                                  b"<html>captive portal</html>"])
def test_empty_or_non_catalog_download_changes_nothing(server, installed, body):
    fails(server.serve("/offers.toml", body), "was not installed")
    assert_untouched(installed)


def test_truncated_download_changes_nothing(server, installed):
    body = NEW.encode("utf-8")
    url = server.serve("/offers.toml", Route(body[:100], content_length=len(body)))
    fails(url, r"cut short \(100 of \d+ bytes\)")
    assert_untouched(installed)


@pytest.mark.parametrize("status", [404, 500])
def test_http_error_changes_nothing(server, installed, status):
    fails(server.serve("/offers.toml", Route(b"oops", status)), f"HTTP {status}")
    assert_untouched(installed)


def test_plain_http_is_refused_before_connecting(installed, monkeypatch):
    monkeypatch.delenv(ALLOW_HTTP_LOOPBACK_ENV, raising=False)
    message = fails("http://127.0.0.1:9/offers.toml", "refused: plain http://")
    assert "https://" in message
    assert_untouched(installed)


def test_the_test_hook_allows_http_to_the_loopback_host_only(installed, monkeypatch):
    monkeypatch.setenv(ALLOW_HTTP_LOOPBACK_ENV, "1")
    fails("http://example.invalid/offers.toml", "refused: plain http://")
    assert_untouched(installed)


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/offers.toml", "file:///etc/offers.toml",
                                 "data:,x"])
def test_other_schemes_are_refused(installed, url):
    fails(url, "refused: only https:// URLs and local file paths")
    assert_untouched(installed)


def test_redirect_to_plain_http_elsewhere_is_refused(server, installed):
    url = server.serve("/offers.toml", Route(
        b"", 302, headers={"Location": "http://example.invalid/offers.toml"}))
    fails(url, "refused: plain http://")
    assert_untouched(installed)


def test_oversize_download_is_refused_by_its_content_length(server, installed):
    url = server.serve("/offers.toml", Route(NEW.encode("utf-8") * 3))
    fails(url, "over the 1000 byte limit", max_bytes=1000)
    assert_untouched(installed)


def test_oversize_download_without_content_length_is_cut_at_the_limit(server, installed):
    url = server.serve("/offers.toml", Route(b"#" * 5000, content_length=-1))
    fails(url, "more than the 1000 byte limit", max_bytes=1000)
    assert_untouched(installed)


def test_default_size_cap_is_the_catalog_files_and_timeout_20_s():
    # ten times the largest shipped catalog file (gpus.toml), as core.limits says
    largest = max(p.stat().st_size for p in catalog.catalog_dir().glob("*.toml"))
    assert catalog.MAX_UPDATE_BYTES == 2 * 1024 * 1024 >= 10 * largest
    assert catalog.UPDATE_TIMEOUT_S == 20


def test_oversize_local_file_is_refused(tmp_path, installed):
    source = tmp_path / "offers.toml"
    source.write_bytes(b"#" * 2000)
    fails(str(source), "over the 1000 byte limit", max_bytes=1000)
    assert_untouched(installed)


def test_missing_local_file_changes_nothing(tmp_path, installed):
    fails(str(tmp_path / "offers.toml"), "cannot read the file")
    assert_untouched(installed)


def test_slow_server_times_out_and_changes_nothing(server, installed):
    url = server.serve("/offers.toml", Route(NEW.encode("utf-8"), delay_s=1.5))
    started = time.monotonic()
    fails(url, r"(no answer within|took longer than) 0.3 s", timeout_s=0.3)
    assert time.monotonic() - started < 1.4
    assert_untouched(installed)


def test_unreachable_server_changes_nothing(installed, monkeypatch):
    monkeypatch.setenv(ALLOW_HTTP_LOOPBACK_ENV, "1")
    srv = Server()
    url = srv.serve("/offers.toml", NEW)
    srv.close()
    fails(url, "could not download")
    assert_untouched(installed)


def test_a_gpu_catalog_update_that_drops_a_gpu_some_offer_uses_is_refused(server):
    gpus_text = (catalog.catalog_dir() / "gpus.toml").read_text(encoding="utf-8")
    start = gpus_text.index("\n[rtx-4090]\n") + 1
    only_4090 = gpus_text[start:gpus_text.index("\n[", start + 1)]
    message = fails(server.serve("/gpus.toml", only_4090), "was not installed")
    assert "its GPU is missing from the new gpus.toml" in message
    assert not updated_path("gpus").exists()


def test_a_write_failure_changes_nothing(server, installed, monkeypatch):
    def refuse(path, data):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(updater, "write_atomic", refuse)
    fails(server.serve("/offers.toml", NEW), "could not write")
    assert_untouched(installed)


# -- HTTPS ----------------------------------------------------------------------------------------


@pytest.fixture
def tls_files(tmp_path) -> tuple[Path, Path]:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("the openssl command is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return cert, key


def test_https_update_with_a_trusted_certificate(tls_files, installed, monkeypatch):
    monkeypatch.delenv(ALLOW_HTTP_LOOPBACK_ENV, raising=False)
    cert, key = tls_files
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(cert, key)
    srv = Server(tls=server_tls)
    try:
        url = srv.serve("/offers.toml", NEW)
        assert url.startswith("https://")
        fails(url, "could not download")  # self-signed: not trusted by default
        assert_untouched(installed)
        client = ssl.create_default_context(cafile=str(cert))
        result = update_catalog(url, ssl_context=client)
    finally:
        srv.close()
    assert installed.read_text(encoding="utf-8") == NEW
    assert result.backup is not None and result.backup.read_text(encoding="utf-8") == OLD


# -- command line ---------------------------------------------------------------------------------


def test_cli_update_prints_what_changed(server, installed, capsys):
    url = server.serve("/offers.toml", NEW)
    assert main(["catalog", "update", "--from", url]) == 0
    out = capsys.readouterr().out
    assert "offers: 1 added, 1 removed, 1 changed" in out
    assert "+ new-offer" in out and "- gone-offer" in out and "~ old-offer" in out
    assert "offers.toml.previous" in out


def test_cli_update_json(server, installed, capsys):
    url = server.serve("/offers.toml", NEW)
    assert main(["catalog", "update", "--from", url, "--kind", "offers", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["added"] == ["new-offer"] and data["removed"] == ["gone-offer"]
    assert data["path"] == str(installed)


def test_cli_bad_update_exits_2_with_one_line_and_changes_nothing(server, installed, capsys):
    url = server.serve("/offers.toml", BAD_SCHEMA)
    assert main(["catalog", "update", "--from", url]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("catalog update: ")
    assert "field 'price_usd'" in err
    assert_untouched(installed)
