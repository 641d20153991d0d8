//! Roles over REST (`authorization/roles`), users with custom roles, and index access: a user
//! whose role allows one index gets only that index from every search path (oneshot, normal and
//! blocking jobs, export, `/lode/search`), with `index=*`, `index=_*`, another index by name, and
//! no `index=` at all, and sees only that index in `data/indexes`.

mod common;

use common::basic;

use axum::http::StatusCode;
use lode_node::users::Users;
use lode_server::rest::RestState;
use lode_server::AppState;

/// [`common::call`] with credentials.
async fn call(
    app: &axum::Router,
    method: &str,
    uri: &str,
    auth: &str,
    body: &str,
) -> (StatusCode, String) {
    common::call(app, method, uri, Some(auth), body).await
}

fn enc(q: &str) -> String {
    q.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The `index` of every row of a JSON answer (oneshot/results: `results`; export and
/// `/lode/search`: one object per line).
fn indexes_of(body: &str) -> Vec<String> {
    let rows: Vec<serde_json::Value> = match serde_json::from_str::<serde_json::Value>(body) {
        Ok(v) if v.get("results").is_some() => v["results"].as_array().unwrap().clone(),
        _ => body
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                v.get("result").cloned().unwrap_or(v)
            })
            .collect(),
    };
    rows.iter()
        .map(|r| {
            r["index"]
                .as_str()
                .unwrap_or_else(|| panic!("row without index: {r}"))
                .to_string()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_role_limits_every_search_to_its_indexes() {
    let (dir, node) = common::node_with_buckets(1, 20);
    node.create_index("web").unwrap();
    let meta = lode_ingest::SourceMeta {
        host: "w".into(),
        source: "web.log".into(),
        sourcetype: "syslog".into(),
        index: "web".into(),
    };
    let text = "2024-01-02 10:00:00 w1 httpd: GET /a word1 common\n\
                2024-01-02 10:00:01 w1 httpd: GET /b word2 common\n";
    node.ingest(meta, &mut text.as_bytes(), &mut |_| {})
        .unwrap();
    node.roll(Some("web")).unwrap();
    let home = lode_node::Home::new(dir.path());
    let mut users = Users::default();
    users.add("admin", "admin-password", &["admin"]).unwrap();
    users.add("ann", "ann-password", &["user"]).unwrap();
    users.save(&home).unwrap();
    let state = AppState::new(node, home.index_root());
    let rest = RestState::new(state.clone(), 8089);
    let app = lode_server::api(state, rest);
    let admin = basic("admin", "admin-password");
    let ann = basic("ann", "ann-password");

    // Roles: a low-privilege user may not create one; an admin may.
    let create = "name=webonly&capabilities=search&srchIndexesAllowed=web&srchIndexesDefault=web\
                  &srchJobsQuota=2";
    let (s, body) = call(&app, "POST", "/services/authorization/roles", &ann, create).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{body}");
    let (s, body) = call(
        &app,
        "POST",
        "/services/authorization/roles",
        &admin,
        create,
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{body}");
    assert!(body.contains("<title>webonly</title>"), "{body}");
    let (s, _) = call(
        &app,
        "POST",
        "/services/authorization/roles",
        &admin,
        create,
    )
    .await;
    assert_eq!(s, StatusCode::CONFLICT);
    let (s, body) = call(
        &app,
        "GET",
        "/services/authorization/roles/webonly?output_mode=json",
        &admin,
        "",
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let c = &v["entry"][0]["content"];
    assert_eq!(c["capabilities"], serde_json::json!(["search"]));
    assert_eq!(c["srchIndexesAllowed"], serde_json::json!(["web"]));
    assert_eq!(c["srchJobsQuota"], 2);
    let text = std::fs::read_to_string(dir.path().join("etc/system/local/authorize.conf")).unwrap();
    assert!(text.contains("[role_webonly]") && text.contains("srchIndexesAllowed = web"));
    // Cycles and unknown imports are refused.
    let (s, body) = call(
        &app,
        "POST",
        "/services/authorization/roles/webonly",
        &admin,
        "imported_roles=ghost",
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");

    // Users may hold custom roles; an unknown role is a 400.
    let (s, body) = call(
        &app,
        "POST",
        "/services/authentication/users",
        &admin,
        "name=wendy&password=wendy-password&roles=ghost",
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");
    assert!(body.contains("Role=ghost is not grantable"), "{body}");
    let (s, body) = call(
        &app,
        "POST",
        "/services/authentication/users",
        &admin,
        "name=wendy&password=wendy-password&roles=webonly",
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{body}");
    let wendy = basic("wendy", "wendy-password");

    // Wendy sees her own role only; ann sees user's.
    let (_, body) = call(&app, "GET", "/services/authorization/roles", &wendy, "").await;
    assert!(body.contains("<title>webonly</title>") && !body.contains("<title>admin</title>"));
    let (s, _) = call(
        &app,
        "GET",
        "/services/authorization/roles/admin",
        &wendy,
        "",
    )
    .await;
    assert_eq!(s, StatusCode::NOT_FOUND);

    // Every search path, every way of naming indexes: only web for wendy.
    for q in [
        "search *",
        "search index=*",
        "search index=main OR index=web",
        "search index=_* OR index=web",
        "search index=w*",
        "search common",
    ] {
        let oneshot = format!(
            "/services/search/jobs?exec_mode=oneshot&output_mode=json&count=0&search={}",
            enc(q)
        );
        let (s, body) = call(&app, "POST", &oneshot, &wendy, "").await;
        assert_eq!(s, StatusCode::OK, "{q}: {body}");
        let got = indexes_of(&body);
        assert_eq!(got, vec!["web", "web"], "{q}");
        // The admin sees main too (only main when no index is named).
        if !q.contains("index=w") && !q.contains("_*") {
            let (_, body) = call(&app, "POST", &oneshot, &admin, "").await;
            assert!(indexes_of(&body).iter().any(|i| i == "main"), "{q}: {body}");
        }

        let export = format!(
            "/services/search/jobs/export?output_mode=json&search={}",
            enc(q)
        );
        let (s, body) = call(&app, "POST", &export, &wendy, "").await;
        assert_eq!(s, StatusCode::OK, "{q}: {body}");
        assert_eq!(indexes_of(&body), vec!["web", "web"], "export {q}");

        let (s, body) = call(
            &app,
            "GET",
            &format!("/lode/search?q={}", enc(q)),
            &wendy,
            "",
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{q}: {body}");
        assert_eq!(indexes_of(&body), vec!["web", "web"], "/lode/search {q}");

        let (s, created) = call(
            &app,
            "POST",
            "/services/search/jobs",
            &wendy,
            &format!("exec_mode=blocking&output_mode=json&search={}", enc(q)),
        )
        .await;
        assert_eq!(s, StatusCode::CREATED, "{created}");
        let sid = serde_json::from_str::<serde_json::Value>(&created).unwrap()["sid"]
            .as_str()
            .unwrap()
            .to_string();
        let (s, body) = call(
            &app,
            "GET",
            &format!("/services/search/jobs/{sid}/results?output_mode=json&count=0"),
            &wendy,
            "",
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{body}");
        assert_eq!(indexes_of(&body), vec!["web", "web"], "job {q}");
    }
    // Indexes outside the role: no results, not an error.
    for q in [
        "search index=main",
        "search index=_internal",
        "search index=_*",
    ] {
        let oneshot = format!(
            "/services/search/jobs?exec_mode=oneshot&output_mode=json&search={}",
            enc(q)
        );
        let (s, body) = call(&app, "POST", &oneshot, &wendy, "").await;
        assert_eq!(s, StatusCode::OK, "{q}: {body}");
        assert!(indexes_of(&body).is_empty(), "{q}: {body}");
    }
    // Ann (role user: `*`, default main) gets main without index=, and never _internal.
    let (_, body) = call(
        &app,
        "POST",
        "/services/search/jobs?exec_mode=oneshot&output_mode=json&count=0&search=search%20*",
        &ann,
        "",
    )
    .await;
    let got = indexes_of(&body);
    assert!(!got.is_empty() && got.iter().all(|i| i == "main"), "{body}");

    // data/indexes lists only what the caller may search.
    let (_, body) = call(
        &app,
        "GET",
        "/services/data/indexes?output_mode=json",
        &wendy,
        "",
    )
    .await;
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let names: Vec<&str> = v["entry"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["web"]);
    let (s, _) = call(&app, "GET", "/services/data/indexes/main", &wendy, "").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (_, body) = call(
        &app,
        "GET",
        "/services/data/indexes?output_mode=json",
        &admin,
        "",
    )
    .await;
    assert!(
        body.contains("\"main\"") && body.contains("\"web\""),
        "{body}"
    );

    // A role without the search capability cannot search (403).
    let (s, body) = call(
        &app,
        "POST",
        "/services/authorization/roles/webonly",
        &admin,
        "capabilities=",
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let (s, body) = call(
        &app,
        "POST",
        "/services/search/jobs?exec_mode=oneshot&search=search%20*",
        &wendy,
        "",
    )
    .await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{body}");

    // Built-in roles cannot be deleted; a custom one can, by an admin only.
    let (s, _) = call(
        &app,
        "DELETE",
        "/services/authorization/roles/user",
        &admin,
        "",
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let (s, _) = call(
        &app,
        "DELETE",
        "/services/authorization/roles/webonly",
        &ann,
        "",
    )
    .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, _) = call(
        &app,
        "DELETE",
        "/services/authorization/roles/webonly",
        &admin,
        "",
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let (s, _) = call(
        &app,
        "GET",
        "/services/authorization/roles/webonly",
        &admin,
        "",
    )
    .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}
