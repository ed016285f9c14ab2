//! The 2026 `subscriptions/listen` stream of a test: list changes and resource updates
//! arrive only on it, so it opens when the session starts, for every list the server marks
//! `listChanged` (as mcp-tester does), and is opened again with the resource URIs a test
//! subscribes to or unsubscribes from.

use serde_json::{Value, json};

use crate::client::Client;
use crate::error::Error;

/// The `subscriptions/listen` stream of a 2026 session and the resource URIs it covers.
pub(crate) type Listen = Option<(crate::client::Subscription, Vec<String>)>;

/// What a (re)opened stream should cover besides what it covered before.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Change {
    /// Nothing more: list changes (and the URIs subscribed so far).
    None,
    /// Also updates of this resource.
    Subscribe(String),
    /// No longer updates of this resource.
    Unsubscribe(String),
    /// Also this notification method (a wait for a list the server does not mark).
    Method(String),
}

/// The list-change filter members of a listen request, by list.
const LISTS: [(&str, &str); 3] = [
    ("tools", "toolsListChanged"),
    ("prompts", "promptsListChanged"),
    ("resources", "resourcesListChanged"),
];

/// Opens the stream at the start of a 2026 session when the server marks a list
/// `listChanged`; a refusal is left for the step that needs the stream to report.
pub(crate) async fn open_at_start(client: &Client, current: &mut Listen) {
    let marked = LISTS
        .iter()
        .any(|(list, _)| client.server_has(&[list, "listChanged"]));
    if marked {
        let _ = listen(client, current, Change::None, None).await;
    }
}

/// (Re)opens the test's listen stream (2026 has no `resources/subscribe`): every list the
/// server marks `listChanged`, the resource URIs subscribed so far, and `change`. The
/// acknowledgement is awaited for `wait` (the session's request timeout when `None`).
pub(super) async fn listen(
    client: &Client,
    current: &mut Listen,
    change: Change,
    wait: Option<std::time::Duration>,
) -> Result<Value, Error> {
    let mut uris = match current.take() {
        Some((sub, uris)) => {
            client.stop_listen(sub)?;
            uris
        }
        None => Vec::new(),
    };
    match &change {
        Change::Subscribe(u) if !uris.contains(u) => uris.push(u.clone()),
        Change::Unsubscribe(u) => uris.retain(|x| x != u),
        _ => {}
    }
    let mut filter = serde_json::Map::new();
    for (list, member) in LISTS {
        let asked = matches!(&change, Change::Method(m)
            if m == &format!("notifications/{list}/list_changed"));
        if asked || client.server_has(&[list, "listChanged"]) {
            filter.insert(member.into(), json!(true));
        }
    }
    if !uris.is_empty() {
        filter.insert("resourceSubscriptions".into(), json!(uris));
    }
    if filter.is_empty() {
        // Nothing left to listen to (the last resource was unsubscribed).
        return Ok(json!({"acknowledged": {}}));
    }
    let sub = client.listen(Value::Object(filter), wait).await?;
    let acknowledged = sub.acknowledged.clone();
    *current = Some((sub, uris));
    Ok(json!({"acknowledged": acknowledged}))
}

/// Whether a notification method arrives on a 2026 listen stream.
pub(super) fn needs_listen(method: &str) -> bool {
    method.ends_with("/list_changed") || method == "notifications/resources/updated"
}
