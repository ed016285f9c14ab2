//! Steps: the phrase of each action and the lines after it.

use super::*;

/// The `Run step with:` form: the step in the suite model, without what `.mcpr` supplies
/// (its position, flow frames, and the phase when it is the section's).
pub(super) fn run_step(step: &Step, section: Phase) -> Vec<String> {
    let mut copy = step.clone();
    copy.clear_locations();
    let mut m = match serde_json::to_value(&copy) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    // The caller printed the section of the (canonical) phase.
    if step.phase == Some(section) {
        m.shift_remove("phase");
    }
    // A tool call's default name goes without saying.
    if let StepKind::Tool(t) = &step.kind
        && step.name.as_deref() == Some(named("Call tool", &t.name).as_str())
    {
        m.shift_remove("name");
    }
    let mut out = String::new();
    emit::mapping(&mut out, &m, 2);
    let mut lines = vec!["Run step with:".to_string()];
    lines.extend(out.lines().map(str::to_string));
    lines
}

/// The step name `.mcpr` gives a subject in quotes: `Call tool “add”`.
pub(super) fn named(verb: &str, subject: &str) -> String {
    format!("{verb} \u{201c}{subject}\u{201d}")
}

/// The name a step must have for a phrase to fit it: the phrase lowers to a step of its own
/// name (`Call tool “add”`), so a step named otherwise is not that phrase — unless the
/// printer writes names as comments (legacy conversion, [`super::Options`]), where the
/// phrase fits any name and a name it would not give is kept on a comment line above it.
pub(super) struct StepName<'a> {
    name: &'a str,
    as_comment: bool,
    differs: std::cell::Cell<bool>,
}

impl<'a> StepName<'a> {
    pub(super) fn new(name: &'a str, as_comment: bool) -> Self {
        Self {
            name,
            as_comment,
            differs: std::cell::Cell::new(false),
        }
    }

    /// Whether a phrase that lowers to a step named `implied` may stand for this step.
    pub(super) fn fits(&self, implied: &str) -> bool {
        if self.name == implied {
            return true;
        }
        self.differs.set(self.as_comment);
        self.as_comment
    }

    /// The comment lines that keep the name when the phrase written gives another.
    fn comment(&self) -> Vec<String> {
        if !self.differs.get() {
            return Vec::new();
        }
        self.name
            .lines()
            .map(|l| format!("# {l}").trim_end().to_string())
            .collect()
    }
}

/// The step as phrases, when phrases lower back to exactly this step (its name aside when
/// `names_as_comments`: see [`StepName`]).
pub(super) fn phrases(
    step: &Step,
    section: Phase,
    functions: bool,
    names_as_comments: bool,
) -> Option<Vec<String>> {
    // Every member is named here so that a new one cannot slip past the phrases: it must be
    // handled below (or the step goes to `Run step with:`).
    let Step {
        name: _,
        kind,
        phase,
        always: _,
        assert: _,
        capture: _,
        export: _,
        timeout_ms: _,
        fault,
        source: _,
        flow: _,
    } = step;
    // A fault phrase lowers only below a step that sends one request.
    if fault.is_some() && !matches!(kind, StepKind::Tool(_) | StepKind::Request(_)) {
        return None;
    }
    match kind {
        StepKind::Tool(ToolStep {
            name: _,
            arguments: _,
            positional: _,
            coerce: _,
            task: _,
        })
        | StepKind::Request(RequestStep {
            method: _,
            params: _,
        })
        | StepKind::Set(SetStep {
            variable: _,
            function: _,
            arguments: _,
        })
        | StepKind::Native(_) => {}
    }
    if *phase != Some(section) {
        return None;
    }
    let cleanup = Some(section == Phase::Cleanup);
    let name = StepName::new(step.name.as_deref()?, names_as_comments);
    let mut lines = Vec::new();
    // (first line, block, always as lowering writes it)
    let (head, block, always): (String, Option<&Map<String, Value>>, Option<bool>) = match &step
        .kind
    {
        StepKind::Tool(t) if t.coerce == Some(true) && t.task.is_none() => {
            // Text values typed by the schema: `Call tool "NAME" with values …`.
            if !name.fits(&named("Call tool", &t.name)) {
                return None;
            }
            let values = tool_values(t)?;
            (
                format!("Call tool {} with values {values}", qname(&t.name)?),
                None,
                cleanup,
            )
        }
        StepKind::Tool(t) => {
            // Positional values without coercion, `coerce: false` and task mode have no
            // phrase.
            if !name.fits(&named("Call tool", &t.name))
                || t.positional.is_some()
                || t.coerce.is_some()
                || t.task.is_some()
            {
                return None;
            }
            match &t.arguments {
                Some(a) if a.is_empty() => return None,
                a => (
                    format!("Call tool {}", qname(&t.name)?),
                    a.as_ref(),
                    cleanup,
                ),
            }
        }
        StepKind::Request(r) => {
            let params = r.params.as_ref();
            if r.method == "resources/read"
                && let Some(Value::Object(p)) = params
                && p.len() == 1
                && let Some(Value::String(uri)) = p.get("uri")
                && name.fits(&named("Read resource", uri))
            {
                (format!("Read resource {}", qname(uri)?), None, cleanup)
            } else if r.method == "prompts/get"
                && let Some((prompt, args)) = name_and_arguments(params)
                && name.fits(&named("Get prompt", prompt))
            {
                (format!("Get prompt {}", qname(prompt)?), args, cleanup)
            } else if name.fits(&format!("Send {}", r.method)) {
                match params {
                    None => (format!("Send {}", qname(&r.method)?), None, cleanup),
                    Some(Value::Object(p)) if !p.is_empty() => {
                        (format!("Send {}", qname(&r.method)?), Some(p), cleanup)
                    }
                    _ => return None,
                }
            } else {
                return None;
            }
        }
        StepKind::Set(s) => {
            if !name.fits(&format!(
                "{} using {}",
                named("Set", &s.variable),
                s.function
            )) || step.assert.is_some()
                || step.capture.is_some()
                || step.export.is_some()
                || step.timeout_ms.is_some()
                || !same_always(step.always, cleanup, section)
                || (!functions && !crate::lower::BUILT_IN_FUNCTIONS.contains(&s.function.as_str()))
            {
                return None;
            }
            let head = format!("Set {} using {}", qname(&s.variable)?, qname(&s.function)?);
            return match &s.arguments {
                Some(a) if a.is_empty() => None,
                a => Some(with_block(head, a.as_ref())),
            };
        }
        StepKind::Native(n) => native(n, &name, cleanup)?,
    };
    if !same_always(step.always, always, section) {
        return None;
    }
    if let StepKind::Native(_) = step.kind
        && step.timeout_ms.is_some()
    {
        return None;
    }
    lines.extend(name.comment());
    lines.extend(with_block(head, block));
    lines.extend(modifiers(step)?);
    Some(lines)
}

/// The values of `Call tool "NAME" with values …` as lowering reads them back: positional
/// values, then `NAME=VALUE` for the named ones; every value text, at least one.
fn tool_values(t: &ToolStep) -> Option<String> {
    let positional = t.positional.as_deref().unwrap_or_default();
    let named = t.arguments.as_ref().map(|a| a.iter()).into_iter().flatten();
    if t.positional.as_ref().is_some_and(Vec::is_empty)
        || t.arguments.as_ref().is_some_and(Map::is_empty)
        || (positional.is_empty() && t.arguments.is_none())
    {
        return None;
    }
    let mut items = Vec::new();
    for v in positional {
        let Value::String(text) = v else { return None };
        // A positional value that reads as `NAME=…` is quoted.
        let plain = plain_value(text) && !text.contains('=');
        items.push(if plain { text.clone() } else { qname(text)? });
    }
    for (key, v) in named {
        let Value::String(text) = v else { return None };
        let mut chars = key.chars();
        let key_ok = chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !key_ok {
            return None;
        }
        let value = if plain_value(text) {
            text.clone()
        } else {
            qname(text)?
        };
        items.push(format!("{key}={value}"));
    }
    Some(items.join(", "))
}

/// Whether a value of `with values` can go unquoted: no comma, quote, `#` or control
/// character, nothing a plain value loses (spaces at either end), not empty.
fn plain_value(text: &str) -> bool {
    !text.is_empty()
        && text.trim() == text
        && !text.starts_with(':')
        && !text.contains([',', '"', '\'', '#', '\n', '\r', '\t'])
}

/// Whether two `always` settings mean the same in `section` (see [`crate::fmt::canonical_step`]).
pub(super) fn same_always(a: Option<bool>, b: Option<bool>, section: Phase) -> bool {
    let norm = |x: Option<bool>| x == Some(true) && section != Phase::Cleanup;
    norm(a) == norm(b)
}

/// `head` plus ` with:` and the block when there is one (an empty block cannot be written;
/// callers turn an empty map into "no block" only where lowering does the same).
pub(super) fn with_block(head: String, block: Option<&Map<String, Value>>) -> Vec<String> {
    match block {
        Some(b) if !b.is_empty() => {
            let mut out = String::new();
            emit::mapping(&mut out, b, 2);
            let mut lines = vec![format!("{head} with:")];
            lines.extend(out.lines().map(str::to_string));
            lines
        }
        _ => vec![head],
    }
}

/// `{"name": N, "arguments": {…}}` as `Get prompt`/progress calls lower it.
pub(super) fn name_and_arguments(
    params: Option<&Value>,
) -> Option<(&str, Option<&Map<String, Value>>)> {
    let Some(Value::Object(p)) = params else {
        return None;
    };
    let keys: Vec<&str> = p.keys().map(String::as_str).collect();
    if keys != ["name", "arguments"] {
        return None;
    }
    let Value::String(name) = &p["name"] else {
        return None;
    };
    let Value::Object(args) = &p["arguments"] else {
        return None;
    };
    Some((name, (!args.is_empty()).then_some(args)))
}

/// Expectations and modifiers after an action, in the order lowering applies them.
pub(super) fn modifiers(step: &Step) -> Option<Vec<String>> {
    let mut lines = Vec::new();
    if let Some(a) = &step.assert {
        lines.extend(expectations(a)?);
    }
    for (var, path) in step.capture.iter().flat_map(|c| c.iter()) {
        lines.push(format!("Save {} as {}", path_text(path)?, qname(var)?));
    }
    for (name, e) in step.export.iter().flat_map(|e| e.iter()) {
        let Export {
            path: _,
            aggregate: _,
            sensitive: _,
        } = e;
        let aggregate = match e.aggregate? {
            Aggregate::Single => "",
            Aggregate::List => " collecting a list",
            Aggregate::Map => " collecting a map",
        };
        let sensitive = match e.sensitive {
            None => "",
            Some(true) => " sensitive",
            Some(false) => return None,
        };
        lines.push(format!(
            "Export {} as {}{aggregate}{sensitive}",
            path_text(&e.path)?,
            qname(name)?
        ));
    }
    let timeout = match &step.kind {
        StepKind::Native(n) if n.action() != NativeAction::AwaitNotification => n.timeout_ms(),
        StepKind::Native(_) => None,
        _ => step.timeout_ms,
    };
    if let Some(ms) = timeout {
        lines.push(format!("Wait up to {}", duration(ms)?));
    }
    if let Some(f) = &step.fault {
        lines.push(fault_phrase(f)?);
    }
    Some(lines)
}

/// The phrase of a fault, when one lowers back to it.
fn fault_phrase(f: &Fault) -> Option<String> {
    Some(match (f.kind, f.delay_ms) {
        (FaultKind::Delay, Some(ms)) => format!("Delay the response by {}", duration(ms)?),
        (_, Some(_)) | (FaultKind::Delay, None) => return None,
        (FaultKind::Drop, None) => "Drop the response".into(),
        (FaultKind::Disconnect, None) => "Disconnect after the request".into(),
        (FaultKind::Duplicate, None) => "Duplicate the response".into(),
        (FaultKind::Corrupt, None) => "Corrupt the response".into(),
    })
}
