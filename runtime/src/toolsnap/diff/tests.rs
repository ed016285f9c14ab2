use serde_json::{Value, json};

use super::*;
use crate::surface::Surface;
use crate::toolsnap::from_surface;
use crate::toolsnap::render::{self, Policy};

fn snap(tools: Value) -> Value {
    from_surface(&Surface {
        tools: tools.as_array().unwrap().clone(),
        ..Surface::default()
    })
}

fn lines(old: &Value, new: &Value) -> Vec<String> {
    diff(old, new).iter().map(render::line).collect()
}

fn tool(props: Value, required: Value) -> Value {
    json!([{"name": "t", "description": "A tool", "inputSchema": {"type": "object", "properties": props, "required": required}}])
}

/// One parameter `p` with `old` and `new` schemas: the changes found.
fn param(old: Value, new: Value) -> Vec<String> {
    lines(
        &snap(tool(json!({"p": old}), json!([]))),
        &snap(tool(json!({"p": new}), json!([]))),
    )
}

/// The output schema of one tool, `old` to `new`.
fn output(old: Value, new: Value) -> Vec<String> {
    let t = |o: Value| {
        snap(json!([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": o}]))
    };
    lines(&t(old), &t(new))
}

#[test]
fn the_mcptest_example() {
    let old = snap(json!([
        {"name": "add", "description": "Adds two integers",
         "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]},
         "outputSchema": {"type": "object", "properties": {"sum": {"type": "integer"}}}},
        {"name": "echo", "inputSchema": {"type": "object"}},
    ]));
    let new = snap(json!([
        {"name": "add", "description": "Adds two numbers",
         "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "integer"},
            "c": {"type": "integer"}, "round": {"type": "boolean"}}, "required": ["a", "b", "c"]}},
        {"name": "multiply", "inputSchema": {"type": "object"}},
    ]));
    let changes = diff(&old, &new);
    assert_eq!(
        render::human(&changes, "tools.json", Policy::default()),
        "\
MCP tools differ from snapshot tools.json (3 breaking, 4 compatible):
  BREAKING add: new required parameter 'c'
  BREAKING add: outputSchema was removed
  BREAKING echo: tool was removed
  ok       add: parameter 'a' type changed integer -> number
  ok       add: new optional parameter 'round'
  ok       add: description changed
  ok       multiply: new tool
Run mcpr snapshot -o tools.json against the same server to accept these changes.
"
    );
    assert!(Policy::default().fails(&changes));
    assert!(
        !Policy {
            allow_breaking: true,
            ..Policy::default()
        }
        .fails(&changes)
    );
}

#[test]
fn no_change_no_lines_and_order_does_not_matter() {
    let a = snap(
        json!([{"name": "x", "inputSchema": {"type": "object", "required": ["a", "b"],
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}}, {"name": "y", "inputSchema": {"type": "object"}}]),
    );
    let b = snap(
        json!([{"name": "y", "inputSchema": {"type": "object"}}, {"inputSchema": {"properties":
        {"b": {"type": "string"}, "a": {"type": "string"}}, "required": ["b", "a"], "type": "object"}, "name": "x"}]),
    );
    assert!(diff(&a, &b).is_empty());
    assert_eq!(
        render::human(&[], "s.json", Policy::default()),
        "MCP tools match snapshot s.json\n"
    );
    assert!(
        !Policy {
            strict: true,
            ..Policy::default()
        }
        .fails(&[])
    );
}

#[test]
fn parameter_types_narrow_and_widen() {
    let t = |x: &str| json!({"type": x});
    assert_eq!(
        param(t("integer"), t("number")),
        ["  ok       t: parameter 'p' type changed integer -> number"]
    );
    assert_eq!(
        param(t("number"), t("integer")),
        ["  BREAKING t: parameter 'p' type changed number -> integer"]
    );
    assert_eq!(
        param(t("string"), t("integer")),
        ["  BREAKING t: parameter 'p' type changed string -> integer"]
    );
    assert_eq!(
        param(t("string"), json!({"type": ["string", "null"]})),
        ["  ok       t: parameter 'p' type changed string -> null|string"]
    );
    assert_eq!(
        param(
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
            t("string")
        ),
        ["  BREAKING t: parameter 'p' type changed null|string -> string"]
    );
    assert_eq!(
        param(json!({}), t("string")),
        ["  BREAKING t: parameter 'p' type changed any -> string"]
    );
    assert_eq!(
        param(t("string"), json!({})),
        ["  ok       t: parameter 'p' type changed string -> any"]
    );
}

#[test]
fn parameter_enums() {
    let e = |v: Value| json!({"type": "string", "enum": v});
    assert_eq!(
        param(
            e(json!(["fast", "exact", "fuzzy"])),
            e(json!(["fast", "exact", "regex"]))
        ),
        [
            "  BREAKING t: parameter 'p' enum value 'fuzzy' was removed",
            "  ok       t: parameter 'p' enum value 'regex' was added",
        ]
    );
    assert_eq!(
        param(json!({"type": "string"}), e(json!(["a"]))),
        ["  BREAKING t: parameter 'p' now only accepts 'a'"]
    );
    assert_eq!(
        param(e(json!(["a", 2])), json!({"type": "string"})),
        ["  ok       t: parameter 'p' is no longer limited to 'a', 2"]
    );
    assert_eq!(
        param(json!({"const": "x"}), json!({"const": "y"})),
        [
            "  BREAKING t: parameter 'p' enum value 'x' was removed",
            "  ok       t: parameter 'p' enum value 'y' was added",
        ]
    );
}

#[test]
fn parameters_added_removed_and_required() {
    let o = snap(tool(
        json!({"a": {"type": "string"}, "b": {"type": "string"}, "gone": {"type": "string"}}),
        json!(["a"]),
    ));
    let n = snap(tool(
        json!({"a": {"type": "string"}, "b": {"type": "string"}, "new_opt": {"type": "string"},
        "new_req": {"type": "string"}}),
        json!(["b", "new_req"]),
    ));
    assert_eq!(
        lines(&o, &n),
        [
            "  BREAKING t: parameter 'b' is now required",
            "  BREAKING t: parameter 'gone' was removed",
            "  BREAKING t: new required parameter 'new_req'",
            "  ok       t: parameter 'a' is no longer required",
            "  ok       t: new optional parameter 'new_opt'",
        ]
    );
}

#[test]
fn parameter_bounds_patterns_and_defaults() {
    assert_eq!(
        param(
            json!({"type": "integer", "minimum": 1, "maximum": 10}),
            json!({"type": "integer", "minimum": 0, "maximum": 5})
        ),
        [
            "  BREAKING t: parameter 'p' maximum changed 10 -> 5",
            "  ok       t: parameter 'p' minimum changed 1 -> 0",
        ]
    );
    assert_eq!(
        param(
            json!({"type": "string"}),
            json!({"type": "string", "maxLength": 8, "minLength": 2})
        ),
        [
            "  BREAKING t: parameter 'p' minLength changed none -> 2",
            "  BREAKING t: parameter 'p' maxLength changed none -> 8",
        ]
    );
    assert_eq!(
        param(
            json!({"type": "array", "maxItems": 3}),
            json!({"type": "array"})
        ),
        ["  ok       t: parameter 'p' maxItems changed 3 -> none"]
    );
    assert_eq!(
        param(
            json!({"type": "string"}),
            json!({"type": "string", "pattern": "^a"})
        ),
        ["  BREAKING t: parameter 'p' now has pattern '^a'"]
    );
    assert_eq!(
        param(
            json!({"type": "string", "format": "uri"}),
            json!({"type": "string"})
        ),
        ["  ok       t: parameter 'p' format 'uri' was dropped"]
    );
    assert_eq!(
        param(
            json!({"type": "integer", "default": 1, "description": "x"}),
            json!({"type": "integer", "default": 2, "description": "y"})
        ),
        [
            "  ok       t: parameter 'p' default changed 1 -> 2",
            "  ok       t: parameter 'p' description changed",
        ]
    );
    assert_eq!(
        param(
            json!({"type": "string", "x-ui": 1}),
            json!({"type": "string", "x-ui": 2})
        ),
        ["  ok       t: parameter 'p' 'x-ui' changed"]
    );
}

#[test]
fn nested_objects_and_arrays() {
    let o = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    let n = json!({"type": "object", "properties": {"q": {"type": "integer"}, "r": {"type": "string"}}, "required": ["r"],
                   "additionalProperties": false});
    assert_eq!(
        param(o, n),
        [
            "  BREAKING t: parameter 'p.q' type changed string -> integer",
            "  BREAKING t: new required parameter 'p.r'",
            "  BREAKING t: other properties in 'p' are no longer accepted",
        ]
    );
    assert_eq!(
        param(
            json!({"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}),
            json!({"type": "array", "items": {"type": "string", "enum": ["a"]}})
        ),
        ["  BREAKING t: parameter 'p[]' enum value 'b' was removed"]
    );
    let closed = |v: bool| {
        snap(json!([{"name": "t", "inputSchema": {"type": "object", "additionalProperties": v}}]))
    };
    assert_eq!(
        lines(&closed(false), &closed(true)),
        ["  ok       t: other parameters are now accepted"]
    );
}

#[test]
fn outputs_are_covariant() {
    let o =
        |props: Value, req: Value| json!({"type": "object", "properties": props, "required": req});
    assert_eq!(
        output(
            o(
                json!({"hits": {"type": "array"}, "total": {"type": "integer"}}),
                json!(["hits", "total"])
            ),
            o(
                json!({"hits": {"type": "array"}, "extra": {"type": "string"}}),
                json!([])
            )
        ),
        [
            "  BREAKING t: output field 'hits' is no longer always present",
            "  BREAKING t: output field 'total' was removed",
            "  ok       t: new output field 'extra'",
        ]
    );
    assert_eq!(
        output(
            o(json!({"n": {"type": "integer"}}), json!([])),
            o(json!({"n": {"type": "number"}}), json!([]))
        ),
        ["  BREAKING t: output field 'n' type changed integer -> number"]
    );
    assert_eq!(
        output(
            o(json!({"n": {"type": "number"}}), json!([])),
            o(json!({"n": {"type": "integer"}}), json!(["n"]))
        ),
        [
            "  ok       t: output field 'n' is now always present",
            "  ok       t: output field 'n' type changed number -> integer",
        ]
    );
    assert_eq!(
        output(
            o(json!({"s": {"enum": ["a", "b"]}}), json!([])),
            o(json!({"s": {"enum": ["a", "c"]}}), json!([]))
        ),
        [
            "  BREAKING t: output field 's' may now be 'c'",
            "  ok       t: output field 's' is no longer 'b'",
        ]
    );
    assert_eq!(
        output(
            o(
                json!({"a": {"type": "object", "properties": {"b": {"type": "string"}}}}),
                json!([])
            ),
            o(
                json!({"a": {"type": "object", "properties": {}}}),
                json!([])
            )
        ),
        ["  BREAKING t: output field 'a.b' was removed"]
    );
    let added = lines(
        &snap(json!([{"name": "t", "inputSchema": {"type": "object"}}])),
        &snap(
            json!([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}]),
        ),
    );
    assert_eq!(added, ["  ok       t: outputSchema was added"]);
}

#[test]
fn tool_metadata() {
    let t = |extra: Value| {
        let mut d = json!({"name": "t", "inputSchema": {"type": "object"}});
        for (k, v) in extra.as_object().unwrap() {
            d[k] = v.clone();
        }
        snap(json!([d]))
    };
    assert_eq!(
        lines(
            &t(json!({"title": "T", "annotations": {"readOnlyHint": true}})),
            &t(json!({"title": "U", "annotations": {}}))
        ),
        [
            "  ok       t: title changed",
            "  ok       t: annotation 'readOnlyHint' changed true -> absent",
        ]
    );
    assert_eq!(
        lines(
            &t(json!({})),
            &t(json!({"execution": {"taskSupport": "required"}}))
        ),
        ["  BREAKING t: taskSupport changed forbidden -> required"]
    );
    assert_eq!(
        lines(
            &t(json!({"execution": {"taskSupport": "required"}})),
            &t(json!({"execution": {"taskSupport": "optional"}}))
        ),
        ["  ok       t: taskSupport changed required -> optional"]
    );
    assert_eq!(
        lines(&t(json!({"icons": []})), &t(json!({}))),
        ["  ok       t: 'icons' changed"]
    );
}

#[test]
fn resources_templates_and_prompts() {
    let s = |resources: Value, templates: Value, prompts: Value| {
        from_surface(&Surface {
            resources: resources.as_array().unwrap().clone(),
            resource_templates: templates.as_array().unwrap().clone(),
            prompts: prompts.as_array().unwrap().clone(),
            ..Surface::default()
        })
    };
    let old = s(
        json!([{"uri": "a://1", "name": "one", "mimeType": "text/plain"}, {"uri": "a://gone", "name": "gone"}]),
        json!([{"uriTemplate": "a://{id}", "name": "t"}]),
        json!([
            {"name": "p", "arguments": [{"name": "x"}, {"name": "y", "required": true}, {"name": "z"}]},
            {"name": "old"},
        ]),
    );
    let new = s(
        json!([{"uri": "a://1", "name": "uno", "mimeType": "application/json"}, {"uri": "a://new", "name": "new"}]),
        json!([{"uriTemplate": "a://items/{id}", "name": "t"}]),
        json!([
            {"name": "p", "description": "now described", "arguments": [{"name": "x", "required": true}, {"name": "y"},
                {"name": "w", "required": true}, {"name": "v"}]},
        ]),
    );
    assert_eq!(
        lines(&old, &new),
        [
            "  BREAKING resource a://1: mimeType changed 'text/plain' -> 'application/json'",
            "  BREAKING resource a://gone: resource was removed",
            "  BREAKING template a://{id}: resource template was removed",
            "  BREAKING prompt old: prompt was removed",
            "  BREAKING prompt p: new required argument 'w'",
            "  BREAKING prompt p: argument 'x' became required",
            "  BREAKING prompt p: argument 'z' was removed",
            "  ok       resource a://1: name changed 'one' -> 'uno'",
            "  ok       resource a://new: new resource",
            "  ok       template a://items/{id}: new resource template",
            "  ok       prompt p: new optional argument 'v'",
            "  ok       prompt p: argument 'y' is no longer required",
            "  ok       prompt p: description changed",
        ]
    );
}

#[test]
fn formats_and_policies() {
    let old = snap(
        json!([{"name": "a", "inputSchema": {"type": "object"}}, {"name": "b", "inputSchema": {"type": "object"}}]),
    );
    let new =
        snap(json!([{"name": "a", "description": "new text", "inputSchema": {"type": "object"}}]));
    let changes = diff(&old, &new);
    let strict = Policy {
        strict: true,
        allow_breaking: false,
    };
    let allow = Policy {
        strict: false,
        allow_breaking: true,
    };
    assert_eq!(
        render::github(&changes, "t.json", "", Policy::default()),
        "::error file=t.json,title=breaking MCP change (t.json)::b: tool was removed\n::notice file=t.json,title=compatible MCP change (t.json)::a: description changed\nMCP tools differ from snapshot t.json (1 breaking, 1 compatible):\n"
    );
    assert!(render::github(&changes, "t.json", "", allow).starts_with(
        "::warning file=t.json,title=breaking MCP change (t.json)::b: tool was removed\n"
    ));
    assert!(
        render::github(&changes, "t.json", "", strict)
            .contains("::error file=t.json,title=MCP change (t.json)::a: description changed\n")
    );
    assert!(
        render::human(&changes, "t.json", allow)
            .contains("Breaking changes are allowed (--allow-breaking): reported, not failed.\n")
    );
    let v = render::json(&changes, "t.json", Policy::default());
    assert_eq!(v["breaking"], 1);
    assert_eq!(v["compatible"], 1);
    assert_eq!(v["failed"], true);
    assert_eq!(
        v["changes"][0],
        json!({"breaking": true, "kind": "tool", "name": "b", "message": "tool was removed"})
    );
    let only_ok = diff(
        &snap(json!([])),
        &snap(json!([{"name": "n", "inputSchema": {"type": "object"}}])),
    );
    assert!(!Policy::default().fails(&only_ok));
    assert!(strict.fails(&only_ok));
}

/// The annotations point at the line of each changed definition in the snapshot file as
/// `mcpr snapshot` writes it; a new definition, which the file does not hold, at the file.
#[test]
fn github_annotations_point_at_the_definition_in_the_snapshot_file() {
    let old = snap(json!([
        {"name": "a", "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}}},
        {"name": "b", "inputSchema": {"type": "object"}},
    ]));
    let new = snap(json!([
        {"name": "a", "description": "now described", "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}}},
        {"name": "c", "inputSchema": {"type": "object"}},
    ]));
    let text = crate::toolsnap::to_text(&old);
    let line_of = |needle: &str| {
        text.lines()
            .position(|l| l.trim().trim_end_matches(',') == needle)
            .expect("in the snapshot")
            + 1
    };
    let gh = render::github(&diff(&old, &new), "snaps/t.json", &text, Policy::default());
    let b = line_of("\"name\": \"b\"");
    assert!(
        gh.contains(&format!(
            "::error file=snaps/t.json,line={b},title=breaking MCP change (snaps/t.json)::b: tool was removed\n"
        )),
        "{gh}\n{text}"
    );
    let a = line_of("\"name\": \"a\"");
    assert!(
        gh.contains(&format!("::notice file=snaps/t.json,line={a},title=")),
        "{gh}"
    );
    assert!(
        gh.contains(
            "::notice file=snaps/t.json,title=compatible MCP change (snaps/t.json)::c: new tool\n"
        ),
        "{gh}"
    );
    // The JSON format carries the same lines.
    let changes = diff(&old, &new);
    let mut doc = render::json(&changes, "snaps/t.json", Policy::default());
    render::add_lines(&mut doc, &changes, &text);
    let line_of_change = |name: &str| {
        doc["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .map(|c| c["line"].clone())
    };
    assert_eq!(line_of_change("b"), Some(json!(b)));
    assert_eq!(line_of_change("c"), Some(Value::Null));
}
