//! Server profiles of mcp-tester's `mcp-tester.yml`, so that `mcpr run script.mcp --profile
//! NAME` finds the server a legacy script names none of.
//!
//! The file is a YAML mapping `profiles: {NAME: {command | url, disabled?}}`: `command` is a
//! command line (its words as [`crate::command_line`] splits them) started over stdio, `url` a Streamable
//! HTTP endpoint (legacy HTTP+SSE when it ends in `/sse`), and `disabled: true` refuses the
//! profile. Other members are ignored, so files written by mcp-tester work unchanged.

use serde_json::Value;

/// Where a profile's server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Profile {
    /// A command line started over stdio.
    Command(String),
    /// An HTTP endpoint.
    Url(String),
}

/// Finds profile `name` in the text of an `mcp-tester.yml` file.
pub fn lookup(text: &str, name: &str) -> Result<Profile, String> {
    let doc = crate::yaml::parse_full(text).map_err(|e| {
        format!(
            "not a valid profile file (line {}, column {}): {}",
            e.line, e.column, e.message
        )
    })?;
    let profiles = match doc.get("profiles") {
        Some(Value::Object(p)) => p,
        Some(Value::Null) | None => return Err("it declares no `profiles:`".into()),
        Some(_) => return Err("`profiles:` is not a mapping of names to servers".into()),
    };
    let Some(p) = profiles.get(name) else {
        let mut known: Vec<&str> = profiles.keys().map(String::as_str).collect();
        known.sort_unstable();
        return Err(format!(
            "no profile {name:?}; the file has {}",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        ));
    };
    if p.get("disabled") == Some(&Value::Bool(true)) {
        return Err(format!("profile {name:?} is disabled"));
    }
    let text_of = |key: &str| {
        p.get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    match (text_of("command"), text_of("url")) {
        (Some(_), Some(_)) => Err(format!(
            "profile {name:?} has both `command` and `url`; keep one"
        )),
        (Some(c), None) => Ok(Profile::Command(c.to_string())),
        (None, Some(u)) => Ok(Profile::Url(u.to_string())),
        (None, None) => Err(format!("profile {name:?} has neither `command` nor `url`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "profiles:\n  local:\n    command: ./bin/server --flag\n  remote:\n    url: http://127.0.0.1:3000/mcp\n  off:\n    command: x\n    disabled: true\n";

    #[test]
    fn finds_profiles() {
        assert_eq!(
            lookup(FILE, "local"),
            Ok(Profile::Command("./bin/server --flag".into()))
        );
        assert_eq!(
            lookup(FILE, "remote"),
            Ok(Profile::Url("http://127.0.0.1:3000/mcp".into()))
        );
        assert!(lookup(FILE, "off").unwrap_err().contains("disabled"));
        let missing = lookup(FILE, "nope").unwrap_err();
        assert!(missing.contains("local, off, remote"), "{missing}");
        assert!(lookup("profiles: [1]", "x").is_err());
        assert!(lookup(": :", "x").is_err());
    }
}
