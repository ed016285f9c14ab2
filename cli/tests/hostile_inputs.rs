//! Hostile inputs (a CI job checking an untrusted pull request): `mcpr check` stays inside a
//! memory and time ceiling on each of them. The built binary runs as a child; its peak
//! resident memory is read from `/proc/<pid>/status` (`VmHWM`) while it runs, and it is
//! killed, failing the test, the moment it passes the ceiling.

mod common;

use std::io::Read;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Most resident memory `check` may use on any input here.
const MEMORY_CEILING_KB: u64 = 200 * 1024;

/// Most wall time `check` may take on any input here. The tests run the debug build, several
/// times slower than a release, on a shared machine; the inputs that used to fail took tens of
/// seconds (or gigabytes) there.
const TIME_CEILING: Duration = Duration::from_secs(6);

/// Peak resident memory of a running process, in kB (Linux).
fn peak_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Most wall time `check` may take on the inputs of 14 MB here (a debug build reads a few
/// megabytes a second; what used to fail on them was memory: one to two gigabytes).
const LARGE_TIME_CEILING: Duration = Duration::from_secs(40);

/// Runs `mcpr check FILE` in `dir` under the ceilings; returns its stdout and exit code.
fn check_within_ceilings(dir: &Path, file: &str) -> (String, Option<i32>) {
    check_within(dir, file, TIME_CEILING)
}

/// [`check_within_ceilings`] with a time ceiling of its own.
fn check_within(dir: &Path, file: &str, time_ceiling: Duration) -> (String, Option<i32>) {
    // One at a time: each measurement is of `check` alone, not of the tests racing it.
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let mut child = common::mcpr_in(dir)
        .args(["check", file])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("mcpr starts");
    let pid = child.id();
    // Read stdout while the child runs: a full pipe would stall it.
    let mut stdout = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        let _ = stdout.read_to_string(&mut out);
        out
    });
    let started = Instant::now();
    let mut peak = 0;
    let status = loop {
        if let Some(kb) = peak_kb(pid) {
            peak = peak.max(kb);
        }
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if peak > MEMORY_CEILING_KB || started.elapsed() > time_ceiling {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{file}: check needed more than the ceiling ({peak} kB resident after {:?})",
                started.elapsed()
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    (reader.join().expect("reader"), status.code())
}

/// Nested aliases: each level names the one before ten times, so the value has 10^depth
/// leaves while the text stays a few hundred bytes per level.
fn anchor_bomb(indent: &str, depth: usize) -> String {
    let mut s = format!("{indent}l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..depth {
        let refs = vec![format!("*l{}", i - 1); 10].join(", ");
        s.push_str(&format!("{indent}l{i}: &l{i} [{refs}]\n"));
    }
    s
}

#[test]
fn an_anchor_bomb_in_an_mcpr_block_is_refused_without_expanding() {
    let body = anchor_bomb("    ", 12);
    let text =
        format!("Server: node server.js\n\nTest: \"Bomb\"\n  Call tool \"echo\" with:\n{body}");
    let dir = common::scratch(&[("bomb.mcpr", &text)]);
    let (out, code) = check_within_ceilings(dir.path(), "bomb.mcpr");
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("MCPLANG606"), "{out}");
}

#[test]
fn an_anchor_bomb_in_a_yaml_suite_is_refused_without_expanding() {
    let body = anchor_bomb("        ", 12);
    let text = format!(
        "version: 1\ntarget:\n  transport: stdio\n  command: node\ntests:\n  - name: Bomb\n    steps:\n      - tool: echo\n        arguments:\n{body}"
    );
    let dir = common::scratch(&[("bomb.yaml", &text)]);
    let (out, code) = check_within_ceilings(dir.path(), "bomb.yaml");
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("MCPLANG606"), "{out}");
}

#[test]
fn fourteen_megabytes_of_packed_yaml_lists_are_refused_in_little_memory() {
    // Blocks of `[0,0,…]`: two bytes a value, so the file holds millions of them. Once 2.1 GB
    // (every value built), then ~1 GB (every block line lexed as a statement).
    let list = format!("[{}0]", "0,".repeat(50_000));
    let mut text = String::from("Server: node server.js\n\n");
    let mut i = 0;
    while text.len() < 14_000_000 {
        text.push_str(&format!(
            "Test: \"Packed {i}\"\n  Call tool \"sum\" with:\n    numbers: {list}\n\n"
        ));
        i += 1;
    }
    let dir = common::scratch(&[("packed.mcpr", &text)]);
    let (out, code) = check_within(dir.path(), "packed.mcpr", LARGE_TIME_CEILING);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("MCPLANG609"), "{out}");
}

#[test]
fn a_fourteen_megabyte_yaml_block_is_never_lexed_as_statements() {
    // One block scalar of packed lists: one YAML value, but two tokens every two bytes to a
    // lexer. Once ~1 GB, when every line of a block was lexed as a statement line.
    let line = format!("      {}0\n", "0,".repeat(50_000));
    let mut text = String::from(
        "Server: node server.js\n\nTest: \"Long block\"\n  Call tool \"echo\" with:\n    text: |\n",
    );
    while text.len() < 14_000_000 {
        text.push_str(&line);
    }
    let dir = common::scratch(&[("block.mcpr", &text)]);
    let (out, code) = check_within(dir.path(), "block.mcpr", LARGE_TIME_CEILING);
    assert_eq!(code, Some(0), "{out}");
}

/// `head`, then `line(i)` for each `i` below `n`, then `tail`.
fn repeated(head: &str, n: usize, line: impl Fn(usize) -> String, tail: &str) -> String {
    let mut text = String::from(head);
    text.extend((0..n).map(line));
    text.push_str(tail);
    text
}

#[test]
fn thousands_of_legacy_add_root_lines_lower_in_linear_space() {
    // ~84 KB: once 3.9 GB, when each line's step carried every root so far.
    let add_root = |i| format!("add_root file:///r/{i}\n");
    let text = repeated("", 4000, add_root, "call_tool roots\n");
    let dir = common::scratch(&[("roots.mcp", &text)]);
    let (out, code) = check_within_ceilings(dir.path(), "roots.mcp");
    assert_eq!(code, Some(0), "{out}");
}

#[test]
fn a_megabyte_on_one_line_of_a_test_body_checks_quickly() {
    let long = "a".repeat(1 << 20);
    let text = format!(
        "Server: node server.js\n\nTest: \"Long\"\n  Call tool \"echo\" with:\n    text: hi\n  Expect \"content[0].text\" equals \"{long}\"\n"
    );
    let dir = common::scratch(&[("long.mcpr", &text)]);
    let (out, code) = check_within_ceilings(dir.path(), "long.mcpr");
    assert_eq!(code, Some(0), "{out}");
}

#[test]
fn a_megabyte_long_unknown_statement_is_reported_quickly() {
    // Once 55 s: the did-you-mean compared the whole line with every opening phrase.
    let long = "a".repeat(1 << 20);
    let text = format!(
        "Server: node server.js\n\nTest: \"Long\"\n  Call tool \"echo\"\n  Frobnicate {long}\n"
    );
    let dir = common::scratch(&[("long.mcpr", &text)]);
    let (out, code) = check_within_ceilings(dir.path(), "long.mcpr");
    assert_eq!(code, Some(2), "{out}");
}

#[test]
fn a_megabyte_long_legacy_command_is_reported_quickly() {
    let text = format!("{}\n", "c".repeat(1 << 20));
    let dir = common::scratch(&[("long.mcp", &text)]);
    let (out, code) = check_within_ceilings(dir.path(), "long.mcp");
    assert_eq!(code, Some(2), "{out}");
}

#[test]
fn a_yaml_suite_with_one_mapping_of_seventy_thousand_keys_checks_quickly() {
    // Each key is looked for among the ones before it: by a scan, 2.5 billion comparisons.
    let keys = |n: usize| -> String { (0..n).map(|i| format!("k{i}: 1, ")).collect() };
    let suite = |keys: String, last: &str| {
        format!(
            "version: 1\ntarget:\n  transport: stdio\n  command: node\ntests:\n  - name: Wide\n    steps:\n      - tool:\n          name: echo\n          arguments: {{{keys}{last}}}\n"
        )
    };
    // A repeat far down a wide mapping is still found (the parser's own reading of such a
    // file, which words the error, takes seconds in a debug build: a smaller one here).
    let dir = common::scratch(&[
        ("wide.yaml", &suite(keys(70_000), "last: 1")),
        ("repeated.yaml", &suite(keys(5_000), "k0: 2")),
    ]);
    let (out, code) = check_within_ceilings(dir.path(), "wide.yaml");
    assert_eq!(code, Some(0), "{out}");
    let (out, code) = check_within_ceilings(dir.path(), "repeated.yaml");
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("MCPLANG601"), "{out}");
}

#[test]
fn an_mcpr_call_with_sixty_thousand_arguments_checks_quickly() {
    // The arguments are one object of the document the schema judges the test by: each
    // member looked for among the ones before it was 1.8 billion comparisons (8.6 s in a
    // release build).
    let head = "Server: node server.js\n\nTest: \"wide\"\n  Call tool \"t\" with:\n";
    let text = repeated(head, 60_000, |i| format!("    k{i}: {i}\n"), "");
    let dir = common::scratch(&[("wide.mcpr", &text)]);
    let (out, code) = check_within_ceilings(dir.path(), "wide.mcpr");
    assert_eq!(code, Some(0), "{out}");
}

#[test]
fn a_test_with_fifty_thousand_variables_checks_quickly() {
    // Each variable's key was looked for from the top of the block: 28 s in a release build.
    let head = "Server: node server.js\n\nTest: \"wide\"\n  Variables:\n";
    let text = repeated(
        head,
        50_000,
        |i| format!("    v{i}: {i}\n"),
        "  Send \"ping\"\n",
    );
    let dir = common::scratch(&[("vars.mcpr", &text)]);
    let (out, code) = check_within_ceilings(dir.path(), "vars.mcpr");
    assert_eq!(code, Some(0), "{out}");
    // Every variable is unread: each is a warning.
    assert!(out.contains("50000 warnings"), "{out}");
}

/// Flows named `P0` … `P{levels}`, each using the one before `uses` times.
fn nested_flows(levels: usize, uses: usize) -> String {
    let mut text = String::from("Server: node server.js\n\nFlow: \"P0\"\n  Send \"ping\"\n\n");
    for i in 1..=levels {
        text.push_str(&format!("Flow: \"P{i}\"\n"));
        for _ in 0..uses {
            text.push_str(&format!("  Use flow \"P{}\"\n", i - 1));
        }
        text.push('\n');
    }
    text
}

#[test]
fn twenty_flows_each_using_the_one_before_twice_are_refused_at_the_call() {
    // 958 bytes: once past 6 GiB to an abort, a million statements expanded into one test.
    let text = format!(
        "{}Test: \"Bomb\"\n  Use flow \"P20\"\n",
        nested_flows(20, 2)
    );
    let dir = common::scratch(&[("bomb.mcpr", &text)]);
    let (out, code) = check_within_ceilings(dir.path(), "bomb.mcpr");
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("MCPLANG426"), "{out}");
}

#[test]
fn a_chain_of_twenty_thousand_flows_neither_overflows_the_stack_nor_expands() {
    // 700 KB: once a stack overflow; 5,000 levels (168 KB) took 3.2 GB.
    let text = format!(
        "{}Test: \"Deep\"\n  Use flow \"P20000\"\n",
        nested_flows(20_000, 1)
    );
    let dir = common::scratch(&[("deep.mcpr", &text)]);
    let (out, code) = check_within_ceilings(dir.path(), "deep.mcpr");
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains("MCPLANG426") && out.contains("nested"),
        "{out}"
    );
}

#[test]
fn thousands_of_tests_using_a_large_flow_stay_within_the_suite_budget() {
    // Each test takes in 6,142 statements, within a test's budget; 35,000 of them would be
    // two hundred million statements.
    let mut text = nested_flows(11, 2);
    let mut i = 0;
    while text.len() < 1_000_000 {
        text.push_str(&format!("Test: \"T{i}\"\n  Use flow \"P11\"\n"));
        i += 1;
    }
    let dir = common::scratch(&[("many.mcpr", &text)]);
    let (out, code) = check_within_ceilings(dir.path(), "many.mcpr");
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("the suite would take in more than"), "{out}");
    assert!(out.contains("--max-diagnostics"), "{out}");
}

#[test]
fn floods_of_mistakes_are_counted_without_being_held() {
    // Once 0.4 to 1.1 GB for 6 to 12 MB (release build): every diagnostic was worded (about
    // 1.4 KB each) though only the first hundred of a file are shown, a test of broken lines
    // was parsed twice and held whole, and a node was kept for each broken line. Now the
    // first hundred are worded and the others kept as keys, to be counted.
    let n = 300_000;
    let server = "Server: node server.js\n\n";
    let long = repeated(
        &format!("{server}Test: \"t\"\n"),
        n,
        |_| "  Sned \"ping\"\n".into(),
        "",
    );
    let tests = repeated(
        server,
        n,
        |i| format!("Test: \"t{i}\"\n  Sned \"ping\"\n"),
        "",
    );
    let column_0 = repeated(server, n, |_| "Sned \"ping\" now\n".into(), "");
    let phrases = repeated(
        &format!("{server}Data source: \"d\"\n  From CSV \"a.csv\"\n"),
        n,
        |_| "  Keep rows where a equals 1\n".into(),
        "\nTest: \"t\"\n  For each row in \"d\":\n  Send \"ping\"\n",
    );
    let files = [
        ("long.mcpr", long.as_str()),
        ("tests.mcpr", tests.as_str()),
        ("column0.mcpr", column_0.as_str()),
        ("phrases.mcpr", phrases.as_str()),
    ];
    let dir = common::scratch(&files);
    for (file, _) in files {
        let (out, code) = check_within(dir.path(), file, LARGE_TIME_CEILING);
        assert_eq!(code, Some(2), "{file}");
        assert!(out.len() < 200_000, "{file}: {} bytes of report", out.len());
        // `… and N more in FILE (N errors; …)`, and every one in the summary.
        let more = out
            .lines()
            .find_map(|l| l.strip_prefix("\u{2026} and "))
            .and_then(|l| l.split(' ').next()?.parse::<usize>().ok());
        assert!(more.is_some_and(|m| m >= n - 100), "{file}: {more:?}");
        let summary = out
            .lines()
            .rev()
            .find(|l| !l.is_empty())
            .unwrap_or_default();
        let errors = summary
            .split(' ')
            .next()
            .and_then(|e| e.parse::<usize>().ok());
        assert_eq!(errors, more.map(|m| m + 100), "{file}: {summary}");
    }
}

#[test]
fn a_hundred_kilobytes_of_tests_of_one_name_check_quickly_with_a_capped_report() {
    // Once 15 s, and a report of megabytes.
    let mut text = String::from("Server: node server.js\n\n");
    while text.len() < 100_000 {
        text.push_str("Test: \"t\"\n");
    }
    let dir = common::scratch(&[("same.mcpr", &text)]);
    let (out, code) = check_within_ceilings(dir.path(), "same.mcpr");
    assert_eq!(code, Some(2), "{out}");
    assert!(out.len() < 200_000, "{} bytes of report", out.len());
    assert!(out.contains("more in same.mcpr"), "{out}");
}

#[test]
fn a_thousand_misspelt_long_flow_names_check_quickly() {
    // 444 KB: once 59 s, each name compared with every flow's letter by letter.
    let name = |i: usize| format!("{i:04}{}", "abcdefghij".repeat(20));
    let mut text = String::from("Server: node server.js\n\n");
    for i in 0..1000 {
        text.push_str(&format!("Flow: \"{}\"\n  Send \"ping\"\n\n", name(i)));
    }
    text.push_str("Test: \"Uses\"\n");
    for i in 0..1000 {
        let mut misspelt = name(i);
        misspelt.replace_range(100..101, "X");
        text.push_str(&format!("  Use flow \"{misspelt}\"\n"));
    }
    let dir = common::scratch(&[("names.mcpr", &text)]);
    let (out, code) = check_within_ceilings(dir.path(), "names.mcpr");
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains("MCPLANG401") || out.contains("Unknown flow") || out.contains("unknown flow"),
        "{out}"
    );
}

#[test]
fn a_megabyte_of_unknown_statements_checks_quickly() {
    // Once 90 s in this build (4.3 s of a release): every line was compared with every
    // statement's opening words, letter by letter and word by word. The same line again is
    // remembered; different lines draw on a budget, past which they get no `Try:`.
    let mut same = String::from("Server: node server.js\n\n");
    while same.len() < 1 << 20 {
        same.push_str("Frobnicate the server\n");
    }
    let mut different = String::from("Server: node server.js\n\n");
    let mut i = 0;
    while different.len() < 1 << 20 {
        different.push_str(&format!("Frobnicate{i} the server\n"));
        i += 1;
    }
    let dir = common::scratch(&[("same.mcpr", &same), ("different.mcpr", &different)]);
    for file in ["same.mcpr", "different.mcpr"] {
        let (out, code) = check_within_ceilings(dir.path(), file);
        assert_eq!(code, Some(2), "{out}");
        assert!(out.contains("MCPLANG"), "{out}");
        assert!(out.len() < 200_000, "{file}: {} bytes of report", out.len());
    }
}

#[test]
fn a_thousand_misspelt_dependencies_check_quickly() {
    // Once 15 s: the ids were sorted again for each one.
    let mut text = String::from("Server: node server.js\n\n");
    for i in 0..1000 {
        text.push_str(&format!(
            "Test: \"Test number {i}\"\n  Id: test-number-{i}\n  Depends on: test-nuber-{i}\n  Send \"ping\"\n\n"
        ));
    }
    let dir = common::scratch(&[("deps.mcpr", &text)]);
    let (out, code) = check_within_ceilings(dir.path(), "deps.mcpr");
    assert_eq!(code, Some(2), "{out}");
}

#[cfg(unix)]
#[test]
fn a_named_pipe_imported_or_in_a_checked_folder_is_never_opened() {
    let dir = common::scratch(&[(
        "suites/suite.mcpr",
        "Import flows from \"./pipe.mcpr\"\n\nServer: node server.js\n\nTest: \"One\"\n  Send \"ping\"\n",
    )]);
    nix::unistd::mkfifo(
        &dir.path().join("suites/pipe.mcpr"),
        nix::sys::stat::Mode::S_IRWXU,
    )
    .expect("mkfifo");
    // Found in a folder: passed over with a note; imported: a located error.
    let (out, code) = check_within_ceilings(dir.path(), "suites");
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("named pipe"), "{out}");
    let (out, code) = check_within_ceilings(dir.path(), "suites/pipe.mcpr");
    assert_ne!(code, Some(0), "{out}");
}

#[cfg(unix)]
#[test]
fn a_folder_linking_back_to_itself_is_named_once() {
    let dir = common::scratch(&[(
        "suites/suite.mcpr",
        "Server: node server.js\n\nTest: \"One\"\n  Send \"ping\"\n",
    )]);
    std::os::unix::fs::symlink("..", dir.path().join("suites/loop")).expect("symlink");
    let (out, code) = check_within_ceilings(dir.path(), "suites");
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(out.matches("was not searched again").count(), 1, "{out}");
    assert!(!out.contains("loop/loop"), "{out}");
}
