//! The MCP Apps extension: a tool's `ui://` resource, its MIME type and CSP.

use serde_json::Value;

use super::Client;
use super::skills::resource_bytes;
use crate::error::{Error, ErrorKind};

/// What an MCP App resource looks like.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AppReport {
    /// The tool.
    pub tool: String,
    /// The `ui://` resource.
    pub resource_uri: String,
    /// Its MIME type.
    pub mime_type: String,
    /// Bytes of HTML.
    pub size: usize,
    /// The `_meta.ui.csp` object, if any.
    pub csp: Option<Value>,
    /// `visibility` of the tool.
    pub visibility: Vec<String>,
}

impl Client {
    /// Checks a tool's MCP App: `_meta.ui.resourceUri` uses `ui://`, the resource exists and
    /// has the app MIME type, and its CSP fields are lists of strings.
    pub async fn check_app(&self, tool_name: &str) -> Result<AppReport, Error> {
        let tool = self.tool_definition(tool_name).await?.ok_or_else(|| {
            self.session
                .error(ErrorKind::Usage(format!("no tool named {tool_name}")))
        })?;
        let ui = tool.get("_meta").and_then(|m| m.get("ui"));
        let uri = ui
            .and_then(|u| u.get("resourceUri"))
            .or_else(|| tool.get("_meta").and_then(|m| m.get("ui/resourceUri")))
            .and_then(Value::as_str)
            .ok_or_else(|| {
                self.session.error(ErrorKind::App {
                    uri: String::new(),
                    reason: format!("tool {tool_name} has no _meta.ui.resourceUri"),
                })
            })?
            .to_string();
        let app_err = |reason: String| {
            self.session.error(ErrorKind::App {
                uri: uri.clone(),
                reason,
            })
        };
        if !uri.starts_with("ui://") {
            return Err(app_err(
                "the resource uri does not use the ui:// scheme".into(),
            ));
        }
        let visibility: Vec<String> = ui
            .and_then(|u| u.get("visibility"))
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        if visibility.iter().any(|v| v != "model" && v != "app") {
            return Err(app_err(format!(
                "visibility {visibility:?} may hold only \"model\" and \"app\""
            )));
        }
        let read = self.read_resource(&uri).await?;
        let content = read["contents"]
            .get(0)
            .ok_or_else(|| app_err("resources/read returned no contents".into()))?;
        let mime = content
            .get("mimeType")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        if mime != "text/html;profile=mcp-app" {
            return Err(app_err(format!(
                "mimeType is {mime:?}, not \"text/html;profile=mcp-app\""
            )));
        }
        let bytes = resource_bytes(&read).map_err(app_err)?;
        let csp = content
            .get("_meta")
            .and_then(|m| m.get("ui"))
            .and_then(|u| u.get("csp"))
            .cloned();
        if let Some(c) = &csp {
            for field in [
                "connectDomains",
                "resourceDomains",
                "frameDomains",
                "baseUriDomains",
            ] {
                if let Some(v) = c.get(field)
                    && !v.as_array().is_some_and(|a| a.iter().all(Value::is_string))
                {
                    return Err(app_err(format!("csp.{field} is not a list of strings")));
                }
            }
        }
        Ok(AppReport {
            tool: tool_name.into(),
            resource_uri: uri,
            mime_type: mime,
            size: bytes.len(),
            csp,
            visibility,
        })
    }
}
