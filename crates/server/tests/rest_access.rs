//! Every route of the API listener, walked without credentials (all refused with 401 but login
//! and health), with bad credentials, and as a low-privilege user (refused where Splunk refuses:
//! managing users, roles, indexes and HEC tokens, another user's jobs, writing into indexes,
//! rolling buckets, server metrics, scheduling searches; searching without the `search`
//! capability).

mod common;

use common::{basic, call};

use axum::http::StatusCode;
use lode_node::users::Users;
use lode_server::rest::RestState;
use lode_server::AppState;

/// (method, path) of every route, with `{sid}` and `{name}` filled in.
const ROUTES: &[(&str, &str)] = &[
    ("GET", "/lode/search?q=x"),
    ("POST", "/lode/ingest"),
    ("POST", "/lode/roll"),
    ("GET", "/lode/metrics"),
    ("GET", "/services/server/info"),
    ("GET", "/services/messages"),
    ("GET", "/services/search/jobs"),
    ("POST", "/services/search/jobs"),
    ("POST", "/services/search/v2/jobs/"),
    ("POST", "/services/search/jobs/export"),
    ("GET", "/services/search/jobs/1.1"),
    ("DELETE", "/services/search/jobs/1.1"),
    ("POST", "/services/search/jobs/1.1/control"),
    ("GET", "/services/search/jobs/1.1/results"),
    ("GET", "/services/search/v2/jobs/1.1/events"),
    ("GET", "/servicesNS/admin/search/search/jobs"),
    ("GET", "/services/authentication/users"),
    ("POST", "/services/authentication/users/"),
    ("GET", "/services/authentication/users/admin"),
    ("GET", "/services/authorization/roles"),
    ("POST", "/services/authorization/roles/"),
    ("GET", "/services/authorization/roles/admin"),
    ("POST", "/services/authorization/roles/user"),
    ("DELETE", "/services/authorization/roles/power"),
    ("GET", "/servicesNS/nobody/search/authorization/roles"),
    ("GET", "/services/data/indexes"),
    ("POST", "/services/data/indexes"),
    ("GET", "/services/data/indexes/main"),
    ("GET", "/services/data/inputs/http"),
    ("POST", "/services/data/inputs/http"),
    ("POST", "/services/data/inputs/http/x/disable"),
    // The web app's endpoints (saved searches, syntax check, dashboards).
    ("GET", "/services/saved/searches"),
    ("POST", "/services/saved/searches"),
    ("GET", "/servicesNS/admin/search/saved/searches/x"),
    ("POST", "/services/saved/searches/x"),
    ("DELETE", "/services/saved/searches/x"),
    ("GET", "/services/search/parser"),
    ("POST", "/services/search/parser"),
    ("GET", "/services/lode/dashboards"),
    ("GET", "/servicesNS/admin/search/lode/dashboards/x"),
    ("POST", "/services/lode/dashboards/x"),
    ("DELETE", "/services/lode/dashboards/x"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_needs_credentials_and_low_privilege_is_refused() {
    let (dir, node) = common::node_with_buckets(1, 20);
    let home = lode_node::Home::new(dir.path());
    let mut users = Users::default();
    users.add("admin", "admin-password", &["admin"]).unwrap();
    users.add("ann", "ann-password", &["user"]).unwrap();
    users.add("nos", "nos-password", &["nosearch"]).unwrap();
    // Whose wrong password the walk below sends (its failures hold the name off).
    users.add("zed", "zed-password", &["user"]).unwrap();
    users.save(&home).unwrap();
    // A role that may do nothing at all.
    std::fs::create_dir_all(home.etc().join("system/local")).unwrap();
    std::fs::write(
        home.etc().join("system/local/authorize.conf"),
        "[role_nosearch]\nsrchIndexesAllowed = main\n",
    )
    .unwrap();
    let state = AppState::new(node, home.index_root());
    let mut rest = RestState::new(state.clone(), 8089);
    rest.local_secret = Some("local-secret".into());
    let app = lode_server::api(state, rest.clone());

    // Per-user search quotas: a `user` runs 3 searches at once, the 4th is refused (503).
    let ann_session = lode_server::rest::Session::new("ann", vec!["user".into()]);
    let held: Vec<_> = (0..3)
        .map(|_| rest.quota_slot(&ann_session).unwrap())
        .collect();
    let refused = rest.quota_slot(&ann_session).err().expect("quota reached");
    let resp = axum::response::IntoResponse::into_response(refused);
    assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
    drop(held);
    assert!(rest.quota_slot(&ann_session).is_ok());

    assert_eq!(
        call(&app, "GET", "/lode/health", None, "").await.0,
        StatusCode::OK
    );
    for (m, p) in ROUTES {
        for auth in [
            None,
            Some("Splunk nope"),
            Some("Lode wrong"),
            Some(basic("zed", "bad").as_str()),
        ] {
            let (s, body) = call(&app, m, p, auth, "").await;
            assert_eq!(s, StatusCode::UNAUTHORIZED, "{m} {p} with {auth:?}: {body}");
            // Splunk's message shape, which the SDKs turn into an AuthenticationError.
            assert!(
                body.contains(
                    "<messages>\n    <msg type=\"WARN\">call not properly authenticated</msg>"
                ),
                "{m} {p}: {body}"
            );
        }
    }
    let (s, body) = call(
        &app,
        "POST",
        "/services/auth/login",
        None,
        "username=ann&password=nope",
    )
    .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "{body}");
    assert!(body.contains("Login failed"));

    // The local secret opens Lode's own routes.
    let (s, _) = call(&app, "GET", "/lode/metrics", Some("Lode local-secret"), "").await;
    assert_eq!(s, StatusCode::OK);

    // A low-privilege user: no user or token management, no other user's jobs.
    let ann = basic("ann", "ann-password");
    let admin = basic("admin", "admin-password");
    for (m, p, body) in [
        (
            "POST",
            "/services/authentication/users",
            "name=eve&password=eve-password&roles=admin",
        ),
        ("DELETE", "/services/authentication/users/admin", ""),
        ("GET", "/services/data/inputs/http", ""),
        ("POST", "/services/data/inputs/http", "name=x"),
        (
            "POST",
            "/services/authorization/roles",
            "name=evil&capabilities=edit_user&srchIndexesAllowed=_*",
        ),
        (
            "POST",
            "/services/authorization/roles/user",
            "capabilities=edit_user",
        ),
        ("DELETE", "/services/authorization/roles/user", ""),
        ("DELETE", "/services/authorization/roles/power", ""),
        ("GET", "/services/authorization/roles/admin", ""),
        ("POST", "/services/data/indexes", "name=evil"),
        ("POST", "/services/authentication/users/ann", "roles=admin"),
        (
            "POST",
            "/lode/ingest?index=main",
            "2024-01-01 00:00:00 evil\n",
        ),
        ("POST", "/lode/roll", ""),
        ("GET", "/lode/metrics", ""),
        (
            "POST",
            "/services/saved/searches",
            "name=s&search=x&is_scheduled=1&cron_schedule=*+*+*+*+*",
        ),
    ] {
        let (s, text) = call(&app, m, p, Some(&ann), body).await;
        assert!(
            s == StatusCode::FORBIDDEN || s == StatusCode::NOT_FOUND,
            "{m} {p}: {s} {text}"
        );
    }
    // Without the `search` capability, no search entry point runs anything; the rest of the
    // API still answers (their own entities, syntax checks).
    let nos = basic("nos", "nos-password");
    for (m, p, body) in [
        ("GET", "/lode/search?q=search+x", ""),
        (
            "POST",
            "/services/search/jobs",
            "search=search+x&exec_mode=oneshot",
        ),
        ("POST", "/services/search/jobs", "search=search+x"),
        (
            "POST",
            "/services/search/v2/jobs",
            "search=search+x&exec_mode=blocking",
        ),
        ("POST", "/services/search/jobs/export", "search=search+x"),
    ] {
        let (s, text) = call(&app, m, p, Some(&nos), body).await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{m} {p}: {text}");
        assert!(
            text.contains("<msg type=\"ERROR\">You (user=nos) do not have permission to search"),
            "{text}"
        );
    }
    for (m, p) in [
        ("GET", "/services/search/jobs"),
        ("GET", "/services/search/parser?q=x"),
        ("GET", "/services/saved/searches"),
        ("GET", "/services/lode/dashboards"),
        ("GET", "/services/data/indexes"),
        ("GET", "/services/server/info"),
    ] {
        let (s, text) = call(&app, m, p, Some(&nos), "").await;
        assert_eq!(s, StatusCode::OK, "{m} {p}: {text}");
    }

    // Nothing of that took effect.
    let text = std::fs::read_to_string(dir.path().join("etc/system/local/authorize.conf"))
        .unwrap_or_default();
    assert!(
        !text.contains("evil") && !text.contains("edit_user"),
        "{text}"
    );
    assert_eq!(
        Users::load(&home).unwrap().get("ann").unwrap().roles,
        vec!["user"]
    );
    let (s, roles) = call(
        &app,
        "GET",
        "/services/authorization/roles?output_mode=json",
        Some(&ann),
        "",
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        roles.contains("\"user\"") && !roles.contains("\"admin\""),
        "{roles}"
    );
    let (s, users) = call(
        &app,
        "GET",
        "/services/authentication/users?output_mode=json",
        Some(&ann),
        "",
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        users.contains("\"ann\"") && !users.contains("\"admin\""),
        "{users}"
    );
    let (s, created) = call(
        &app,
        "POST",
        "/services/search/jobs",
        Some(&admin),
        "search=search word1&exec_mode=blocking&output_mode=json",
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{created}");
    let sid = serde_json::from_str::<serde_json::Value>(&created).unwrap()["sid"]
        .as_str()
        .unwrap()
        .to_string();
    let control = format!("/services/search/jobs/{sid}/control");
    let (s, _) = call(&app, "POST", &control, Some(&ann), "action=cancel").await;
    assert_eq!(
        s,
        StatusCode::NOT_FOUND,
        "another user's job cannot be controlled"
    );
    // Lists are filtered: another user's job is not in ann's list.
    let (s, list) = call(
        &app,
        "GET",
        "/services/search/jobs?output_mode=json",
        Some(&ann),
        "",
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert!(!list.contains(&sid), "{list}");
    for p in [
        format!("/services/search/jobs/{sid}"),
        format!("/services/search/jobs/{sid}/results"),
    ] {
        assert_eq!(
            call(&app, "GET", &p, Some(&ann), "").await.0,
            StatusCode::NOT_FOUND,
            "{p}"
        );
        assert_eq!(
            call(&app, "GET", &p, Some(&admin), "").await.0,
            StatusCode::OK,
            "{p}"
        );
    }
}

/// Basic credentials with a wrong password count as failures of the name, as failed logins do:
/// after two, the name's next check waits, and a Basic request inside the wait is refused
/// without a check, even with the right password; a pair verified before still passes, and so
/// does a session. A login of that name is made to wait too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_basic_credentials_hold_the_name_off() {
    let (dir, node) = common::node_with_buckets(1, 5);
    let home = lode_node::Home::new(dir.path());
    let mut users = Users::default();
    users.add("ann", "ann-password", &["user"]).unwrap();
    users.add("bob", "bob-password", &["user"]).unwrap();
    users.save(&home).unwrap();
    let state = AppState::new(node, home.index_root());
    let rest = RestState::new(state.clone(), 8089);
    let app = lode_server::api(state.clone(), rest.clone());
    let info = "/services/server/info";
    let right = basic("ann", "ann-password");
    assert_eq!(
        call(&app, "GET", info, Some(&right), "").await.0,
        StatusCode::OK
    );
    // One failure: no wait yet, bob's right password is checked and passes.
    let (s, _) = call(&app, "GET", info, Some(&basic("bob", "bad")), "").await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert!(rest.failures.wait("bob").is_zero());
    for _ in 0..2 {
        let (s, _) = call(&app, "GET", info, Some(&basic("ann", "bad")), "").await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
    }
    assert!(rest.failures.waiting("ann"));
    assert!(!rest.failures.wait("ann").is_zero());
    // Ann's pair verified before passes; Bob (one failure) is checked as usual.
    assert_eq!(
        call(&app, "GET", info, Some(&right), "").await.0,
        StatusCode::OK
    );
    let bob = basic("bob", "bob-password");
    assert_eq!(
        call(&app, "GET", info, Some(&bob), "").await.0,
        StatusCode::OK
    );
    assert!(
        rest.failures.wait("bob").is_zero(),
        "a pass clears the failures"
    );
    // Ann's right password not verified before (the remembered pairs forgotten): refused
    // while the wait lasts, with Splunk's answer.
    let fresh = RestState {
        basic: Default::default(),
        ..rest.clone()
    };
    let app2 = lode_server::api(state, fresh.clone());
    let (s, body) = call(&app2, "GET", info, Some(&right), "").await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "{body}");
    assert!(body.contains("call not properly authenticated"), "{body}");
    assert_eq!(fresh.basic.held(), 0, "refused without a check");
}
