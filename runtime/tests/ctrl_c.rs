//! `kill_all_process_groups` (for a Ctrl-C handler) ends every live server group. It has
//! its own test binary because it kills the servers of every session in the process.

mod common;

use common::{assert_group_gone, config, reference};
use mcpr_runtime::{Client, kill_all_process_groups};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_kills_every_server_group() {
    let a = Client::connect(reference(), config(Some("2025-11-25")))
        .await
        .unwrap();
    let b = Client::connect(reference(), config(Some("2026-07-28")))
        .await
        .unwrap();
    let (pa, pb) = (a.session().pid(), b.session().pid());
    kill_all_process_groups();
    assert_group_gone(pa).await;
    assert_group_gone(pb).await;
    let e = a.ping(None).await.unwrap_err();
    assert_eq!(e.code(), "MCP-EXIT-001", "{e}");
    assert!(e.to_string().contains("killed by signal 9"), "{e}");
}
