//! Lists: every page of a list method (cursors followed, a repeated cursor refused), and
//! the tool definitions that calls check against.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::Client;
use super::opts;
use super::tools::invalid_param_headers;
use crate::error::{Error, ErrorKind, shorten};
use crate::protocol::version::Era;

/// Most pages of a list before giving up.
pub const MAX_PAGES: usize = 10_000;

impl Client {
    /// Follows every cursor of a list method and returns all items of `key`. A cursor that
    /// comes back twice is `MCP-PROTOCOL-007`.
    pub async fn list_all(
        &self,
        method: &str,
        key: &str,
        extra: Option<Value>,
        timeout: Option<Duration>,
    ) -> Result<Vec<Value>, Error> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen: HashSet<String> = HashSet::new();
        for _ in 0..MAX_PAGES {
            let mut params = extra.clone().unwrap_or_else(|| json!({}));
            if let Some(c) = &cursor {
                params["cursor"] = json!(c);
            }
            let mut result = self
                .session
                .request(method, Some(&params), &opts(timeout))
                .await?;
            // The page's items are moved out of the result, not copied: a list of many
            // items is held once.
            match result.get_mut(key) {
                Some(Value::Array(page)) => items.append(page),
                Some(other) => {
                    return Err(self.invalid(
                        method,
                        format!(
                            "`{key}` is a {}, not an array",
                            crate::protocol::jsonrpc::kind_of(other)
                        ),
                    ));
                }
                None => return Err(self.invalid(method, format!("`{key}` is missing"))),
            }
            match result.get("nextCursor") {
                None | Some(Value::Null) => return Ok(items),
                Some(Value::String(next)) => {
                    if !seen.insert(next.clone()) {
                        return Err(self.session.error(ErrorKind::RepeatedCursor {
                            method: method.into(),
                            cursor: next.clone(),
                        }));
                    }
                    cursor = Some(next.clone());
                }
                Some(other) => {
                    return Err(
                        self.invalid(method, format!("nextCursor is {other}, not a string"))
                    );
                }
            }
        }
        Err(self.invalid(method, format!("more than {MAX_PAGES} pages")))
    }

    /// All tools (cached for the `outputSchema` check).
    pub async fn list_tools(&self) -> Result<Vec<Value>, Error> {
        let tools = self.cache_tools().await?;
        Ok(tools.iter().map(|t| Value::clone(t)).collect())
    }

    /// Lists every tool and keeps the list for the `outputSchema` and `x-mcp-header`
    /// checks of later calls; each definition is held once, shared by the cache and the
    /// list returned.
    async fn cache_tools(&self) -> Result<Vec<Arc<Value>>, Error> {
        let mut tools = self.list_all("tools/list", "tools", None, None).await?;
        if self.session.is_http() && self.session.era() == Era::Modern {
            // 2026 HTTP clients must drop tools whose x-mcp-header annotations are invalid.
            tools.retain(|t| match invalid_param_headers(t) {
                None => true,
                Some(reason) => {
                    let name = t.get("name").and_then(Value::as_str).unwrap_or("?");
                    self.session.note_violation(ErrorKind::Conformance {
                        what: format!("tool {name}"),
                        reason: format!("dropped from tools/list: {reason}"),
                    });
                    false
                }
            });
        }
        let tools: Vec<Arc<Value>> = tools.into_iter().map(Arc::new).collect();
        let mut map = BTreeMap::new();
        for t in &tools {
            let Some(name) = t.get("name").and_then(Value::as_str) else {
                return Err(self.invalid(
                    "tools/list",
                    format!("a tool has no name: {}", shorten(&t.to_string(), 200)),
                ));
            };
            if !t.get("inputSchema").is_some_and(Value::is_object) {
                return Err(self.invalid(
                    "tools/list",
                    format!("tool {name} has no inputSchema object"),
                ));
            }
            if let Some(schema) = t.get("outputSchema") {
                for reference in dangling_refs(schema) {
                    self.session.note_violation(ErrorKind::Conformance {
                        what: format!("tool {name}"),
                        reason: format!(
                            "its outputSchema's $ref {reference:?} resolves nowhere in the schema: a result of it cannot be checked"
                        ),
                    });
                }
            }
            map.insert(name.to_string(), Arc::clone(t));
        }
        *self.tools.lock().expect("tools lock") = Some(map);
        self.validators.lock().expect("validators lock").clear();
        Ok(tools)
    }

    /// All resources.
    pub async fn list_resources(&self) -> Result<Vec<Value>, Error> {
        self.list_all("resources/list", "resources", None, None)
            .await
    }

    /// All resource templates.
    pub async fn list_resource_templates(&self) -> Result<Vec<Value>, Error> {
        self.list_all("resources/templates/list", "resourceTemplates", None, None)
            .await
    }

    /// All prompts.
    pub async fn list_prompts(&self) -> Result<Vec<Value>, Error> {
        self.list_all("prompts/list", "prompts", None, None).await
    }

    /// The definition of a tool from `tools/list` (cached; every page read), if it exists.
    pub async fn tool_definition(&self, name: &str) -> Result<Option<Arc<Value>>, Error> {
        match self.cached_definition(name) {
            Some(found) => Ok(found),
            None => {
                if !self.server_has(&["tools"]) {
                    return Ok(None);
                }
                self.cache_tools().await?;
                Ok(self
                    .tools
                    .lock()
                    .expect("tools lock")
                    .as_ref()
                    .and_then(|m| m.get(name).cloned()))
            }
        }
    }

    /// The names of the tools, when `tools/list` was read already (none is asked for).
    pub fn listed_tool_names(&self) -> Option<Vec<String>> {
        self.tools
            .lock()
            .expect("tools lock")
            .as_ref()
            .map(|m| m.keys().cloned().collect())
    }

    /// The definition of tool `name` when the tools were listed already (`Some(None)`
    /// when the list has no such tool), `None` when they were not.
    pub(super) fn cached_definition(&self, name: &str) -> Option<Option<Arc<Value>>> {
        self.tools
            .lock()
            .expect("tools lock")
            .as_ref()
            .map(|m| m.get(name).cloned())
    }

    /// The definition of tool `name` before a call to it: a `tools/list` that the server
    /// refuses does not stop the call; it only skips the checks the definition allows.
    pub(super) async fn definition_for_call(
        &self,
        name: &str,
    ) -> Result<Option<Arc<Value>>, Error> {
        match self.tool_definition(name).await {
            Ok(d) => Ok(d),
            Err(e) if e.rpc_error().is_some() => {
                self.tools
                    .lock()
                    .expect("tools lock")
                    .get_or_insert_with(BTreeMap::new);
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}

/// The local `$ref`s (`#/…`) of a schema that point at nothing in it (at most five).
fn dangling_refs(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![schema];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                if let Some(Value::String(r)) = o.get("$ref")
                    && let Some(pointer) = r.strip_prefix('#')
                    && schema.pointer(pointer).is_none()
                {
                    out.push(r.clone());
                    if out.len() == 5 {
                        break;
                    }
                }
                stack.extend(o.values());
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
    out
}
