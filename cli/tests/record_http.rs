//! `mcpr record --url`: a scripted client talks Streamable HTTP to the proxy, which
//! forwards to the reference server over HTTP (real sockets both ways); the draft must pass
//! `mcpr check`, and `mcpr run` must pass it against the same server.

mod common;

use common::{HttpServer, mcpr_in, output_text, reference_server, scratch};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// `mcpr record --url` running in a folder; its stderr is read on a thread.
struct Recorder {
    child: Child,
    /// The URL it printed (where the client goes).
    url: String,
    stderr: Arc<Mutex<String>>,
}

impl Recorder {
    fn start(dir: &std::path::Path, upstream: &str, extra: &[&str]) -> Recorder {
        let mut child = mcpr_in(dir)
            .args(["record", "-o", "draft.mcpr", "--url", upstream])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = mpsc::channel();
        let all = stderr.clone();
        let pipe = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                if let Some(url) = line.strip_prefix("mcpr record: listening on ") {
                    let _ = tx.send(url.to_string());
                }
                let mut s = all.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        let url = rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no address printed: {}", stderr.lock().unwrap()));
        Recorder { child, url, stderr }
    }

    /// Sends `signal` (`INT`, `TERM`), as Ctrl-C does.
    fn signal(&self, signal: &str) {
        let ok = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &self.child.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok);
    }

    /// Waits for mcpr to exit; its exit code and stderr.
    fn wait(mut self) -> (Option<i32>, String) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                // The stderr thread ends with the pipe.
                std::thread::sleep(Duration::from_millis(100));
                return (status.code(), self.stderr.lock().unwrap().clone());
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("mcpr record did not end: {}", self.stderr.lock().unwrap());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A test that fails midway leaves no recorder behind.
impl Drop for Recorder {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// An HTTP answer as the client read it.
struct Reply {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The JSON-RPC messages of the body: one JSON object, or the data of each event.
    fn messages(&self) -> Vec<Value> {
        if self
            .header("content-type")
            .is_some_and(|c| c.starts_with("text/event-stream"))
        {
            events(&self.body)
        } else {
            vec![
                serde_json::from_str(&self.body)
                    .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body)),
            ]
        }
    }

    /// The message answering `id`.
    fn answer(&self, id: i64) -> Value {
        self.messages()
            .into_iter()
            .find(|m| m["id"] == json!(id) && m.get("method").is_none())
            .unwrap_or_else(|| panic!("no answer to {id} in {}", self.body))
    }
}

/// The data of each event of an event stream.
fn events(body: &str) -> Vec<Value> {
    body.replace("\r\n", "\n")
        .split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            let data = data.join("\n");
            (!data.trim().is_empty()).then(|| serde_json::from_str(&data).unwrap())
        })
        .collect()
}

/// A scripted Streamable HTTP client.
struct Client {
    rt: tokio::runtime::Runtime,
    http: reqwest::Client,
    url: String,
    session: Option<String>,
    /// Headers sent with every request.
    extra: Vec<(String, String)>,
}

impl Client {
    fn new(url: &str) -> Client {
        // reqwest is built without a TLS provider of its own (the runtime installs ring).
        let _ = rustls::crypto::ring::default_provider().install_default();
        Client {
            rt: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap(),
            http: reqwest::Client::new(),
            url: url.to_string(),
            session: None,
            extra: Vec::new(),
        }
    }

    fn request(
        &self,
        method: reqwest::Method,
        headers: &[(&str, String)],
    ) -> reqwest::RequestBuilder {
        let mut r = self
            .http
            .request(method, &self.url)
            .timeout(Duration::from_secs(30));
        if let Some(s) = &self.session {
            r = r.header("Mcp-Session-Id", s);
        }
        for (k, v) in &self.extra {
            r = r.header(k, v);
        }
        for (k, v) in headers {
            r = r.header(*k, v);
        }
        r
    }

    /// POSTs `body` with `headers`; reads the whole answer.
    fn post(&self, body: &Value, headers: &[(&str, String)]) -> Reply {
        let req = self
            .request(reqwest::Method::POST, headers)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .body(body.to_string());
        self.rt.block_on(async {
            let resp = req.send().await.unwrap();
            let status = resp.status().as_u16();
            let headers = resp.headers().clone();
            let body = resp.text().await.unwrap();
            Reply {
                status,
                headers,
                body,
            }
        })
    }

    /// A legacy request in the session: its answer.
    fn call(&self, id: i64, method: &str, params: Value) -> Value {
        let r = self.post(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
            &[("MCP-Protocol-Version", "2025-06-18".into())],
        );
        assert_eq!(r.status, 200, "{method}: {}", r.body);
        r.answer(id)
    }

    fn delete(&self) -> u16 {
        let req = self.request(reqwest::Method::DELETE, &[]);
        self.rt
            .block_on(async { req.send().await.unwrap().status().as_u16() })
    }
}

fn legacy_session(c: &mut Client) {
    let init = c.post(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {"sampling": {}},
            "clientInfo": {"name": "scripted", "version": "1"}}}),
        &[],
    );
    assert_eq!(init.status, 200, "{}", init.body);
    assert_eq!(
        init.answer(1)["result"]["protocolVersion"],
        "2025-06-18",
        "{}",
        init.body
    );
    c.session = Some(
        init.header("mcp-session-id")
            .expect("the session id came through")
            .to_string(),
    );
    let ack = c.post(
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        &[("MCP-Protocol-Version", "2025-06-18".into())],
    );
    assert_eq!(ack.status, 202, "{}", ack.body);
    let tools = c.call(2, "tools/list", json!({}));
    assert!(
        tools["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{tools}"
    );
    let add = c.call(
        3,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
    );
    assert_eq!(add["result"]["structuredContent"]["sum"], 5, "{add}");
    let fail = c.call(4, "tools/call", json!({"name": "fail", "arguments": {}}));
    assert_eq!(fail["result"]["isError"], true, "{fail}");
    let bad = c.call(5, "tools/call", json!({"name": "echo", "arguments": {}}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    c.call(6, "resources/read", json!({"uri": "fixture://status"}));
    let greet = c.call(
        7,
        "prompts/get",
        json!({"name": "greet", "arguments": {"name": "Ada"}}),
    );
    assert!(greet["result"]["messages"].is_array(), "{greet}");
    // An event stream of several events: the progress notifications, then the answer.
    let progress = c.post(
        &json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {
            "name": "progress", "arguments": {"steps": 3}, "_meta": {"progressToken": "p"}}}),
        &[("MCP-Protocol-Version", "2025-06-18".into())],
    );
    assert_eq!(
        progress
            .header("content-type")
            .map(|c| c.starts_with("text/event-stream")),
        Some(true),
        "{}",
        progress.body
    );
    let msgs = progress.messages();
    let steps: Vec<f64> = msgs
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .filter_map(|m| m["params"]["progress"].as_f64())
        .collect();
    assert_eq!(steps, [1.0, 2.0, 3.0], "{}", progress.body);
    assert_eq!(
        progress.answer(8)["result"]["content"][0]["text"],
        "done 3 steps"
    );
    c.call(9, "ping", json!({}));
}

#[test]
fn an_http_session_is_recorded_and_replays_green() {
    let upstream = HttpServer::start(reference_server(), &["--http", "127.0.0.1:0"]);
    let dir = scratch(&[]);
    let rec = Recorder::start(dir.path(), &upstream.url, &[]);
    assert!(rec.url.starts_with("http://127.0.0.1:") && rec.url.ends_with("/mcp"));
    let mut c = Client::new(&rec.url);
    legacy_session(&mut c);
    // The client ends its session: the recording ends with it.
    let deleted = c.delete();
    assert!((200..300).contains(&deleted), "DELETE answered {deleted}");
    let (code, stderr) = rec.wait();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("wrote draft.mcpr: 8 steps from 9 requests"),
        "{stderr}"
    );
    assert!(stderr.contains("ended its session (DELETE)"), "{stderr}");
    let draft = std::fs::read_to_string(dir.path().join("draft.mcpr")).unwrap();
    let target = format!("MCP URL: {}", upstream.url);
    for want in [
        target.as_str(),
        "Call tool \"add\" with:",
        "Expect \"structuredContent.sum\" equals 5",
        "Expect error code -32602",
        "Read resource \"fixture://status\"",
        "Get prompt \"greet\" with:",
        "Call tool \"progress\" with:",
        "Send \"ping\"",
    ] {
        assert!(draft.contains(want), "{want:?} not in the draft:\n{draft}");
    }
    assert!(
        !draft.contains("progressToken") && !draft.contains("headers:"),
        "{draft}"
    );
    // The draft targets the upstream server itself, and runs against it given as --url.
    common::assert_draft_replays(dir.path(), &draft, &[]);
    common::assert_draft_replays(dir.path(), &draft, &["--url", &upstream.url]);
}

/// A 2026-07-28 request: the `_meta` envelope and the standard headers.
fn modern(id: i64, method: &str, mut params: Value) -> (Value, Vec<(&'static str, String)>) {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "scripted", "version": "1"},
    });
    let mut headers = vec![
        ("MCP-Protocol-Version", "2026-07-28".to_string()),
        ("Mcp-Method", method.to_string()),
    ];
    let name = match method {
        "tools/call" | "prompts/get" => params["name"].as_str(),
        "resources/read" => params["uri"].as_str(),
        _ => None,
    };
    if let Some(n) = name {
        headers.push(("Mcp-Name", n.to_string()));
    }
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    (body, headers)
}

#[test]
fn a_2026_session_is_recorded_and_ends_when_idle() {
    let upstream = HttpServer::start(reference_server(), &["--http", "127.0.0.1:0"]);
    let dir = scratch(&[]);
    let rec = Recorder::start(dir.path(), &upstream.url, &["--idle", "1500ms"]);
    let c = Client::new(&rec.url);
    let direct = Client::new(&upstream.url);
    let requests = [
        modern(1, "server/discover", json!({})),
        modern(2, "tools/list", json!({})),
        modern(
            3,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 20, "b": 22}}),
        ),
        modern(4, "tools/call", json!({"name": "echo", "arguments": {}})),
        modern(5, "resources/read", json!({"uri": "fixture://readme"})),
        modern(
            6,
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        ),
        {
            // Progress notifications, then the answer: an event stream of three events.
            let params = json!({"name": "progress", "arguments": {"steps": 2}});
            let (mut body, headers) = modern(7, "tools/call", params);
            body["params"]["_meta"]["progressToken"] = json!("t");
            (body, headers)
        },
    ];
    for (body, headers) in &requests {
        let through = c.post(body, headers);
        let id = body["id"].as_i64().unwrap();
        through.answer(id);
        // The same request straight to the server: the same answer, byte for byte (2026 is
        // stateless, so nothing in it depends on the connection).
        let straight = direct.post(body, headers);
        if id == 7 {
            assert_eq!(through.messages().len(), 3, "{}", through.body);
            assert_eq!(through.header("content-type"), Some("text/event-stream"));
        }
        assert_eq!(
            (
                through.status,
                through.header("content-type"),
                &through.body
            ),
            (
                straight.status,
                straight.header("content-type"),
                &straight.body
            ),
            "{body}"
        );
    }
    let (code, stderr) = rec.wait();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("no request for the --idle time"),
        "{stderr}"
    );
    assert!(stderr.contains("6 steps from 7 requests"), "{stderr}");
    let draft = std::fs::read_to_string(dir.path().join("draft.mcpr")).unwrap();
    for want in [
        "protocol 2026-07-28",
        "Call tool \"add\" with:",
        "Read resource \"fixture://readme\"",
        "Get prompt \"greet\" with:",
        "Expect error code -32602",
    ] {
        assert!(draft.contains(want), "{want:?} not in the draft:\n{draft}");
    }
    assert!(!draft.contains("io.modelcontextprotocol/"), "{draft}");
    common::assert_draft_replays(dir.path(), &draft, &["--protocol", "2026-07-28"]);
}

/// Clients without sessions (2026-07-28) number their requests alike: two requests with one
/// id in flight at once are each paired with their own answer.
#[test]
fn requests_in_flight_at_once_with_one_id_keep_their_own_answers() {
    let upstream = HttpServer::start(reference_server(), &["--http", "127.0.0.1:0"]);
    let dir = scratch(&[]);
    let rec = Recorder::start(dir.path(), &upstream.url, &["--idle", "1500ms"]);
    let url = rec.url.clone();
    // The slow call goes first and is answered last, on an event stream that opens with its
    // first progress notification (so the proxy has taken it when the second call comes).
    let slow = std::thread::spawn(move || {
        let params = json!({"name": "progress", "arguments": {"steps": 8, "delayMs": 100}});
        let (mut body, headers) = modern(1, "tools/call", params);
        body["params"]["_meta"]["progressToken"] = json!("t");
        Client::new(&url).post(&body, &headers).answer(1)
    });
    std::thread::sleep(Duration::from_millis(300));
    let (body, headers) = modern(
        1,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
    );
    let added = Client::new(&rec.url).post(&body, &headers).answer(1);
    assert_eq!(added["result"]["structuredContent"]["sum"], 3, "{added}");
    let slept = slow.join().unwrap();
    assert!(slept.get("result").is_some(), "{slept}");
    let (code, stderr) = rec.wait();
    assert_eq!(code, Some(0), "{stderr}");
    let draft = std::fs::read_to_string(dir.path().join("draft.mcpr")).unwrap();
    assert!(!draft.contains("no answer came"), "{draft}");
    // Each call with its own answer.
    let steps: Vec<&str> = draft.split("  Call tool ").skip(1).collect();
    let step = |name: &str| {
        *steps
            .iter()
            .find(|s| s.starts_with(&format!("\"{name}\"")))
            .unwrap_or_else(|| panic!("no call of {name}:\n{draft}"))
    };
    assert!(
        step("add").contains("Expect \"structuredContent.sum\" equals 3"),
        "{draft}"
    );
    assert!(
        step("progress").contains("Expect it succeeds") && !step("progress").contains("sum"),
        "{draft}"
    );
}

/// The event-stream messages of `resp` as they come, until one answers `id`; `on_request`
/// is called for each request of the server (and may answer it through `client`).
async fn read_until_answer(
    mut resp: reqwest::Response,
    id: i64,
    mut on_request: impl AsyncFnMut(&Value),
) -> Value {
    let mut buf = String::new();
    loop {
        let chunk = tokio::time::timeout(Duration::from_secs(20), resp.chunk())
            .await
            .expect("the stream went on through the proxy")
            .unwrap()
            .expect("the stream ended before the answer");
        buf.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buf.find("\n\n") {
            let event: String = buf.drain(..end + 2).collect();
            for m in events(&event) {
                if m.get("method").is_some() && m.get("id").is_some() {
                    on_request(&m).await;
                } else if m["id"] == json!(id) {
                    return m;
                }
            }
        }
    }
}

#[test]
fn credentials_pass_through_but_never_reach_the_draft_or_stderr() {
    let token = "tok-2c8e1b7d5a93f406";
    let auth = format!("Bearer {token}");
    let upstream = HttpServer::start(
        reference_server(),
        &[
            "--http",
            "127.0.0.1:0",
            "--require-header",
            &format!("Authorization: {auth}"),
        ],
    );
    let dir = scratch(&[]);
    let rec = Recorder::start(dir.path(), &upstream.url, &["--until", "signal"]);
    let mut c = Client::new(&rec.url);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {"sampling": {}},
        "clientInfo": {"name": "scripted", "version": "1"}}});
    // Without credentials: the server's refusal comes back as it was sent.
    let refused = c.post(&init, &[]);
    assert_eq!(refused.status, 401, "{}", refused.body);
    assert!(
        refused
            .header("www-authenticate")
            .is_some_and(|h| h.contains("resource_metadata")),
        "{:?}",
        refused.headers
    );
    c.extra.push(("Authorization".into(), auth.clone()));
    let ok = c.post(&init, &[]);
    assert_eq!(ok.status, 200, "{}", ok.body);
    c.session = ok.header("mcp-session-id").map(str::to_string);
    let v = [("MCP-Protocol-Version", "2025-06-18".to_string())];
    c.post(
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        &v,
    );
    // The GET stream opens through the proxy and stays open while the session goes on.
    let listen = c
        .request(reqwest::Method::GET, &v)
        .header("Accept", "text/event-stream");
    let stream = c.rt.block_on(async { listen.send().await.unwrap() });
    assert_eq!(stream.status().as_u16(), 200);
    assert_eq!(
        stream.headers()["content-type"].to_str().unwrap(),
        "text/event-stream"
    );
    // The server asks the client to sample while its answer streams: the client answers in
    // a POST of its own, then the stream goes on to the tool's result.
    let sample = c
        .request(reqwest::Method::POST, &v)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "sample", "arguments": {"prompt": "hi"}}})
            .to_string(),
        );
    let answer = c.rt.block_on(async {
        let resp = sample.send().await.unwrap();
        read_until_answer(resp, 2, async |req: &Value| {
            assert_eq!(req["method"], "sampling/createMessage", "{req}");
            let reply = json!({"jsonrpc": "2.0", "id": req["id"], "result": {
                "role": "assistant", "model": "mcprigor-fixture",
                "content": {"type": "text", "text": "deterministic response"}}});
            let posted = c
                .request(reqwest::Method::POST, &v)
                .header("Accept", "application/json, text/event-stream")
                .header("Content-Type", "application/json")
                .body(reply.to_string())
                .send()
                .await
                .unwrap();
            assert_eq!(posted.status().as_u16(), 202);
        })
        .await
    });
    assert_eq!(
        answer["result"]["content"][0]["text"], "sampled: deterministic response",
        "{answer}"
    );
    let echo = c.call(
        3,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x"}}),
    );
    assert_eq!(echo["result"]["content"][0]["text"], "x", "{echo}");
    drop(stream);
    // With --until signal a DELETE does not end the recording; Ctrl-C does.
    assert!((200..300).contains(&c.delete()));
    std::thread::sleep(Duration::from_millis(300));
    rec.signal("INT");
    let (code, stderr) = rec.wait();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("ended on a signal"), "{stderr}");
    assert!(
        stderr.contains("answered HTTP 401 to initialize; it is not recorded"),
        "{stderr}"
    );
    let draft = std::fs::read_to_string(dir.path().join("draft.mcpr")).unwrap();
    assert!(
        !draft.contains(token) && !stderr.contains(token),
        "{draft}\n{stderr}"
    );
    for want in [
        "Authorization: ${env.MCP_AUTHORIZATION}",
        "Set MCP_AUTHORIZATION",
        "The server asked the client (sampling/createMessage)",
        "Call tool \"sample\" with:",
        "Expect \"content[0].text\" equals \"sampled: deterministic response\"",
    ] {
        assert!(draft.contains(want), "{want:?} not in the draft:\n{draft}");
    }
    let run = mcpr_in(dir.path())
        .args(["run", "draft.mcpr", "--no-progress"])
        .env("MCP_AUTHORIZATION", &auth)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{draft}\n{}", output_text(&run));
    assert!(!output_text(&run).contains(token), "{}", output_text(&run));
}

#[test]
fn an_upstream_server_that_cannot_be_reached_is_a_clear_error() {
    let dir = scratch(&[]);
    // A port nothing listens on: bound, then let go.
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://127.0.0.1:{}/mcp", free.local_addr().unwrap().port());
    drop(free);
    let out = mcpr_in(dir.path())
        .args(["record", "-o", "draft.mcpr", "--url", &url])
        .output()
        .unwrap();
    common::assert_exit_with(&out, 3, "cannot reach the upstream server");
    assert!(!dir.path().join("draft.mcpr").exists());
    // Credentials in the URL are not repeated.
    let secret = url.replace("http://", "http://me:hunter2-pw@");
    let out = mcpr_in(dir.path())
        .args(["record", "-o", "draft.mcpr", "--url", &secret])
        .output()
        .unwrap();
    common::assert_exit_with(
        &out,
        3,
        "cannot reach the upstream server http://127.0.0.1:",
    );
    assert!(
        !output_text(&out).contains("hunter2"),
        "{}",
        output_text(&out)
    );
    // Usage: not an HTTP URL, an address that cannot be listened on, --listen alone.
    for (args, needle) in [
        (
            vec!["--url", "ftp://example.com/mcp"],
            "must be an http:// or https:// URL",
        ),
        (vec!["--url", "not a url"], "is not a URL"),
        (
            vec!["--url", "http://127.0.0.1:9/mcp", "--listen", "256.0.0.1:0"],
            "cannot listen on 256.0.0.1:0",
        ),
        (vec!["--listen", "127.0.0.1:0"], "--url"),
        (
            vec!["--url", "http://127.0.0.1:9/mcp", "--idle", "soon"],
            "--idle",
        ),
    ] {
        let out = mcpr_in(dir.path())
            .args(["record", "-o", "draft.mcpr"])
            .args(&args)
            .output()
            .unwrap();
        common::assert_exit_with(&out, 2, needle);
    }
}

#[test]
fn an_upstream_server_that_goes_away_is_answered_502() {
    let mut upstream = HttpServer::start(reference_server(), &["--http", "127.0.0.1:0"]);
    let dir = scratch(&[]);
    let rec = Recorder::start(dir.path(), &upstream.url, &[]);
    let _ = upstream.child.kill();
    let _ = upstream.child.wait();
    let c = Client::new(&rec.url);
    let r = c.post(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}), &[]);
    assert_eq!(r.status, 502, "{}", r.body);
    assert!(
        r.body.contains("the upstream server did not answer"),
        "{}",
        r.body
    );
    rec.signal("TERM");
    let (code, stderr) = rec.wait();
    // Nothing could be recorded: nothing is written.
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("the client was answered 502"), "{stderr}");
    assert!(stderr.contains("the client sent no request"), "{stderr}");
    assert!(!dir.path().join("draft.mcpr").exists());
}

/// The peak resident memory of process `pid`, in KiB (Linux).
fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/PID/status")
}

/// Posts `body` and counts the bytes of the answer as they stream (none is kept).
fn post_counting(c: &Client, body: &Value) -> (u16, usize, String) {
    let req = c
        .request(reqwest::Method::POST, &[])
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(body.to_string());
    c.rt.block_on(async {
        let mut resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        let (mut n, mut tail) = (0, Vec::new());
        while let Some(chunk) = resp.chunk().await.unwrap() {
            n += chunk.len();
            tail.extend_from_slice(&chunk);
            let keep = tail.len().saturating_sub(4096);
            tail.drain(..keep);
        }
        (status, n, String::from_utf8_lossy(&tail).into_owned())
    })
}

#[test]
fn huge_answers_and_long_streams_are_passed_on_but_not_kept() {
    let hostile = std::path::Path::new(&reference_server()).with_file_name("mcpr-hostile-server");
    let dir = scratch(&[]);
    // Each with a bound on the proxy's growth well below what passes: 50 MiB of one body
    // (its length known, so none of it is kept), 300 MiB of events (one kept at a time).
    for (mode, note, bound_mib) in [
        (
            "http-huge",
            "an answer of more than 16 MiB was passed on but not recorded",
            32,
        ),
        ("http-sse-hog", "2 steps from 3 requests", 128),
    ] {
        let upstream = HttpServer::start(&hostile, &[mode]);
        let rec = Recorder::start(dir.path(), &upstream.url, &["--force"]);
        let c = Client::new(&rec.url);
        let init = c.post(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "scripted", "version": "1"}}}),
            &[],
        );
        assert_eq!(init.status, 200, "{}", init.body);
        c.post(
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
            &[],
        );
        let before = peak_kib(rec.child.id());
        let (status, bytes, tail) = post_counting(
            &c,
            &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo"}}),
        );
        assert_eq!(status, 200);
        if mode == "http-huge" {
            assert_eq!(bytes, 50 * 1024 * 1024, "the whole body came through");
        } else {
            // 300 events of 1 MiB, then the answer.
            assert!(bytes > 300 << 20, "{bytes}");
            assert!(tail.contains("\"id\":3,\"result\""), "{tail}");
        }
        let grown = peak_kib(rec.child.id()).saturating_sub(before);
        eprintln!("{mode}: {bytes} bytes passed; peak memory grew by {grown} KiB");
        assert!(
            grown < bound_mib * 1024,
            "{mode}: the proxy's peak memory grew by {grown} KiB while {bytes} bytes passed"
        );
        rec.signal("INT");
        let (code, stderr) = rec.wait();
        assert_eq!(code, Some(0), "{stderr}");
        assert!(stderr.contains(note), "{mode}: {stderr}");
    }
}

/// mcpr's own client (a real MCP client: its handshake or discovery, its headers, its
/// DELETE) runs a suite through the proxy; the draft of what it did replays green.
#[test]
fn mcpr_run_through_the_proxy_records_a_draft_that_replays() {
    let upstream = HttpServer::start(reference_server(), &["--http", "127.0.0.1:0"]);
    let dir = scratch(&[(
        "suite.mcpr",
        "MCP Test 1\nServer from the command line\n\nTest: \"adds\"\n  Call tool \"add\" with:\n    a: 1\n    b: 2\n  Expect \"structuredContent.sum\" equals 3\n\nTest: \"echoes\"\n  Call tool \"echo\" with:\n    text: hi\n  Expect \"content[0].text\" equals hi\n  Read resource \"fixture://status\"\n",
    )]);
    for protocol in ["2025-11-25", "2026-07-28"] {
        let rec = Recorder::start(dir.path(), &upstream.url, &["--until", "signal", "--force"]);
        let run = mcpr_in(dir.path())
            .args(["run", "suite.mcpr", "--no-progress", "--url", &rec.url])
            .args(["--protocol", protocol])
            .output()
            .unwrap();
        assert_eq!(
            run.status.code(),
            Some(0),
            "{protocol}\n{}",
            output_text(&run)
        );
        rec.signal("TERM");
        let (code, stderr) = rec.wait();
        assert_eq!(code, Some(0), "{protocol}\n{stderr}");
        let draft = std::fs::read_to_string(dir.path().join("draft.mcpr")).unwrap();
        assert!(
            draft.contains(&format!("protocol {protocol}")) && draft.contains("Call tool \"add\""),
            "{draft}"
        );
        let replay = mcpr_in(dir.path())
            .args(["run", "draft.mcpr", "--no-progress", "--protocol", protocol])
            .output()
            .unwrap();
        assert_eq!(
            replay.status.code(),
            Some(0),
            "{protocol}\n{draft}\n{}",
            output_text(&replay)
        );
    }
}
