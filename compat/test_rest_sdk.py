"""Issue 5: the official Python SDK (splunk-sdk from PyPI) against Lode's REST API: log in with a
username and password, run oneshot searches, read them with JSONResultsReader, stream an export,
and get Splunk's errors for bad credentials and bad searches."""

import urllib.parse

import pytest
import splunklib.binding as binding
import splunklib.client as client
import splunklib.results as results

from conftest import ADMIN_PASSWORD, SAMPLE_EVENTS


def connect(lode, **kw):
    u = urllib.parse.urlparse(lode.api)
    return client.connect(host=u.hostname, port=u.port, scheme="http",
                          username=kw.get("username", "admin"),
                          password=kw.get("password", ADMIN_PASSWORD), autologin=True)


def test_connect_and_server_info(lode):
    service = connect(lode)
    info = service.info
    assert info["version"] == "9.1.0"
    assert info["licenseState"] == "OK"
    assert service.splunk_version == (9, 1, 0)


def test_bad_credentials_are_401(lode):
    with pytest.raises(binding.AuthenticationError):
        connect(lode, password="wrong-password")
    with pytest.raises(binding.AuthenticationError):
        connect(lode, username="", password="")


def test_oneshot_json_results(lode):
    service = connect(lode)
    stream = service.jobs.oneshot("search sdksample | head 3", output_mode="json")
    reader = results.JSONResultsReader(stream)
    rows = [r for r in reader if isinstance(r, dict)]
    assert len(rows) == 3
    assert reader.is_preview is False
    assert all("sdksample" in r["_raw"] for r in rows)
    stream = service.jobs.oneshot("search sdksample | stats count by user", output_mode="json", count=0)
    rows = [r for r in results.JSONResultsReader(stream) if isinstance(r, dict)]
    assert sorted(r["user"] for r in rows) == ["u0", "u1", "u2", "u3", "u4"]
    assert sum(int(r["count"]) for r in rows) == SAMPLE_EVENTS
    # Default count is 100, count=0 means all (here 50); offset pages.
    stream = service.jobs.oneshot("search sdksample", output_mode="json", count=10, offset=45)
    rows = [r for r in results.JSONResultsReader(stream) if isinstance(r, dict)]
    assert len(rows) == 5


def test_export_streams_every_row(lode):
    service = connect(lode)
    stream = service.jobs.export("search sdksample | fields _raw n", output_mode="json")
    reader = results.JSONResultsReader(stream)
    rows = [r for r in reader if isinstance(r, dict)]
    assert len(rows) == SAMPLE_EVENTS
    assert reader.is_preview is False
    assert sorted(int(r["n"]) for r in rows) == list(range(SAMPLE_EVENTS))


def test_bad_search_is_an_http_error(lode):
    service = connect(lode)
    with pytest.raises(binding.HTTPError) as e:
        service.jobs.export("asdaf;lkj2r23=", output_mode="json")
    assert e.value.status == 400
    with pytest.raises(binding.HTTPError) as e:
        service.jobs.oneshot("search foo | nosuchcommand", output_mode="json")
    assert e.value.status == 400


def test_unauthenticated_requests_are_refused(lode):
    import requests
    for path in ["/services/server/info", "/services/search/jobs/export?search=search+x"]:
        r = requests.get(lode.api + path)
        assert r.status_code == 401, path
        assert "<msg type=\"WARN\">" in r.text
