//! The 2026 `subscriptions/listen` stream of a test: opened for notification waits and
//! subscriptions, with every URI subscribed so far.

use serde_json::{Value, json};

use crate::client::Client;
use crate::error::Error;

/// The `subscriptions/listen` stream of a 2026 session and the resource URIs it covers.
pub(super) type Listen = Option<(crate::client::Subscription, Vec<String>)>;

/// 2026 has no `resources/subscribe`: (re)opens the test's listen stream with every list
/// change and the resource URIs subscribed so far plus `uri`.
pub(super) async fn listen(
    client: &Client,
    current: &mut Listen,
    uri: Option<String>,
) -> Result<Value, Error> {
    let mut uris = match current.take() {
        Some((sub, uris)) => {
            client.stop_listen(sub)?;
            uris
        }
        None => Vec::new(),
    };
    if let Some(u) = uri
        && !uris.contains(&u)
    {
        uris.push(u);
    }
    let mut filter = json!({
        "toolsListChanged": true,
        "promptsListChanged": true,
        "resourcesListChanged": true,
    });
    if !uris.is_empty() {
        filter["resourceSubscriptions"] = json!(uris);
    }
    let sub = client.listen(filter, None).await?;
    let acknowledged = sub.acknowledged.clone();
    *current = Some((sub, uris));
    Ok(json!({"acknowledged": acknowledged}))
}

/// Whether a notification method arrives on a 2026 listen stream.
pub(super) fn needs_listen(method: &str) -> bool {
    method.ends_with("/list_changed") || method == "notifications/resources/updated"
}
