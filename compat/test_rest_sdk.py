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
    return client.connect(host=u.hostname, port=u.port, scheme=u.scheme,
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
    assert requests.get(lode.api + "/lode/health", verify=False).status_code == 200
    for path in ["/services/server/info", "/services/search/jobs/export?search=search+x",
                 "/lode/search?q=x", "/lode/metrics"]:
        r = requests.get(lode.api + path, verify=False)
        assert r.status_code == 401, path
        assert "<msg type=\"WARN\">" in r.text


def test_normal_job_poll_page_and_cancel(lode):
    import time
    service = connect(lode)
    job = service.jobs.create("search sdksample | sort n", earliest_time="0", latest_time="now")
    deadline = time.time() + 60
    while not job.is_done():
        assert time.time() < deadline, "job never finished"
        time.sleep(0.05)
    job.refresh()
    assert job["dispatchState"] == "DONE"
    assert job["isDone"] == "1"
    assert int(job["resultCount"]) == SAMPLE_EVENTS
    assert int(job["eventCount"]) == SAMPLE_EVENTS
    assert job.access.owner == "admin"
    # Page through the results 20 at a time.
    seen = []
    offset = 0
    while True:
        page = [r for r in results.JSONResultsReader(job.results(output_mode="json", count=20, offset=offset))
                if isinstance(r, dict)]
        if not page:
            break
        seen.extend(int(r["n"]) for r in page)
        offset += len(page)
    assert seen == list(range(SAMPLE_EVENTS))
    preview = [r for r in results.JSONResultsReader(job.preview(output_mode="json", count=0)) if isinstance(r, dict)]
    assert len(preview) == SAMPLE_EVENTS
    import xml.etree.ElementTree as ET
    summary = ET.fromstring(job.summary().read())
    users = [f for f in summary.findall("field") if f.get("k") == "user"]
    assert users and users[0].get("dc") == "5"
    timeline = ET.fromstring(job.timeline().read())
    assert sum(int(b.get("c")) for b in timeline.findall("bucket")) == SAMPLE_EVENTS
    sid = job.sid
    assert sid in service.jobs
    assert service.job(sid)["sid"] == sid
    job.touch()
    job.set_ttl(100)
    job.refresh()
    assert job["ttl"] == "100"
    job.cancel()
    assert sid not in service.jobs
    job.cancel()  # idempotent: a gone job's 404 is swallowed by the SDK


def test_blocking_job_and_listing(lode):
    service = connect(lode)
    job = service.jobs.create("search sdksample | stats count by user", exec_mode="blocking")
    assert job.is_done()
    rows = [r for r in results.JSONResultsReader(job.results(output_mode="json")) if isinstance(r, dict)]
    assert sum(int(r["count"]) for r in rows) == SAMPLE_EVENTS
    assert job.sid in [j.sid for j in service.jobs.list()]
    # The events of a transforming search are not kept; event searches' are.
    events = [r for r in results.JSONResultsReader(job.events(output_mode="json")) if isinstance(r, dict)]
    assert events == []
    job.cancel()


def test_garbage_job_fails_at_creation(lode):
    service = connect(lode)
    with pytest.raises(binding.HTTPError) as e:
        service.jobs.create("abcd|asfwqqq")
    assert e.value.status == 400
    assert "asfwqqq" in str(e.value) or "abcd" in str(e.value)


def test_users_roles_and_private_jobs(lode):
    admin = connect(lode)
    if "bob" not in [u.name for u in admin.users.list()]:
        admin.users.create("bob", password="bob-password-1", roles="user")
    assert {"admin", "power", "user"} <= {r.name for r in admin.roles.list()}
    bob = connect(lode, username="bob", password="bob-password-1")
    assert [u.name for u in bob.users.list()] == ["bob"]
    with pytest.raises(binding.HTTPError) as e:
        bob.users.create("mallory", password="mallory-pass-1", roles="admin")
    assert e.value.status == 403
    # A job is its owner's alone.
    job = admin.jobs.create("search sdksample | head 1", exec_mode="blocking")
    assert job.sid not in bob.jobs
    with pytest.raises(binding.HTTPError) as e:
        bob.get(f"search/jobs/{job.sid}/results")
    assert e.value.status == 404
    job.cancel()
    # Password change by the user, with the old password.
    bob.post("authentication/users/bob", password="bob-password-2", oldpassword="bob-password-1")
    connect(lode, username="bob", password="bob-password-2")
    with pytest.raises(binding.AuthenticationError):
        connect(lode, username="bob", password="bob-password-1")


def test_indexes_list_and_create(lode):
    service = connect(lode)
    names = [i.name for i in service.indexes.list()]
    assert "main" in names and "_internal" in names
    main = service.indexes["main"]
    assert int(main["totalEventCount"]) >= SAMPLE_EVENTS
    if "sdkcreated" not in names:
        service.indexes.create("sdkcreated")
    assert "sdkcreated" in [i.name for i in service.indexes.list()]
    # Events can go there at once, through the HEC or a search's index.
    import requests
    from conftest import TOKEN
    r = requests.post(lode.hec + "/services/collector/event", verify=False,
                      headers={"Authorization": f"Splunk {TOKEN}"},
                      data='{"event": "into the new index", "index": "sdkcreated"}')
    assert r.status_code == 200, r.text
    assert lode.count("index=sdkcreated") == 1


def test_custom_role_restricts_searches_to_its_indexes(lode):
    import requests
    from conftest import TOKEN
    admin = connect(lode)
    if "sdkrole" not in [i.name for i in admin.indexes.list()]:
        admin.indexes.create("sdkrole")
    r = requests.post(lode.hec + "/services/collector/event", verify=False,
                      headers={"Authorization": f"Splunk {TOKEN}"},
                      data='{"event": "rolemarker one", "index": "sdkrole"}'
                           '{"event": "rolemarker two", "index": "sdkrole"}')
    assert r.status_code == 200, r.text
    assert lode.wait_count("index=sdkrole rolemarker", 2) == 2
    if "sdkreader" not in [r.name for r in admin.roles.list()]:
        admin.roles.create("sdkreader", capabilities="search", srchIndexesAllowed="sdkrole",
                           srchIndexesDefault="sdkrole", srchJobsQuota=2)
    role = admin.roles["sdkreader"]
    assert "search" in role["capabilities"]
    assert role["srchIndexesAllowed"] in ("sdkrole", ["sdkrole"])
    with pytest.raises(binding.HTTPError) as e:
        admin.users.create("nobodyrole", password="nobody-pass-1", roles="nosuchrole")
    assert e.value.status == 400
    if "carol" not in [u.name for u in admin.users.list()]:
        admin.users.create("carol", password="carol-password-1", roles="sdkreader")
    carol = connect(lode, username="carol", password="carol-password-1")

    def rows(svc, q):
        stream = svc.jobs.oneshot(q, output_mode="json", count=0)
        return [r for r in results.JSONResultsReader(stream) if isinstance(r, dict)]

    # Without index=, with index=*, by name: only sdkrole.
    assert sorted(r["_raw"] for r in rows(carol, "search *")) == ["rolemarker one", "rolemarker two"]
    counts = rows(carol, "search index=* | stats count by index")
    assert [(r["index"], int(r["count"])) for r in counts] == [("sdkrole", 2)]
    assert rows(carol, "search index=main sdksample") == []
    assert rows(carol, "search index=_internal") == []
    exported = [r for r in results.JSONResultsReader(
        carol.jobs.export("search index=* | fields index", output_mode="json"))
        if isinstance(r, dict)]
    assert {r["index"] for r in exported} == {"sdkrole"}
    job = carol.jobs.create("search index=*", exec_mode="blocking")
    got = [r for r in results.JSONResultsReader(job.results(output_mode="json", count=0))
           if isinstance(r, dict)]
    assert {r["index"] for r in got} == {"sdkrole"} and len(got) == 2
    job.cancel()
    # The admin still sees everything.
    assert len(rows(admin, "search index=main sdksample")) == SAMPLE_EVENTS
    # data/indexes lists only what carol may search; she cannot make roles.
    assert [i.name for i in carol.indexes.list()] == ["sdkrole"]
    with pytest.raises(binding.HTTPError) as e:
        carol.roles.create("sneaky", capabilities="edit_user")
    assert e.value.status == 403
