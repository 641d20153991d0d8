//! The web listener's router: the embedded app, and the REST endpoints the app adds (saved
//! searches, dashboards, the syntax check), walked through as a user would, in process.

mod common;

use common::{basic, call};

use axum::http::StatusCode;
use lode_node::users::Users;
use lode_server::rest::RestState;
use lode_server::AppState;

fn json(body: &str) -> serde_json::Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_saved_searches_dashboards_and_parser() {
    let (dir, node) = common::node_with_buckets(1, 20);
    let home = lode_node::Home::new(dir.path());
    let mut users = Users::default();
    users.add("ann", "ann-password", &["power"]).unwrap(); // scheduling needs schedule_search
    users.add("bob", "bob-password", &["user"]).unwrap();
    users.save(&home).unwrap();
    let state = AppState::new(node, home.index_root());
    let rest = RestState::new(state.clone(), 8089);
    let app = lode_server::web::router(lode_server::api(state, rest));
    let ann = basic("ann", "ann-password");
    let bob = basic("bob", "bob-password");

    // The app itself needs no credentials; the API does.
    let (s, html) = call(&app, "GET", "/dashboards/x", None, "").await;
    assert_eq!(s, StatusCode::OK);
    assert!(html.contains("<div id=\"app\""));
    for uri in [
        "/services/saved/searches",
        "/servicesNS/ann/search/saved/searches/x",
        "/services/lode/dashboards",
        "/services/lode/dashboards/x",
        "/services/search/parser?q=x",
    ] {
        assert_eq!(
            call(&app, "GET", uri, None, "").await.0,
            StatusCode::UNAUTHORIZED,
            "{uri}"
        );
    }

    // The syntax check places errors.
    let (s, b) = call(
        &app,
        "GET",
        "/services/search/parser?q=error&output_mode=json",
        Some(&ann),
        "",
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(json(&b)["search"], "search error");
    let q = "error | stats cont by host";
    let (s, b) = call(
        &app,
        "GET",
        &format!(
            "/services/search/parser?output_mode=json&q={}",
            q.replace(' ', "+").replace('|', "%7C")
        ),
        Some(&ann),
        "",
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let v = json(&b);
    let start = v["span"]["start"].as_u64().unwrap() as usize;
    assert_eq!(&q[start..start + 4], "cont", "{b}");
    assert!(v["messages"][0]["text"].as_str().unwrap().contains("cont"));

    // Saved searches: create, conflict, list, update, other users do not see them, delete.
    let base = "/servicesNS/ann/search/saved/searches";
    let form = "name=Errors+by+host&search=error+%7C+stats+count+by+host&dispatch.earliest_time=-24h&is_scheduled=1&cron_schedule=*%2F5+*+*+*+*&alert_type=number+of+events&alert_comparator=greater+than&alert_threshold=10&display.visualizations.charting.chart=column&output_mode=json";
    let (s, b) = call(&app, "POST", base, Some(&ann), form).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let c = &json(&b)["entry"][0]["content"];
    assert_eq!(c["search"], "error | stats count by host");
    assert_eq!(c["is_scheduled"], true);
    assert_eq!(c["display.visualizations.charting.chart"], "column");
    assert_eq!(
        call(&app, "POST", base, Some(&ann), form).await.0,
        StatusCode::CONFLICT
    );
    let (s, _) = call(&app, "POST", base, Some(&ann), "name=x").await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "a saved search needs a search");
    let (s, _) = call(&app, "POST", base, Some(&ann), "name=y&search=x&bad+key=1").await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "keys are Splunk-shaped");
    let conf = home.etc().join("users/ann/search/local/savedsearches.conf");
    let text = std::fs::read_to_string(&conf).unwrap();
    assert!(
        text.contains("[Errors by host]") && text.contains("cron_schedule = */5 * * * *"),
        "{text}"
    );
    let one = format!("{base}/Errors%20by%20host");
    let (s, b) = call(
        &app,
        "POST",
        &one,
        Some(&ann),
        "dispatch.latest_time=now&output_mode=json",
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(
        json(&b)["entry"][0]["content"]["dispatch.latest_time"],
        "now"
    );
    let (_, b) = call(
        &app,
        "GET",
        "/services/saved/searches?output_mode=json",
        Some(&ann),
        "",
    )
    .await;
    assert_eq!(json(&b)["entry"].as_array().unwrap().len(), 1);
    let (_, b) = call(
        &app,
        "GET",
        "/services/saved/searches?output_mode=json",
        Some(&bob),
        "",
    )
    .await;
    assert_eq!(
        json(&b)["entry"].as_array().unwrap().len(),
        0,
        "private to ann"
    );
    let (_, xml) = call(&app, "GET", base, Some(&ann), "").await;
    assert!(xml.contains("<title>Errors by host</title>"), "{xml}");
    assert_eq!(
        call(&app, "DELETE", &one, Some(&ann), "").await.0,
        StatusCode::OK
    );
    assert_eq!(
        call(&app, "GET", &one, Some(&ann), "").await.0,
        StatusCode::NOT_FOUND
    );

    // Dashboards: a JSON file per dashboard.
    let dash = "/servicesNS/ann/search/lode/dashboards/overview";
    let doc = r#"{"title":"Overview","inputs":[{"type":"text","token":"host","label":"Host","default":"*"}],
                 "panels":[{"title":"A","search":"host=$host$ | stats count","viz":"single"},
                           {"title":"B","search":"index=main | stats count by host","viz":"column"}]}"#;
    assert_eq!(
        call(&app, "POST", dash, Some(&ann), doc).await.0,
        StatusCode::CREATED
    );
    assert_eq!(
        call(&app, "POST", dash, Some(&ann), doc).await.0,
        StatusCode::OK
    );
    let file = home
        .etc()
        .join("users/ann/search/local/data/ui/views/overview.json");
    assert_eq!(
        json(&std::fs::read_to_string(&file).unwrap())["panels"][1]["title"],
        "B"
    );
    let (_, b) = call(&app, "GET", "/services/lode/dashboards", Some(&ann), "").await;
    let v = json(&b);
    assert_eq!(v["entry"][0]["name"], "overview");
    assert_eq!(
        v["entry"][0]["content"]["panels"].as_array().unwrap().len(),
        2
    );
    let (_, b) = call(&app, "GET", "/services/lode/dashboards", Some(&bob), "").await;
    assert_eq!(json(&b)["entry"].as_array().unwrap().len(), 0);
    for (bad, why) in [
        ("not json", "not a JSON dashboard"),
        (r#"{"panels":[]}"#, "title"),
        (r#"{"title":"t","panels":[{"title":"x"}]}"#, "search"),
    ] {
        let (s, b) = call(&app, "POST", dash, Some(&ann), bad).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert!(b.contains(why), "{b}");
    }
    let (s, _) = call(
        &app,
        "POST",
        "/services/lode/dashboards/..%2Fx",
        Some(&ann),
        doc,
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "names stay in their directory");
    assert_eq!(
        call(&app, "DELETE", dash, Some(&ann), "").await.0,
        StatusCode::OK
    );
    assert_eq!(
        call(&app, "GET", dash, Some(&ann), "").await.0,
        StatusCode::NOT_FOUND
    );
    assert!(!file.exists());
}
