//! Sequential `tools/call` throughput: the mcpr runtime against a minimal raw client, on the
//! same server, in the same run.
//!
//! ```text
//! callbench [--raw | --interleave BATCH | --multi-thread | --no-foreground] [--n N] [--warmup W] [--tool NAME] [--args JSON] [--protocol V] -- CMD ARGS…
//! ```
//! Prints one JSON line: mode, calls, seconds, calls_per_sec, mean_us, client_cpu_us; with
//! `--interleave BATCH`, both clients in one run (each with its own server), alternating
//! batches, and the calls/s, CPU per call and overhead of each.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcpr_runtime::session::{ProtocolChoice, SessionConfig};
use mcpr_runtime::{CallOptions, Client, StdioConfig};
use serde_json::{Value, json};

// The allocator of the `mcpr` binary, so the runtime is measured as it ships.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Args {
    raw: bool,
    /// Batches of this many calls, raw and mcpr in turn, in one process.
    interleave: Option<usize>,
    multi_thread: bool,
    no_foreground: bool,
    transcript_limit: usize,
    n: usize,
    warmup: usize,
    tool: String,
    args: Value,
    protocol: String,
    cmd: Vec<String>,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        raw: false,
        interleave: None,
        multi_thread: false,
        no_foreground: false,
        transcript_limit: 10_000,
        n: 2000,
        warmup: 100,
        tool: "echo".into(),
        args: json!({"text": "hi", "message": "hi"}),
        protocol: "2025-11-25".into(),
        cmd: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--raw" => a.raw = true,
            "--multi-thread" => a.multi_thread = true,
            "--interleave" => {
                a.interleave = Some(
                    it.next()
                        .and_then(|v| v.parse().ok())
                        .ok_or("--interleave needs a batch size")?,
                )
            }
            // Every answer through the session's reader task, as on a multi-threaded
            // runtime, but on one thread: what the foreground reads save.
            "--no-foreground" => a.no_foreground = true,
            "--n" => {
                a.n = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--n needs a number")?
            }
            "--warmup" => {
                a.warmup = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--warmup needs a number")?
            }
            "--transcript-limit" => {
                a.transcript_limit = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--transcript-limit needs a number")?
            }
            "--tool" => a.tool = it.next().ok_or("--tool needs a name")?,
            "--args" => {
                a.args = it
                    .next()
                    .and_then(|v| serde_json::from_str(&v).ok())
                    .ok_or("--args needs JSON")?
            }
            "--protocol" => a.protocol = it.next().ok_or("--protocol needs a version")?,
            "--" => {
                a.cmd = it.collect();
                break;
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if a.cmd.is_empty() {
        return Err("usage: callbench [--raw | --interleave BATCH | --multi-thread | --no-foreground] [--n N] [--warmup W] [--tool NAME] [--args JSON] [--protocol V] -- CMD ARGS…".into());
    }
    Ok(a)
}

/// CPU time this thread has used so far, in nanoseconds (Linux `schedstat`), when known.
/// The loop runs on the main thread in both modes, so the difference over the loop is
/// the client's own work per call, which the VM's wake-up latency does not blur.
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn report(mode: &str, n: usize, took: Duration, cpu: Option<(u64, u64)>) {
    let secs = took.as_secs_f64();
    let cpu_us = cpu.map(|(a, b)| b.saturating_sub(a) as f64 / 1e3 / n as f64);
    println!(
        "{}",
        json!({"mode": mode, "calls": n, "seconds": secs, "calls_per_sec": n as f64 / secs, "mean_us": secs * 1e6 / n as f64, "client_cpu_us": cpu_us})
    );
}

/// One write per message (formatting straight into the pipe would write each piece of
/// the JSON text separately and wake the server for each).
fn send(w: &mut impl Write, msg: &Value) -> Result<(), String> {
    let mut line = serde_json::to_vec(msg).map_err(|e| e.to_string())?;
    line.push(b'\n');
    w.write_all(&line)
        .and_then(|()| w.flush())
        .map_err(|e| e.to_string())
}

fn wait_for(r: &mut impl BufRead, line: &mut String, id: u64) -> Result<(), String> {
    loop {
        line.clear();
        if r.read_line(line).map_err(|e| e.to_string())? == 0 {
            return Err("server closed stdout".into());
        }
        let v: Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        if v.get("id").and_then(Value::as_u64) == Some(id) && v.get("method").is_none() {
            return Ok(());
        }
    }
}

/// The floor: blocking writes and reads on the pipes, no framing limits, no checks.
struct Raw {
    child: std::process::Child,
    w: std::process::ChildStdin,
    r: BufReader<std::process::ChildStdout>,
    line: String,
    params: Value,
    next_id: u64,
}

impl Raw {
    fn start(a: &Args) -> Result<Raw, String> {
        let mut child = Command::new(&a.cmd[0])
            .args(&a.cmd[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| e.to_string())?;
        let mut w = child.stdin.take().ok_or("no stdin")?;
        let mut r = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut line = String::new();
        send(
            &mut w,
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": a.protocol, "capabilities": {}, "clientInfo": {"name": "rawbench", "version": "0"}}}),
        )?;
        wait_for(&mut r, &mut line, 0)?;
        send(
            &mut w,
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )?;
        Ok(Raw {
            child,
            w,
            r,
            line,
            params: json!({"name": a.tool, "arguments": a.args}),
            next_id: 1,
        })
    }

    fn call(&mut self) -> Result<(), String> {
        let id = self.next_id;
        self.next_id += 1;
        send(
            &mut self.w,
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": self.params}),
        )?;
        wait_for(&mut self.r, &mut self.line, id)
    }

    fn stop(self) {
        let Raw { mut child, w, .. } = self;
        drop(w);
        let _ = child.kill();
        let _ = child.wait();
    }
}

fn raw(a: &Args) -> Result<(), String> {
    let mut raw = Raw::start(a)?;
    for _ in 0..a.warmup {
        raw.call()?;
    }
    let cpu0 = cpu_ns();
    let start = Instant::now();
    for _ in 0..a.n {
        raw.call()?;
    }
    let took = start.elapsed();
    report("raw", a.n, took, cpu0.zip(cpu_ns()));
    raw.stop();
    Ok(())
}

async fn connect(a: &Args) -> Result<Client, String> {
    let stdio = StdioConfig::new(a.cmd[0].clone(), a.cmd[1..].to_vec());
    let config = SessionConfig {
        protocol: ProtocolChoice::Pinned(a.protocol.clone()),
        transcript_limit: a.transcript_limit,
        foreground_reads: !a.no_foreground,
        ..SessionConfig::default()
    };
    Client::connect(stdio, config)
        .await
        .map_err(|e| e.to_string())
}

fn call_options() -> CallOptions {
    CallOptions {
        allow_error: true,
        ..Default::default()
    }
}

async fn mcpr_call(client: &Client, a: &Args, opts: &CallOptions) -> Result<(), String> {
    client
        .call_tool(&a.tool, a.args.clone(), opts)
        .await
        .map(drop)
        .map_err(|e| e.to_string())
}

/// Both clients in one process, each with its own server, alternating batches of
/// `batch` calls (which goes first alternates too): both see the same phases of a
/// machine whose speed changes from second to second.
async fn interleaved(a: &Args, batch: usize) -> Result<(), String> {
    let mut raw = Raw::start(a)?;
    let client = connect(a).await?;
    let opts = call_options();
    for _ in 0..a.warmup {
        raw.call()?;
        mcpr_call(&client, a, &opts).await?;
    }
    let batch = batch.max(1);
    let (mut raw_time, mut mcpr_time) = (Duration::ZERO, Duration::ZERO);
    let (mut raw_cpu, mut mcpr_cpu) = (0u64, 0u64);
    let mut ratios = Vec::new();
    for round in 0..a.n.div_ceil(batch) {
        let mut took = [Duration::ZERO; 2];
        for side in [round % 2, 1 - round % 2] {
            let cpu0 = cpu_ns();
            let start = Instant::now();
            for _ in 0..batch {
                match side {
                    0 => raw.call()?,
                    _ => mcpr_call(&client, a, &opts).await?,
                }
            }
            took[side] = start.elapsed();
            let cpu = cpu_ns().zip(cpu0).map_or(0, |(b, a)| b.saturating_sub(a));
            if side == 0 {
                raw_cpu += cpu;
            } else {
                mcpr_cpu += cpu;
            }
        }
        raw_time += took[0];
        mcpr_time += took[1];
        ratios.push(took[1].as_secs_f64() / took[0].as_secs_f64());
    }
    ratios.sort_by(f64::total_cmp);
    let calls = (a.n.div_ceil(batch) * batch) as f64;
    let median = ratios[ratios.len() / 2];
    println!(
        "{}",
        json!({
            "mode": "interleaved",
            "calls": calls,
            "batch": batch,
            "raw_calls_per_sec": calls / raw_time.as_secs_f64(),
            "mcpr_calls_per_sec": calls / mcpr_time.as_secs_f64(),
            "overhead_pct": (mcpr_time.as_secs_f64() / raw_time.as_secs_f64() - 1.0) * 100.0,
            "median_batch_overhead_pct": (median - 1.0) * 100.0,
            "raw_cpu_us": raw_cpu as f64 / 1e3 / calls,
            "mcpr_cpu_us": mcpr_cpu as f64 / 1e3 / calls,
            // Each pair's mcpr time over raw time, sorted: for pooling over runs.
            "batch_ratios": ratios,
        })
    );
    raw.stop();
    client.close().await;
    Ok(())
}

async fn runtime(a: &Args) -> Result<(), String> {
    if let Some(batch) = a.interleave {
        return interleaved(a, batch).await;
    }
    let client = connect(a).await?;
    let opts = call_options();
    for _ in 0..a.warmup {
        mcpr_call(&client, a, &opts).await?;
    }
    let cpu0 = cpu_ns();
    let start = Instant::now();
    for _ in 0..a.n {
        mcpr_call(&client, a, &opts).await?;
    }
    let took = start.elapsed();
    // On the multi-threaded runtime the loop may move between threads.
    let cpu = cpu0.zip(cpu_ns()).filter(|_| !a.multi_thread);
    report(
        if a.multi_thread {
            "mcpr-multi-thread"
        } else if a.no_foreground {
            "mcpr-no-foreground"
        } else {
            "mcpr"
        },
        a.n,
        took,
        cpu,
    );
    client.close().await;
    Ok(())
}

fn main() {
    let a = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let outcome = if a.raw {
        raw(&a)
    } else {
        // A session on a single-threaded runtime, as `mcpr run` runs each test and `mcpr
        // call` its one session (`--multi-thread` for the cost of cross-thread wake-ups).
        let rt = if a.multi_thread {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
        } else {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
        }
        .expect("tokio runtime");
        // As a task, as `mcpr run` runs a test: see schedule::spawn_test.
        rt.block_on(async move {
            tokio::spawn(async move { runtime(&a).await })
                .await
                .map_err(|e| e.to_string())?
        })
    };
    if let Err(e) = outcome {
        eprintln!("callbench: {e}");
        std::process::exit(1);
    }
}
