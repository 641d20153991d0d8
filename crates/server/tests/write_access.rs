//! The indexes a role may write (`lode.writeIndexesAllowed`, a Lode extension) and the time a
//! search may run (`srchMaxTime`):
//!
//! - `collect`, `/lode/ingest` and HEC tokens created or edited over REST write only where the
//!   user's roles allow (403 / a failed search otherwise), creating indexes needs `indexes_edit`;
//! - a search running past its user's `srchMaxTime` is finalized (normal and blocking jobs,
//!   oneshot, export, `/lode/search`): it stops, keeps its rows and says so in its messages.
//!
//! The slow search cannot finish in a second on any machine (10^9 multivalue items), so the
//! tests assert what the answer says, never how long it took.

mod common;

use common::basic;

use axum::http::StatusCode;
use lode_node::users::Users;
use lode_server::rest::RestState;
use lode_server::AppState;

fn json(body: &str) -> serde_json::Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

fn enc(q: &str) -> String {
    q.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A server over a node with indexes `main`, `web`, `summary`, `other`, and `users` (name,
/// roles; the password is `<name>-password`).
fn server(users: &[(&str, &[&str])]) -> (tempfile::TempDir, axum::Router) {
    let (dir, node) = common::node_with_buckets(1, 5);
    for i in ["web", "summary", "other"] {
        node.create_index(i).unwrap();
    }
    let home = lode_node::Home::new(dir.path());
    let mut all = Users::default();
    for (name, roles) in users {
        all.add(name, &format!("{name}-password"), roles).unwrap();
    }
    all.save(&home).unwrap();
    let state = AppState::new(node, home.index_root());
    let mut rest = RestState::new(state.clone(), 8089);
    rest.local_secret = Some("local-secret".into());
    (dir, lode_server::api(state, rest))
}

fn cred(name: &str) -> String {
    basic(name, &format!("{name}-password"))
}

async fn call(
    app: &axum::Router,
    method: &str,
    uri: &str,
    auth: &str,
    body: &str,
) -> (StatusCode, String) {
    common::call(app, method, uri, Some(auth), body).await
}

/// A oneshot search as `who` (JSON answer).
async fn oneshot(app: &axum::Router, who: &str, q: &str) -> (StatusCode, String) {
    let body = format!(
        "search={}&exec_mode=oneshot&output_mode=json&count=0",
        enc(q)
    );
    call(app, "POST", "/services/search/jobs", &cred(who), &body).await
}

async fn count(app: &axum::Router, index: &str) -> u64 {
    let (s, b) = oneshot(app, "admin", &format!("search index={index} | stats count")).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    json(&b)["results"][0]["count"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roles_write_only_their_indexes() {
    let (_dir, app) = server(&[
        ("admin", &["admin"]),
        ("ann", &["user"]),
        ("pat", &["power"]),
        ("wes", &["writer"]),
    ]);
    let admin = cred("admin");

    // The role, over REST: writes `summary` and `web`, manages HEC tokens.
    let (s, b) = call(
        &app,
        "POST",
        "/services/authorization/roles",
        &admin,
        "name=writer&imported_roles=user&capabilities=edit_token_http\
         &lode.writeIndexesAllowed=summary%3Bweb",
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let (_, b) = call(
        &app,
        "GET",
        "/services/authorization/roles/writer?output_mode=json",
        &admin,
        "",
    )
    .await;
    let c = &json(&b)["entry"][0]["content"];
    assert_eq!(
        c["lode.writeIndexesAllowed"],
        serde_json::json!(["summary", "web"])
    );
    let (_, b) = call(
        &app,
        "GET",
        "/services/authorization/roles/power?output_mode=json",
        &admin,
        "",
    )
    .await;
    assert_eq!(
        json(&b)["entry"][0]["content"]["lode.writeIndexesAllowed"],
        serde_json::json!(["*"])
    );

    // collect: only into writable indexes; a refused batch writes nothing.
    let collect = |i: &str| format!("| makeresults count=2 | eval a=1 | collect index={i}");
    let (s, b) = oneshot(&app, "ann", &collect("summary")).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{b}");
    assert!(
        b.contains("You (user=ann) do not have permission to write to index=summary"),
        "{b}"
    );
    assert_eq!(count(&app, "summary").await, 0);
    let (s, b) = oneshot(&app, "wes", &collect("summary")).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(count(&app, "summary").await, 2);
    let (s, b) = oneshot(&app, "wes", &collect("other")).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{b}");
    assert!(b.contains("index=other"), "{b}");
    assert_eq!(count(&app, "other").await, 0);
    // power writes every non-internal index; a background job is refused the same way.
    let (s, b) = oneshot(&app, "pat", &collect("other")).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(count(&app, "other").await, 2);
    let (s, b) = call(
        &app,
        "POST",
        "/services/search/jobs",
        &cred("ann"),
        &format!(
            "search={}&exec_mode=blocking&output_mode=json",
            enc(&collect("web"))
        ),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let sid = json(&b)["sid"].as_str().unwrap().to_string();
    let (_, b) = call(
        &app,
        "GET",
        &format!("/services/search/jobs/{sid}?output_mode=json"),
        &cred("ann"),
        "",
    )
    .await;
    let c = &json(&b)["entry"][0]["content"];
    assert_eq!(c["dispatchState"], "FAILED", "{b}");
    assert!(
        c["messages"].to_string().contains("permission to write"),
        "{b}"
    );
    assert_eq!(count(&app, "web").await, 0);

    // /lode/ingest: the same rule; the local secret writes anywhere.
    let line = "2024-01-02 10:00:00 h x=1\n";
    let (s, b) = call(&app, "POST", "/lode/ingest?index=main", &cred("ann"), line).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{b}");
    assert!(
        b.contains("<msg type=\"ERROR\">You (user=ann) do not have permission to write to index=main</msg>"),
        "{b}"
    );
    let (s, _) = call(&app, "POST", "/lode/ingest", &cred("wes"), line).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "the default index is main");
    let (s, b) = call(&app, "POST", "/lode/ingest?index=web", &cred("wes"), line).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let (s, b) = call(
        &app,
        "POST",
        "/lode/ingest?index=web",
        "Lode local-secret",
        line,
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(count(&app, "web").await, 2);

    // HEC tokens: never more than their creator may write.
    let tokens = "/services/data/inputs/http";
    let wes = cred("wes");
    for (form, refused_index) in [
        ("name=t2&indexes=web,main", Some("main")),
        ("name=t3&indexes=web&index=other", Some("other")),
        ("name=t4", None),
    ] {
        let (s, b) = call(&app, "POST", tokens, &wes, form).await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{form}: {b}");
        if let Some(i) = refused_index {
            assert!(
                b.contains(&format!("do not have permission to write to index={i}")),
                "{b}"
            );
        }
    }
    let (s, b) = call(&app, "POST", tokens, &wes, "name=t1&indexes=web&index=web").await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let (s, b) = call(&app, "POST", &format!("{tokens}/t1"), &wes, "indexes=main").await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{b}");
    let (s, b) = call(
        &app,
        "POST",
        &format!("{tokens}/t1"),
        &wes,
        "indexes=web,summary",
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let (s, b) = call(&app, "POST", &format!("{tokens}/t1/disable"), &wes, "").await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let (s, b) = call(&app, "POST", tokens, &admin, "name=any").await;
    assert_eq!(
        s,
        StatusCode::CREATED,
        "admin may create an any-index token: {b}"
    );
    let (s, _) = call(&app, "POST", tokens, &cred("ann"), "name=t5&indexes=main").await;
    assert_eq!(s, StatusCode::FORBIDDEN, "no edit_token_http");

    // Creating an index needs indexes_edit.
    for who in ["wes", "pat", "ann"] {
        let (s, b) = call(&app, "POST", "/services/data/indexes", &cred(who), "name=x").await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{who}: {b}");
    }
    let (s, b) = call(&app, "POST", "/services/data/indexes", &admin, "name=x").await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
}

/// Far more work than a second allows, in batches of rows: 10^5 rows of 2 × 10^4 items each.
const SLOW: &str = "| makeresults count=100000 | eval x=mvcount(mvrange(0,10000)) \
                    | eval y=mvcount(mvrange(0,10000)) | fields x y";

const LIMIT_TEXT: &str = "Search auto-finalized after time limit (1 seconds) reached.";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn srch_max_time_finalizes_every_kind_of_search() {
    let (dir, app) = server(&[("admin", &["admin"]), ("tim", &["brief"])]);
    std::fs::create_dir_all(dir.path().join("etc/system/local")).unwrap();
    std::fs::write(
        dir.path().join("etc/system/local/authorize.conf"),
        // Not importing `user`: srchMaxTime takes the largest value of the roles held.
        "[role_brief]\nsearch = enabled\nsrchIndexesAllowed = *\nsrchMaxTime = 1s\n",
    )
    .unwrap();
    let tim = cred("tim");

    // A blocking job answers once it ended: finalized, with the warning.
    let form = format!(
        "search={}&exec_mode=blocking&output_mode=json&max_count=1000000",
        enc(SLOW)
    );
    let (s, b) = call(&app, "POST", "/services/search/jobs", &tim, &form).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let sid = json(&b)["sid"].as_str().unwrap().to_string();
    let (_, b) = call(
        &app,
        "GET",
        &format!("/services/search/jobs/{sid}?output_mode=json"),
        &tim,
        "",
    )
    .await;
    let c = &json(&b)["entry"][0]["content"];
    assert_eq!(c["dispatchState"], "DONE", "{b}");
    assert_eq!(c["isFinalized"], true, "{b}");
    assert!(c["resultCount"].as_u64().unwrap() < 100_000, "{b}");
    assert_eq!(
        c["messages"],
        serde_json::json!([{"type": "WARN", "text": LIMIT_TEXT}]),
        "{b}"
    );
    // Its rows so far stay readable.
    let (s, _) = call(
        &app,
        "GET",
        &format!("/services/search/jobs/{sid}/results?output_mode=json"),
        &tim,
        "",
    )
    .await;
    assert_eq!(s, StatusCode::OK);

    // oneshot: the rows found, and the warning in `messages`.
    let (s, b) = oneshot(&app, "tim", SLOW).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let v = json(&b);
    assert_eq!(
        v["messages"],
        serde_json::json!([{"type": "WARN", "text": LIMIT_TEXT}])
    );
    assert!(v["results"].as_array().unwrap().len() < 50_000);
    // The same in XML, where the SDK's results reader finds messages.
    let (s, b) = call(
        &app,
        "POST",
        "/services/search/jobs",
        &tim,
        &format!("search={}&exec_mode=oneshot&count=0", enc(SLOW)),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert!(
        b.contains(&format!("<msg type=\"WARN\">{LIMIT_TEXT}</msg>")),
        "{b}"
    );

    // export: the stream ends with the warning.
    let (s, b) = call(
        &app,
        "POST",
        "/services/search/jobs/export",
        &tim,
        &format!("search={}&output_mode=json", enc(SLOW)),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let last = json(b.lines().last().unwrap());
    assert_eq!(
        last,
        serde_json::json!({"messages": [{"type": "WARN", "text": LIMIT_TEXT}]})
    );
    assert!(b.lines().count() < 100_000);

    // /lode/search: a last `warning` line.
    let (s, b) = call(
        &app,
        "GET",
        &format!("/lode/search?q={}", enc(SLOW)),
        &tim,
        "",
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        json(b.lines().last().unwrap()),
        serde_json::json!({ "warning": LIMIT_TEXT })
    );

    // A normal job is finalized in the background the same way.
    let form = format!(
        "search={}&exec_mode=normal&output_mode=json&max_count=1000000",
        enc(SLOW)
    );
    let (s, b) = call(&app, "POST", "/services/search/jobs", &tim, &form).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let sid = json(&b)["sid"].as_str().unwrap().to_string();
    let content = loop {
        let (_, b) = call(
            &app,
            "GET",
            &format!("/services/search/jobs/{sid}?output_mode=json"),
            &tim,
            "",
        )
        .await;
        let c = json(&b)["entry"][0]["content"].clone();
        if c["isDone"] == true {
            break c;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    assert_eq!(content["isFinalized"], true, "{content}");
    assert!(
        content["messages"].to_string().contains(LIMIT_TEXT),
        "{content}"
    );
}
