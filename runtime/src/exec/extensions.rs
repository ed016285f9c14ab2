//! The extension checks: every skill read and verified, every MCP App checked.

use serde_json::{Value, json};

use crate::client::Client;
use crate::codes::RunCode;
use crate::error::Error;

use super::{Reply, StepFail, fail};

/// `skills-list`: `{skills, count}`.
pub(super) async fn skills_list(client: &Client) -> Result<Reply, Error> {
    let skills = client.skills_list().await?;
    let count = skills.len();
    Ok(Reply::Ok(json!({"skills": skills, "count": count})))
}

/// `skills-verify`: reads every file of every skill; the first violation fails the step.
pub(super) async fn skills_verify(client: &Client) -> Result<Reply, StepFail> {
    let skills = client.skills_list().await.map_err(verify_error)?;
    let mut files = 0;
    for s in &skills {
        files += client.verify_skill(s).await.map_err(verify_error)?;
    }
    let count = skills.len();
    Ok(Reply::Ok(
        json!({"skills": skills, "count": count, "files": files}),
    ))
}

/// `apps-verify`: checks the app of every tool that declares one; `{apps, count}`.
pub(super) async fn apps_verify(client: &Client) -> Result<Reply, StepFail> {
    let tools = client.list_tools().await.map_err(verify_error)?;
    let mut apps = Vec::new();
    for t in &tools {
        let meta = t.get("_meta");
        let has_app = meta
            .and_then(|m| m.get("ui"))
            .and_then(|u| u.get("resourceUri"))
            .or_else(|| meta.and_then(|m| m.get("ui/resourceUri")))
            .is_some();
        if !has_app {
            continue;
        }
        let name = t.get("name").and_then(Value::as_str).unwrap_or_default();
        let report = client.check_app(name).await.map_err(verify_error)?;
        apps.push(serde_json::to_value(report).unwrap_or(Value::Null));
    }
    if apps.is_empty() {
        return Err(fail(
            RunCode::NoApps,
            "no tool of the server declares an MCP App (_meta.ui.resourceUri)",
        ));
    }
    let count = apps.len();
    Ok(Reply::Ok(json!({"apps": apps, "count": count})))
}

pub(super) fn verify_error(e: Error) -> StepFail {
    let code = e.kind.run_code();
    let message = e.kind.to_string();
    let mut f = super::broke(e);
    if !f.broke {
        f.failure.code = code;
        f.failure.message = message;
    }
    f
}
