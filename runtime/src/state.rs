//! State files (mcp-test-language-1.md §4.18): `--state-out` writes a passing run's outputs
//! for a later run, `--state-in` reads them as `${state.…}`. The file is written atomically
//! (a temporary file in the same directory, owner-only permissions, then a rename) and
//! carries fingerprints of the target and the suite and an integrity hash; reading it for a
//! different target is refused unless forced.
//!
//! The file is the hand-over between runs, not a report: the values of `sensitive` exports
//! are kept as they are (the next run must send the real value) and listed under
//! `sensitive`, so the run that reads them masks them in everything it prints. Every other
//! output is stored as reported, with the suite's secrets masked.

use crate::codes::RunCode;
use std::path::Path;

use mcpr_compiler::ir::{Suite, Target};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

/// Version of the state file layout.
pub const FORMAT_VERSION: u64 = 1;

fn canonical(v: &Value) -> String {
    match v {
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", Value::String(k.clone()), canonical(&o[k])))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        other => other.to_string(),
    }
}

fn fingerprint(v: &Value) -> String {
    let digest = Sha256::digest(canonical(v).as_bytes());
    format!(
        "sha256:{}",
        digest
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    )
}

/// The fingerprint of a target: transport, command, args and cwd, or transport and URL.
pub fn target_fingerprint(target: &Target) -> String {
    let v = match target {
        Target::Stdio(s) => json!({
            "transport": "stdio",
            "command": s.command,
            "args": s.args.clone().unwrap_or_default(),
            "cwd": s.cwd,
        }),
        Target::StreamableHttp(h) => json!({"transport": "streamable-http", "url": h.url}),
        Target::Sse(h) => json!({"transport": "sse", "url": h.url}),
    };
    fingerprint(&v)
}

/// `YYYY-MM-DDTHH:MM:SSZ` for now.
fn now_iso() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = crate::data::date::civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// A state file as a run reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// The `state` variable: the outputs with their dotted keys expanded into objects.
    pub state: Value,
    /// The values of sensitive outputs, to be masked in everything the run prints.
    pub secrets: Vec<String>,
}

/// Writes a state file for `outputs` (keys `TESTID.KEY`); the keys in `sensitive` hold
/// real values of sensitive exports.
pub fn write(
    path: &Path,
    suite: &Suite,
    target: &Target,
    outputs: &Map<String, Value>,
    sensitive: &[String],
) -> Result<(), String> {
    let suite_value = serde_json::to_value(suite).map_err(|e| e.to_string())?;
    let mut state = json!({
        "formatVersion": FORMAT_VERSION,
        "createdAt": now_iso(),
        "targetFingerprint": target_fingerprint(target),
        "suiteFingerprint": fingerprint(&suite_value),
        "outputs": outputs,
        "sensitive": sensitive,
    });
    state["integrity"] = Value::String(fingerprint(&state));
    let text = serde_json::to_string_pretty(&state).map_err(|e| e.to_string())? + "\n";
    crate::files::write_atomic(path, text.as_bytes(), crate::files::Access::Private)
}

/// Reads a state file and returns the `state` variable: outputs with their dotted keys
/// expanded into nested objects, and the sensitive values. `MCP-STATE-001` bad format,
/// `MCP-STATE-002` integrity, `MCP-STATE-003` written for another target (unless
/// `allow_other_target`).
pub fn read(path: &Path, target: &Target, allow_other_target: bool) -> Result<Loaded, String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "{}: cannot read {}: {e}",
            RunCode::StateFormat,
            path.display()
        )
    })?;
    let mut state: Value = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}: {} is not JSON: {e}",
            RunCode::StateFormat,
            path.display()
        )
    })?;
    if state.get("formatVersion") != Some(&json!(FORMAT_VERSION)) || !state["outputs"].is_object() {
        return Err(format!(
            "{}: {} is not an mcpr state file (formatVersion 1 with outputs)",
            RunCode::StateFormat,
            path.display()
        ));
    }
    let integrity = state.as_object_mut().and_then(|o| o.remove("integrity"));
    if integrity.as_ref().and_then(Value::as_str) != Some(fingerprint(&state).as_str()) {
        return Err(format!(
            "{}: {} was changed after it was written (integrity check failed)",
            RunCode::StateIntegrity,
            path.display()
        ));
    }
    if !allow_other_target
        && state["targetFingerprint"].as_str() != Some(target_fingerprint(target).as_str())
    {
        return Err(format!(
            "{}: {} was written for another target; pass --allow-state-target-mismatch to use it anyway",
            RunCode::StateTarget,
            path.display()
        ));
    }
    let mut nested = Map::new();
    for (key, value) in state["outputs"].as_object().into_iter().flatten() {
        let parts: Vec<&str> = key.split('.').collect();
        let mut cur = &mut nested;
        for p in &parts[..parts.len() - 1] {
            let entry = cur
                .entry(p.to_string())
                .or_insert_with(|| Value::Object(Map::new()));
            if !entry.is_object() {
                *entry = Value::Object(Map::new());
            }
            cur = entry.as_object_mut().expect("an object was just put here");
        }
        cur.insert(parts[parts.len() - 1].to_string(), value.clone());
    }
    let mut secrets = Vec::new();
    for key in state["sensitive"].as_array().into_iter().flatten() {
        if let Some(v) = key.as_str().and_then(|k| state["outputs"].get(k)) {
            collect_text(v, &mut secrets);
        }
    }
    Ok(Loaded {
        state: Value::Object(nested),
        secrets,
    })
}

/// Every string and number of a value, as text.
fn collect_text(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Number(n) => out.push(n.to_string()),
        Value::Array(items) => items.iter().for_each(|i| collect_text(i, out)),
        Value::Object(o) => o.values().for_each(|i| collect_text(i, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_integrity_and_target() {
        let dir = std::env::temp_dir().join(format!("mcpr-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("state.json");
        let target = Target::stdio("server", vec![]);
        let suite = Suite::new(target.clone(), vec![]);
        let mut outputs = Map::new();
        outputs.insert("create-customer.customerId".into(), json!("C-1"));
        outputs.insert("login.token".into(), json!("tok-real-value"));
        write(&path, &suite, &target, &outputs, &["login.token".into()]).unwrap();
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let loaded = read(&path, &target, false).unwrap();
        assert_eq!(loaded.state["create-customer"]["customerId"], json!("C-1"));
        assert_eq!(loaded.state["login"]["token"], json!("tok-real-value"));
        assert_eq!(loaded.secrets, vec!["tok-real-value".to_string()]);
        let other = Target::stdio("other", vec![]);
        assert!(
            read(&path, &other, false)
                .unwrap_err()
                .starts_with("MCP-STATE-003")
        );
        assert!(read(&path, &other, true).is_ok());
        let tampered = std::fs::read_to_string(&path)
            .unwrap()
            .replace("C-1", "C-2");
        std::fs::write(&path, tampered).unwrap();
        assert!(
            read(&path, &target, false)
                .unwrap_err()
                .starts_with("MCP-STATE-002")
        );
        assert!(now_iso().ends_with('Z') && now_iso().len() == 20);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
