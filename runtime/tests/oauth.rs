//! The OAuth client (runtime/src/auth/) against a real authorization server and protected
//! MCP server (conformance-tests/auth-server) over real HTTP: authorization code with PKCE
//! and `resource` through dynamic registration, refresh, step-up and its limit, client
//! credentials with each client authentication, the error when a person would have to log
//! in, and no secret in any error text.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::HttpServer;
use mcpr_compiler::ir::{OAuthGrant, TokenEndpointAuth};
use mcpr_runtime::auth::{Authorizer, OAuthConfig};
use mcpr_runtime::transport::http::HttpConfig;
use mcpr_runtime::{CallOptions, Client, Error};
use serde_json::{Value, json};

fn settings() -> OAuthConfig {
    OAuthConfig {
        token_cache: false,
        timeout: Duration::from_secs(10),
        ..OAuthConfig::default()
    }
}

async fn connect(server: &HttpServer, oauth: OAuthConfig) -> Result<Client, Error> {
    let mut http = HttpConfig::new(server.url.clone());
    let auth = Authorizer::new(&server.url, oauth, &Default::default()).expect("settings accepted");
    http.auth = Some(Arc::new(auth));
    Client::connect_http(http, common::config(Some("2025-11-25"))).await
}

/// What the server saw, from its `/events`.
async fn events(server: &HttpServer) -> Vec<Value> {
    let url = server.url.replace("/mcp", "/events");
    let text = reqwest::get(&url).await.unwrap().text().await.unwrap();
    serde_json::from_str::<Vec<Value>>(&text).unwrap()
}

fn of_kind<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["kind"] == kind).collect()
}

/// Every secret value the server issued or received (tokens, codes, verifiers, client
/// secrets), none of which may appear in `text`; `issued` says whether there must be some.
fn assert_no_secret(events: &[Value], text: &str, issued: bool) {
    let secrets: Vec<&str> = of_kind(events, "issued")
        .iter()
        .flat_map(|e| e["values"].as_array().cloned().unwrap_or_default())
        .filter_map(|v| v.as_str().map(str::to_string))
        .map(|s| &*Box::leak(s.into_boxed_str()))
        .collect();
    assert_eq!(!secrets.is_empty(), issued, "{events:?}");
    for s in secrets {
        assert!(!text.contains(s), "secret {s} appears in: {text}");
    }
}

async fn call_text(client: &Client, tool: &str) -> Result<String, Error> {
    let call = client
        .call_tool(tool, json!({}), &CallOptions::default())
        .await?;
    Ok(call.result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authorization_code_with_pkce_and_resource_through_registration() {
    let server = HttpServer::start("mcpr-auth-server", &[]);
    let client = connect(&server, settings()).await.expect("connects");
    let who = call_text(&client, "whoami").await.unwrap();
    assert!(who.starts_with("client client_"), "{who}");
    assert!(who.ends_with("scope mcp"), "the challenge's scope: {who}");
    let ev = events(&server).await;
    assert_eq!(of_kind(&ev, "register").len(), 1, "{ev:?}");
    let authorize = of_kind(&ev, "authorize");
    assert_eq!(authorize.len(), 1, "{ev:?}");
    assert_eq!(authorize[0]["pkce_s256"], true);
    assert_eq!(authorize[0]["resource"], true);
    let tokens = of_kind(&ev, "token");
    assert_eq!(tokens[0]["grant"], "authorization_code");
    assert_eq!(tokens[0]["resource"], true, "resource on the token request");
    // A registered confidential client authenticates as the registration said.
    let registered = &of_kind(&ev, "register")[0]["method"];
    assert_eq!(&tokens[0]["auth"], registered);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_token_is_refreshed_and_the_request_sent_again() {
    let server = HttpServer::start("mcpr-auth-server", &["--token-lifetime", "1"]);
    let client = connect(&server, settings()).await.expect("connects");
    call_text(&client, "whoami").await.unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let who = call_text(&client, "whoami").await.expect("refreshed");
    assert!(who.ends_with("scope mcp"), "{who}");
    let ev = events(&server).await;
    let grants: Vec<&Value> = of_kind(&ev, "token").iter().map(|e| &e["grant"]).collect();
    assert!(grants.contains(&&json!("refresh_token")), "{grants:?}");
    assert_eq!(
        of_kind(&ev, "authorize").len(),
        1,
        "no second authorization"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insufficient_scope_steps_up_to_the_challenged_scope() {
    let server = HttpServer::start("mcpr-auth-server", &[]);
    let client = connect(&server, settings()).await.expect("connects");
    let report = call_text(&client, "admin_report")
        .await
        .expect("stepped up");
    assert!(report.ends_with("scope mcp admin"), "{report}");
    let ev = events(&server).await;
    assert_eq!(of_kind(&ev, "mcp-403").len(), 1);
    let scopes: Vec<&Value> = of_kind(&ev, "authorize")
        .iter()
        .map(|e| &e["scope"])
        .collect();
    assert_eq!(scopes, vec![&json!("mcp"), &json!("mcp admin")]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn step_up_stops_at_its_limit() {
    let server = HttpServer::start("mcpr-auth-server", &["--never-grant", "admin"]);
    let client = connect(&server, settings()).await.expect("connects");
    let e = call_text(&client, "admin_report").await.unwrap_err();
    assert_eq!(e.code(), "MCP-AUTH-010", "{e}");
    let ev = events(&server).await;
    let step_ups = of_kind(&ev, "authorize").len() - 1;
    assert!(
        (1..=mcpr_runtime::auth::flow::MAX_STEP_UPS as usize).contains(&step_ups),
        "{step_ups} step-ups: {ev:?}"
    );
    // The session stays usable for what the token allows.
    assert!(call_text(&client, "whoami").await.is_ok());
    assert_no_secret(&ev, &e.to_string(), true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_credentials_with_basic_and_post_authentication() {
    let server = HttpServer::start(
        "mcpr-auth-server",
        &["--client", "ci-bot:s3cret-ci-bot", "--no-registration"],
    );
    for (auth, method) in [
        (None, "client_secret_basic"),
        (
            Some(TokenEndpointAuth::ClientSecretPost),
            "client_secret_post",
        ),
    ] {
        let oauth = OAuthConfig {
            grant: OAuthGrant::ClientCredentials,
            client_id: Some("ci-bot".into()),
            client_secret: Some("s3cret-ci-bot".into()),
            client_auth: auth,
            ..settings()
        };
        let client = connect(&server, oauth).await.expect("connects");
        let who = call_text(&client, "whoami").await.unwrap();
        assert_eq!(who, "client ci-bot scope mcp");
        let ev = events(&server).await;
        let last = of_kind(&ev, "token").last().cloned().cloned().unwrap();
        assert_eq!(last["grant"], "client_credentials");
        assert_eq!(last["auth"], method);
        assert!(of_kind(&ev, "authorize").is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_client_secret_is_a_token_error_without_the_secret() {
    let server = HttpServer::start("mcpr-auth-server", &["--client", "ci-bot:right-secret"]);
    let oauth = OAuthConfig {
        grant: OAuthGrant::ClientCredentials,
        client_id: Some("ci-bot".into()),
        client_secret: Some("wrong-secret-value".into()),
        ..settings()
    };
    let e = connect(&server, oauth).await.unwrap_err();
    assert_eq!(e.code(), "MCP-AUTH-009", "{e}");
    assert!(e.to_string().contains("invalid_client"), "{e}");
    assert!(!e.to_string().contains("wrong-secret-value"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_page_is_an_error_naming_the_settings_to_give() {
    let server = HttpServer::start("mcpr-auth-server", &["--login-page"]);
    let e = connect(&server, settings()).await.unwrap_err();
    assert_eq!(e.code(), "MCP-AUTH-007", "{e}");
    let text = e.to_string();
    for setting in ["client_credentials", "refreshToken", "Token from"] {
        assert!(text.contains(setting), "{setting} missing from: {text}");
    }
    let ev = events(&server).await;
    assert_eq!(of_kind(&ev, "login-page").len(), 1);
    assert_no_secret(&ev, &text, false);
}
