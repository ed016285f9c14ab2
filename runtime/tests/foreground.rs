//! Waits that read answers in the foreground (stdio, a runtime of one thread): where they
//! apply, that answers slower than the foreground slice are handed over to the session's
//! reader task intact, and that the runtime's other tasks still get turns while calls are
//! answered in the foreground one after another.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{config, reference};
use mcpr_runtime::session::SessionConfig;
use mcpr_runtime::{CallOptions, Client};
use serde_json::json;

async fn connect(config: SessionConfig) -> Client {
    match Client::connect(reference(), config).await {
        Ok(c) => c,
        Err(e) => panic!("connect failed: {e}"),
    }
}

async fn echo(c: &Client, text: &str) {
    let call = c
        .call_tool("echo", json!({"text": text}), &CallOptions::default())
        .await
        .unwrap_or_else(|e| panic!("echo failed: {e}"));
    assert_eq!(call.result["content"][0]["text"], json!(text), "{call:?}");
}

#[tokio::test(flavor = "current_thread")]
async fn foreground_reads_apply_on_one_thread_unless_turned_off() {
    let c = connect(config(None)).await;
    assert!(c.session().reads_in_foreground());
    echo(&c, "on").await;
    c.close().await;

    let off = SessionConfig {
        foreground_reads: false,
        ..config(None)
    };
    let c = connect(off).await;
    assert!(!c.session().reads_in_foreground());
    echo(&c, "off").await;
    c.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn not_on_a_runtime_of_two_threads() {
    let c = connect(config(None)).await;
    assert!(!c.session().reads_in_foreground());
    echo(&c, "two threads").await;
    c.close().await;
}

/// A call slower than the slice goes on in the reader task; progress notifications read in
/// the foreground and in the task are all kept, in order; fast calls before and after are
/// answered in the foreground again.
#[tokio::test(flavor = "current_thread")]
async fn slow_answers_are_handed_over_intact() {
    let c = connect(config(None)).await;
    echo(&c, "before").await;
    let slow = c
        .call_tool("slow", json!({"ms": 60}), &CallOptions::default())
        .await
        .unwrap_or_else(|e| panic!("slow failed: {e}"));
    assert_eq!(slow.result["isError"], json!(false), "{slow:?}");
    let opts = CallOptions {
        progress: true,
        ..CallOptions::default()
    };
    let call = c
        .call_tool("progress", json!({"steps": 4, "delayMs": 8}), &opts)
        .await
        .unwrap_or_else(|e| panic!("progress failed: {e}"));
    let seen: Vec<f64> = call
        .progress
        .iter()
        .map(|p| p["progress"].as_f64().unwrap_or(-1.0))
        .collect();
    assert_eq!(seen, vec![1.0, 2.0, 3.0, 4.0], "{call:?}");
    echo(&c, "after").await;
    assert!(
        c.session().violations().is_empty(),
        "{:?}",
        c.session().violations()
    );
    c.close().await;
}

/// A server's request in the middle of a call (sampling) is answered from the foreground.
#[tokio::test(flavor = "current_thread")]
async fn a_server_request_mid_call_is_answered_in_the_foreground() {
    let c = connect(config(None)).await;
    let call = c
        .call_tool("sample", json!({"prompt": "hi"}), &CallOptions::default())
        .await
        .unwrap_or_else(|e| panic!("sample failed: {e}"));
    assert_eq!(call.result["isError"], json!(false), "{call:?}");
    let asked = c.session().server_requests();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].method, "sampling/createMessage");
    c.close().await;
}

/// Calls answered in the foreground one after another never suspend the test's task, so
/// the session lets the runtime run its other tasks once per slice: a ticker on the same
/// runtime keeps ticking.
#[tokio::test(flavor = "current_thread")]
async fn other_tasks_get_turns_between_foreground_calls() {
    let c = connect(config(None)).await;
    assert!(c.session().reads_in_foreground());
    let ticks = Arc::new(AtomicUsize::new(0));
    let counter = ticks.clone();
    let ticker = tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_millis(1)).await;
            counter.fetch_add(1, Ordering::Relaxed);
        }
    });
    // Let the ticker start, then keep the thread busy with calls.
    tokio::task::yield_now().await;
    let before = ticks.load(Ordering::Relaxed);
    let start = Instant::now();
    let mut calls = 0;
    while start.elapsed() < Duration::from_millis(400) {
        echo(&c, "tick").await;
        calls += 1;
    }
    let during = ticks.load(Ordering::Relaxed) - before;
    ticker.abort();
    assert!(
        during >= 10,
        "the ticker ran {during} times during {calls} calls in 400 ms"
    );
    c.close().await;
}

/// Answers that arrive as the foreground slice ends: the wait may read the answer in the
/// same moment its alarm rings and hand it over unprocessed. The reader task must then be
/// woken to take it (the reactor does not report bytes that are no longer in the pipe), or
/// the call would hang until its deadline.
#[tokio::test(flavor = "current_thread")]
async fn answers_read_as_the_slice_ends_reach_their_call() {
    let c = connect(config(None)).await;
    let opts = CallOptions {
        timeout: Some(Duration::from_secs(3)),
        ..CallOptions::default()
    };
    let start = Instant::now();
    for i in 0..60u64 {
        let ms = 7 + i % 7;
        let call = c
            .call_tool("slow", json!({"ms": ms}), &opts)
            .await
            .unwrap_or_else(|e| panic!("call {i} ({ms} ms) failed: {e}"));
        assert_eq!(call.result["isError"], json!(false), "{call:?}");
    }
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "took {:?}",
        start.elapsed()
    );
    c.close().await;
}
