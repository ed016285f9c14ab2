//! `mcpr run --watch`: an edit of a watched file starts a second run; Ctrl-C ends it.

mod common;

use common::{mcpr_in, reference_server, scratch};
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn suite(name: &str, expected: &str) -> String {
    format!(
        "MCP Test 1\nServer: {}\n\nTest: \"echo {name}\"\n  Call tool \"echo\" with:\n    text: hi\n  Expect \"content[0].text\" equals {expected}\n",
        reference_server()
    )
}

/// Lines of stdout until one holds `needle` (all of them, for messages).
fn until(lines: &mpsc::Receiver<String>, needle: &str, seen: &mut Vec<String>) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if let Ok(l) = lines.recv_timeout(Duration::from_millis(200)) {
            let hit = l.contains(needle);
            seen.push(l);
            if hit {
                return;
            }
        }
    }
    panic!("{needle:?} never came:\n{}", seen.join("\n"));
}

#[test]
fn an_edit_starts_another_run_with_a_separator_and_ctrl_c_ends_it() {
    let dir = scratch(&[
        ("a.mcpr", &suite("from a", "hi")),
        ("b.mcpr", &suite("from b", "hi")),
    ]);
    let mut child = mcpr_in(dir.path())
        .args(["run", "--watch", "a.mcpr", "b.mcpr"])
        .env("CI", "true")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    until(&lines, "──── mcpr watch: run 1 ────", &mut seen);
    until(&lines, "waiting for changes", &mut seen);
    std::fs::write(dir.path().join("b.mcpr"), suite("from b", "bye")).unwrap();
    until(&lines, "──── mcpr watch: run 2 (changed: ", &mut seen);
    let at = seen.len();
    until(&lines, "run 2 exited 1", &mut seen);
    let second = seen[at..].join("\n");
    // The changed suite runs first.
    let b = second.find("echo from b").unwrap_or(usize::MAX);
    let a = second.find("echo from a").unwrap_or(usize::MAX);
    assert!(b < a, "{second}");
    assert!(
        !seen.join("\n").contains('\u{1b}'),
        "no screen codes off a terminal"
    );
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert_eq!(status.code(), Some(130), "{}", seen.join("\n"));
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("mcpr run --watch did not stop on SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
