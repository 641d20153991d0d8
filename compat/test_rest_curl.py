"""Issue 5: the REST API driven by `curl` the way Splunk's REST documentation shows it (Basic
credentials, form bodies, `--get -d output_mode=json`), including HEC tokens created over REST and
then used by a sender."""

import json
import subprocess
import time
import xml.etree.ElementTree as ET

from conftest import ADMIN_PASSWORD, SAMPLE_EVENTS

AUTH = f"admin:{ADMIN_PASSWORD}"


def curl(*args):
    r = subprocess.run(["curl", "-sk", "-w", "\n%{http_code}", *args], capture_output=True, text=True, check=True)
    body, _, status = r.stdout.rpartition("\n")
    return int(status), body


def test_search_job_with_curl(lode):
    # curl -u admin:changeme https://localhost:8089/services/search/jobs -d search="search *"
    status, body = curl("-u", AUTH, lode.api + "/services/search/jobs", "-d", "search=search sdksample")
    assert status == 201, body
    sid = ET.fromstring(body).findtext("sid")
    assert sid
    # curl -u admin:changeme https://localhost:8089/services/search/jobs/<sid>
    for _ in range(600):
        status, body = curl("-u", AUTH, lode.api + f"/services/search/jobs/{sid}", "--get", "-d", "output_mode=json")
        assert status == 200, body
        content = json.loads(body)["entry"][0]["content"]
        if content["isDone"]:
            break
        time.sleep(0.05)
    assert content["dispatchState"] == "DONE"
    assert content["resultCount"] == SAMPLE_EVENTS
    # curl -u admin:changeme https://localhost:8089/services/search/jobs/<sid>/results --get -d output_mode=csv
    status, body = curl("-u", AUTH, lode.api + f"/services/search/jobs/{sid}/results", "--get",
                        "-d", "output_mode=csv", "-d", "count=0")
    assert status == 200
    assert len(body.strip().splitlines()) == SAMPLE_EVENTS + 1
    # Session key login, then the key in the Authorization header.
    status, body = curl(lode.api + "/services/auth/login", "-d", "username=admin", "-d", f"password={ADMIN_PASSWORD}")
    assert status == 200
    key = ET.fromstring(body).findtext("sessionKey")
    status, body = curl("-H", f"Authorization: Splunk {key}", lode.api + "/services/search/jobs/export",
                        "-d", "search=search sdksample | head 2", "-d", "output_mode=json")
    assert status == 200
    lines = [json.loads(l) for l in body.splitlines() if l]
    assert len(lines) == 2 and lines[-1].get("lastrow") is True
    status, _ = curl("-u", "admin:wrong", lode.api + "/services/search/jobs")
    assert status == 401


def test_hec_tokens_over_rest(lode):
    # curl -k -u admin:changeme https://localhost:8089/services/data/inputs/http -d name=myapp
    status, body = curl("-u", AUTH, lode.api + "/services/data/inputs/http", "-d", "name=restmade",
                        "-d", "index=main", "-d", "sourcetype=rest_st", "-d", "output_mode=json")
    assert status == 201, body
    token = json.loads(body)["entry"][0]["content"]["token"]
    status, body = curl("-u", AUTH, lode.api + "/services/data/inputs/http", "--get", "-d", "output_mode=json")
    names = [e["name"] for e in json.loads(body)["entry"]]
    assert "http://restmade" in names
    status, _ = curl("-u", AUTH, lode.api + "/services/data/inputs/http", "-d", "name=restmade")
    assert status == 409
    # The collector picks the new token up within a second or two.
    deadline = time.time() + 30
    while True:
        status, body = curl("-H", f"Authorization: Splunk {token}", lode.hec + "/services/collector/event",
                            "-d", '{"event": "restmadetoken works"}')
        if status == 200 or time.time() > deadline:
            break
        time.sleep(0.2)
    assert status == 200, body
    assert lode.count("restmadetoken sourcetype=rest_st") == 1
    status, body = curl("-u", AUTH, "-X", "POST", lode.api + "/services/data/inputs/http/restmade/disable")
    assert status == 200, body
    status, body = curl("-u", AUTH, "-X", "DELETE", lode.api + "/services/data/inputs/http/restmade")
    assert status == 200, body
    status, _ = curl("-u", AUTH, lode.api + "/services/data/inputs/http/restmade")
    assert status == 404
