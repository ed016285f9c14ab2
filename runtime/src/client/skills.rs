//! The skills extension: list, get, and verification of every file's size and digest.

use base64::Engine as _;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::Client;
use crate::error::{Error, ErrorKind, shorten};
use crate::protocol::meta::EXT_SKILLS;
use crate::session::RequestOptions;

impl Client {
    /// `skills/list`, following cursors.
    pub async fn skills_list(&self) -> Result<Vec<Value>, Error> {
        if !self.server_has_extension(EXT_SKILLS) {
            return Err(self.session.error(ErrorKind::Unsupported {
                operation: "skills/list".into(),
                reason: "the server did not declare the skills extension".into(),
            }));
        }
        self.list_all("skills/list", "skills", None, None).await
    }

    /// `skills/get`.
    pub async fn skill_get(&self, uri: &str) -> Result<Value, Error> {
        let r = self
            .session
            .request(
                "skills/get",
                Some(&json!({"uri": uri})),
                &RequestOptions::default(),
            )
            .await?;
        match r.get("skill") {
            Some(s) if s.get("uri").and_then(Value::as_str) == Some(uri) => Ok(s.clone()),
            Some(_) => Err(self.invalid(
                "skills/get",
                "the skill's uri differs from the one asked for",
            )),
            None => Err(self.invalid("skills/get", "`skill` is missing")),
        }
    }

    /// Reads every file a skill lists and checks its size and SHA-256 digest. Returns how
    /// many files were verified (0 for `"dynamic"` skills).
    pub async fn verify_skill(&self, skill: &Value) -> Result<usize, Error> {
        let uri = skill
            .get("uri")
            .and_then(Value::as_str)
            .unwrap_or("(no uri)")
            .to_string();
        let name = skill
            .get("frontmatter")
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str);
        let skill_err = |reason: String| {
            self.session.error(ErrorKind::Skill {
                uri: uri.clone(),
                reason,
            })
        };
        if !uri.starts_with("skill://") {
            return Err(skill_err("the uri does not use the skill:// scheme".into()));
        }
        let dir = uri.trim_end_matches("/SKILL.md");
        match name {
            Some(n) if dir.rsplit('/').next() == Some(n) => {}
            Some(n) => {
                return Err(skill_err(format!(
                    "the last path segment is not frontmatter.name {n:?}"
                )));
            }
            None => return Err(skill_err("frontmatter.name is missing".into())),
        }
        let mut files = match skill.get("resources") {
            Some(Value::String(s)) if s == "dynamic" => return Ok(0),
            Some(Value::Array(files)) => files.clone(),
            _ => {
                return Err(skill_err(
                    "`resources` is neither an array nor \"dynamic\"".into(),
                ));
            }
        };
        // SKILL.md first: nothing else is read before its frontmatter is verified.
        files.sort_by_key(|f| f.get("uri").and_then(Value::as_str) != Some(uri.as_str()));
        for f in &files {
            let furi = f
                .get("uri")
                .and_then(Value::as_str)
                .ok_or_else(|| skill_err("a resource entry has no uri".into()))?;
            let digest = f
                .get("digest")
                .and_then(Value::as_str)
                .ok_or_else(|| skill_err(format!("{furi}: no digest")))?;
            let size = f
                .get("size")
                .and_then(Value::as_u64)
                .ok_or_else(|| skill_err(format!("{furi}: no size")))?;
            let read = self.read_resource(furi).await?;
            let bytes = resource_bytes(&read).map_err(|e| skill_err(format!("{furi}: {e}")))?;
            if bytes.len() as u64 != size {
                return Err(skill_err(format!(
                    "{furi}: listed size {size}, read {} bytes",
                    bytes.len()
                )));
            }
            let actual = format!("sha256:{}", hex(&Sha256::digest(&bytes)));
            if actual != digest {
                return Err(skill_err(format!(
                    "{furi}: listed digest {digest}, content hashes to {actual}"
                )));
            }
            if furi == uri {
                let listed = skill.get("frontmatter").cloned().unwrap_or(Value::Null);
                if let Err(reason) = check_frontmatter(&bytes, &listed) {
                    return Err(skill_err(format!("{furi}: {reason}")));
                }
            }
        }
        Ok(files.len())
    }
}

/// The bytes of the first content of a `resources/read` result (`text` as UTF-8, `blob`
/// base64-decoded).
pub fn resource_bytes(read: &Value) -> Result<Vec<u8>, String> {
    let c = read
        .get("contents")
        .and_then(|c| c.get(0))
        .ok_or("no contents")?;
    if let Some(t) = c.get("text").and_then(Value::as_str) {
        return Ok(t.as_bytes().to_vec());
    }
    if let Some(b) = c.get("blob").and_then(Value::as_str) {
        return base64::engine::general_purpose::STANDARD
            .decode(b)
            .map_err(|e| format!("blob is not base64: {e}"));
    }
    Err("the content has neither text nor blob".into())
}

/// Compares the YAML frontmatter of a `SKILL.md` with the frontmatter its listing entry
/// declared, field by field (SEP-2640): a field missing on either side or with another
/// value is a discrepancy, and the skill must not be loaded.
pub fn check_frontmatter(skill_md: &[u8], listed: &Value) -> Result<(), String> {
    let text = std::str::from_utf8(skill_md).map_err(|_| "SKILL.md is not UTF-8".to_string())?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return Err("SKILL.md does not start with a `---` frontmatter block".into());
    }
    let mut yaml = String::new();
    let mut closed = false;
    for line in lines {
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        yaml.push_str(line);
    }
    if !closed {
        return Err("the frontmatter block of SKILL.md is not closed by `---`".into());
    }
    let parsed: Value = if yaml.trim().is_empty() {
        Value::Object(Map::new())
    } else {
        serde_saphyr::from_str(&yaml)
            .map_err(|e| format!("the frontmatter of SKILL.md is not YAML: {e}"))?
    };
    let (Some(file), Some(entry)) = (parsed.as_object(), listed.as_object()) else {
        return Err(format!(
            "frontmatter to compare is not a mapping (SKILL.md: {}, listing: {})",
            crate::protocol::jsonrpc::kind_of(&parsed),
            crate::protocol::jsonrpc::kind_of(listed)
        ));
    };
    let mut keys: Vec<&String> = entry.keys().chain(file.keys()).collect();
    keys.sort();
    keys.dedup();
    for k in keys {
        match (entry.get(k), file.get(k)) {
            (Some(a), Some(b)) if crate::session::values_equal(a, b) => {}
            (Some(a), Some(b)) => {
                return Err(format!(
                    "frontmatter field {k:?} is {} in SKILL.md but {} in the listing",
                    shorten(&b.to_string(), 200),
                    shorten(&a.to_string(), 200)
                ));
            }
            (Some(_), None) => {
                return Err(format!(
                    "frontmatter field {k:?} of the listing is missing from SKILL.md"
                ));
            }
            (None, _) => {
                return Err(format!(
                    "SKILL.md has frontmatter field {k:?}, which the listing does not declare"
                ));
            }
        }
    }
    Ok(())
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::content_text;
    use serde_json::json;

    #[test]
    pub(super) fn skill_frontmatter_is_compared_field_by_field() {
        let entry = json!({"name": "pdf", "description": "Fill PDF forms"});
        let md = |front: &str| format!("---\n{front}---\n\nBody.\n").into_bytes();
        assert_eq!(
            check_frontmatter(&md("name: pdf\ndescription: Fill PDF forms\n"), &entry),
            Ok(())
        );
        let e = check_frontmatter(&md("name: pdf\ndescription: Exfiltrate\n"), &entry).unwrap_err();
        assert!(
            e.contains(
                "field \"description\" is \"Exfiltrate\" in SKILL.md but \"Fill PDF forms\""
            ),
            "{e}"
        );
        let e = check_frontmatter(&md("name: pdf\n"), &entry).unwrap_err();
        assert!(
            e.contains("\"description\" of the listing is missing"),
            "{e}"
        );
        let e = check_frontmatter(
            &md("name: pdf\ndescription: Fill PDF forms\nallowed-tools: Bash\n"),
            &entry,
        )
        .unwrap_err();
        assert!(
            e.contains("\"allowed-tools\", which the listing does not declare"),
            "{e}"
        );
        assert!(
            check_frontmatter(b"no frontmatter", &entry)
                .unwrap_err()
                .contains("does not start")
        );
        assert!(
            check_frontmatter(b"---\nname: pdf\n", &entry)
                .unwrap_err()
                .contains("not closed")
        );
    }

    #[test]
    pub(super) fn resource_bytes_text_and_blob() {
        assert_eq!(
            resource_bytes(&json!({"contents":[{"uri":"a","text":"hé"}]})).unwrap(),
            "hé".as_bytes()
        );
        assert_eq!(
            resource_bytes(&json!({"contents":[{"uri":"a","blob":"aGk="}]})).unwrap(),
            b"hi"
        );
        assert!(resource_bytes(&json!({"contents":[]})).is_err());
        assert_eq!(hex(&[0, 255, 16]), "00ff10");
        assert_eq!(
            content_text(
                &json!({"content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]})
            ),
            "a\nb"
        );
    }
}
