//! The Suite IR types and `docs/schema/suite.schema.json` describe the same documents.
//!
//! (a) Example suites deserialize, serialize back byte-identically and validate against the
//! schema; (b) broken documents are rejected by the schema at the expected instance paths;
//! (c) the Rust types reject unknown members where the schema does. That the property names
//! of every object in the schema equal the member names the Rust types write is checked in
//! `ir_schema_members.rs`.

mod ir_schema_support;

use ir_schema_support::*;
use mcpr_compiler::ir::{
    Defaults, ForEach, ForEachFile, ForEachSource, IR_VERSION, JoinKind, JsonAssertions, OAuth,
    OAuthSettings, OrderedMap, Phase, SCHEMA_ID, Sample, SampleEvery, SampleRandom, Skip,
    SourceLocation, Step, StepKind, Suite, Target, Test, ToolStep, WhereCondition,
};
use serde_json::{Map, Value, json};

#[test]
fn the_schema_is_a_valid_2020_12_schema_with_our_id() {
    let schema = schema();
    assert!(jsonschema::meta::is_valid(&schema));
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["$id"], SCHEMA_ID);
}

#[test]
fn a_reference_suite_round_trips_unchanged() {
    let suite = round_trip(&plain_suite());
    assert_eq!(suite.ir_version, None);
    assert_eq!(suite.tests.len(), 3);
    let first = &suite.tests[0].steps[0];
    assert!(matches!(&first.kind, StepKind::Tool(tool) if tool.name == "create"));
    let json = first.assert.as_ref().unwrap().json.as_ref().unwrap();
    // `equals: null` is an expectation, not a missing member.
    assert_eq!(json.as_slice()[1].equals, Some(Value::Null));
    assert_eq!(json.as_slice().len(), 9);
    let single = suite.tests[0].steps[1].assert.as_ref().unwrap();
    assert!(matches!(single.json, Some(JsonAssertions::One(_))));
    assert_eq!(single.json.as_ref().unwrap().as_slice().len(), 1);
    assert_eq!(
        suite.tests[1].skip,
        Some(Skip::Reason("Not enabled in this environment".into()))
    );
    assert_eq!(suite.tests[2].skip, Some(Skip::Flag(true)));
    let StepKind::Request(ping) = &suite.tests[2].steps[0].kind else {
        panic!("expected a request step");
    };
    assert_eq!(ping.params, Some(Value::Null));
    let Some(Target::Stdio(stdio)) = &suite.target else {
        panic!("expected a stdio target");
    };
    let env: Vec<&str> = stdio.env.as_ref().unwrap().keys().collect();
    assert_eq!(env, ["MODE", "LEVEL"]);
}

#[test]
fn http_targets_and_parity_targets_round_trip() {
    let suite = round_trip(&http_parity_suite());
    let Some(Target::StreamableHttp(http)) = &suite.target else {
        panic!("expected a streamable-http target");
    };
    assert_eq!(http.oauth, Some(OAuth::Enabled(true)));
    let targets = suite.targets.as_ref().unwrap();
    let names: Vec<&str> = targets.keys().collect();
    assert_eq!(
        names,
        ["Local", "QA", "Legacy"],
        "declaration order is kept"
    );
    assert!(matches!(targets.get("Legacy"), Some(Target::Sse(_))));
    let Some(Target::StreamableHttp(qa)) = targets.get("QA") else {
        panic!("expected QA over HTTP");
    };
    assert_eq!(
        qa.oauth,
        Some(OAuth::Settings(OAuthSettings {
            client_id: Some("mcpr".into()),
            client_secret: Some("s3cret".into()),
            scope: Some("read write".into()),
            ..OAuthSettings::default()
        }))
    );
}

#[test]
fn named_servers_round_trip() {
    let suite = round_trip(&composition_suite());
    assert_eq!(suite.tests[0].server.as_deref(), Some("b"));
    assert_eq!(suite.servers.as_ref().unwrap().len(), 2);
}

#[test]
fn data_sources_for_each_and_flow_frames_round_trip() {
    let suite = round_trip(&mcpr_additions_suite());
    assert_eq!(suite.ir_version, Some(IR_VERSION));
    let sources = suite.data_sources.as_ref().unwrap();
    let customers = sources.get("customers").unwrap();
    let join = customers.join.as_ref().unwrap();
    assert_eq!(join.on.as_deref(), Some("customerId"));
    assert_eq!(join.kind, Some(JoinKind::Left));
    let derive: Vec<&str> = customers.derive.as_ref().unwrap().keys().collect();
    assert_eq!(derive, ["label", "upper"], "derive order is kept");
    let filter = customers.filter.as_ref().unwrap();
    assert!(matches!(
        filter.get("tier"),
        Some(WhereCondition::OneOf(list)) if list.len() == 2
    ));
    assert_eq!(
        filter.get("region"),
        Some(&WhereCondition::Equals(json!("EU")))
    );
    let Some(WhereCondition::Operators(deleted)) = filter.get("deleted") else {
        panic!("expected operators");
    };
    assert_eq!(deleted.equals, Some(Value::Null));
    assert_eq!(
        customers.sample,
        Some(Sample::Random(SampleRandom {
            count: 25,
            seed: Some(2025)
        }))
    );
    assert_eq!(
        sources.get("first").unwrap().sample,
        Some(Sample::Count(10))
    );
    assert!(matches!(
        sources.get("every").unwrap().sample,
        Some(Sample::Every(SampleEvery { every: 2 }))
    ));

    let inline = &suite.tests[1];
    let Some(ForEach::Rows(rows)) = &inline.for_each else {
        panic!("expected inline rows");
    };
    let header: Vec<&String> = rows.rows[0].keys().collect();
    assert_eq!(header, ["caseId", "input", "expected"]);
    let step = &inline.steps[0];
    assert_eq!(step.flow.len(), 2);
    assert_eq!(step.flow[0].name, "Verify twice", "outermost frame first");
    assert_eq!(step.flow[1].call_site.line, 3);
    assert_eq!(
        step.source,
        Some(SourceLocation::new("shared/flows.mcpr", 7, 3))
    );
    assert!(matches!(
        suite.tests[0].for_each,
        Some(ForEach::Source(ForEachSource { ref source })) if source == "customers"
    ));
    assert!(matches!(
        suite.tests[2].for_each,
        Some(ForEach::File(ForEachFile { sheet: Some(_), .. }))
    ));
}

#[test]
fn suites_built_in_rust_serialize_in_reference_key_order() {
    let mut step = Step::new(StepKind::Tool(ToolStep {
        arguments: Some(Map::from_iter([("a".to_owned(), json!(1))])),
        ..ToolStep::new("add")
    }));
    step.name = Some("Call tool \"add\"".into());
    step.phase = Some(Phase::Test);
    step.always = Some(false);
    step.capture = Some(OrderedMap::from_iter([(
        "sum",
        "$.structuredContent.sum".to_owned(),
    )]));
    step.source = Some(SourceLocation::new("a.mcpr", 4, 3));
    let mut test = Test::new("Adds", vec![step]);
    test.logical_name = Some("Adds".into());
    test.id = Some("adds".into());
    test.variables = Some(Map::new());
    let mut suite = Suite::new(Target::stdio("node", vec!["server.js".into()]), vec![test]);
    suite.name = Some("Math".into());
    suite.defaults = Some(Defaults {
        timeout_ms: Some(3000),
        ..Defaults::default()
    });

    let text = serde_json::to_string(&suite).unwrap();
    assert_eq!(
        text,
        concat!(
            r#"{"version":1,"irVersion":1,"name":"Math","#,
            r#""target":{"transport":"stdio","command":"node","args":["server.js"]},"#,
            r#""defaults":{"timeoutMs":3000},"#,
            r#""tests":[{"name":"Adds","steps":[{"name":"Call tool \"add\"","#,
            r#""tool":{"name":"add","arguments":{"a":1}},"phase":"test","always":false,"#,
            r#""capture":{"sum":"$.structuredContent.sum"},"#,
            r#""source":{"file":"a.mcpr","line":4,"column":3}}],"#,
            r#""id":"adds","logicalName":"Adds","variables":{}}]}"#
        )
    );
    assert_valid(&validator(), &serde_json::to_value(&suite).unwrap());
    let back: Suite = serde_json::from_str(&text).unwrap();
    assert_eq!(back, suite);
}

/// Applies `edit` to a copy of `base` and returns the schema's error paths for the result.
fn schema_errors_after(base: Value, edit: impl FnOnce(&mut Value)) -> Vec<String> {
    let mut document = base;
    edit(&mut document);
    error_paths(&validator(), &document)
}

#[test]
fn the_schema_rejects_broken_documents_at_the_right_place() {
    type Edit = fn(&mut Value);
    let step0 = "/tests/0/steps/0";
    let cases: Vec<(&str, Edit, Vec<String>)> = vec![
        (
            "a step with two kinds",
            |d| d["tests"][0]["steps"][0]["request"] = json!({"method": "ping"}),
            vec![step0.into()],
        ),
        (
            "a step with no kind",
            |d| {
                d["tests"][0]["steps"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("tool");
            },
            vec![step0.into()],
        ),
        (
            "timeoutMs 0",
            |d| d["tests"][0]["steps"][0]["timeoutMs"] = json!(0),
            vec![format!("{step0}/timeoutMs")],
        ),
        (
            "a default timeout over ten minutes",
            |d| d["defaults"]["timeoutMs"] = json!(600_001),
            vec!["/defaults/timeoutMs".into()],
        ),
        (
            "an unknown member of a test",
            |d| d["tests"][0]["attempts"] = json!(2),
            vec!["/tests/0".into()],
        ),
        (
            "an unknown top-level member",
            |d| d["flows"] = json!({}),
            vec![String::new()],
        ),
        (
            "an unknown member of an assertion",
            |d| d["tests"][0]["steps"][0]["assert"]["json"][0]["equal"] = json!(2),
            vec![format!("{step0}/assert/json")],
        ),
        (
            "a path that was not normalised",
            |d| {
                d["tests"][0]["steps"][0]["assert"]["json"][0]["path"] =
                    json!("structuredContent.total")
            },
            vec![format!("{step0}/assert/json")],
        ),
        (
            "a capture path without $",
            |d| d["tests"][0]["steps"][0]["capture"]["localId"] = json!("structuredContent.id"),
            vec![format!("{step0}/capture/localId")],
        ),
        (
            "an export without a path",
            |d| d["tests"][0]["steps"][0]["export"]["customerId"] = json!({"aggregate": "list"}),
            vec![format!("{step0}/export/customerId")],
        ),
        (
            "an unknown aggregate",
            |d| d["tests"][0]["steps"][0]["export"]["all"]["aggregate"] = json!("sum"),
            vec![format!("{step0}/export/all/aggregate")],
        ),
        (
            "a regex longer than 1000 characters",
            |d| d["tests"][0]["steps"][0]["assert"]["json"][6]["matches"] = json!("a".repeat(1001)),
            vec![format!("{step0}/assert/json")],
        ),
        (
            "a negative length",
            |d| d["tests"][0]["steps"][0]["assert"]["json"][3]["length"] = json!(-1),
            vec![format!("{step0}/assert/json")],
        ),
        (
            "an unknown assertion type",
            |d| d["tests"][0]["steps"][0]["assert"]["json"][4]["type"] = json!("integer"),
            vec![format!("{step0}/assert/json")],
        ),
        (
            "an unknown status",
            |d| d["tests"][0]["steps"][0]["assert"]["status"] = json!("failure"),
            vec![format!("{step0}/assert/status")],
        ),
        (
            "maxDurationMs 0",
            |d| d["tests"][0]["steps"][0]["assert"]["maxDurationMs"] = json!(0),
            vec![format!("{step0}/assert/maxDurationMs")],
        ),
        (
            "a tool without a name",
            |d| d["tests"][0]["steps"][0]["tool"] = json!({"arguments": {}}),
            vec![format!("{step0}/tool")],
        ),
        (
            "an unknown phase",
            |d| d["tests"][0]["steps"][0]["phase"] = json!("teardown"),
            vec![format!("{step0}/phase")],
        ),
        (
            "an unknown native action",
            |d| d["tests"][1]["steps"][0]["native"]["action"] = json!("ping"),
            vec!["/tests/1/steps/0/native/action".into()],
        ),
        (
            "cancelAfterMs 0",
            |d| d["tests"][1]["steps"][2]["native"]["cancelAfterMs"] = json!(0),
            vec!["/tests/1/steps/2/native/cancelAfterMs".into()],
        ),
        (
            "no tests",
            |d| d["tests"] = json!([]),
            vec!["/tests".into()],
        ),
        (
            "a test without steps",
            |d| d["tests"][2]["steps"] = json!([]),
            vec!["/tests/2/steps".into()],
        ),
        (
            "a numeric skip",
            |d| d["tests"][2]["skip"] = json!(1),
            vec!["/tests/2/skip".into()],
        ),
        (
            "duplicate dependencies",
            |d| d["tests"][1]["dependsOn"] = json!(["a", "a"]),
            vec!["/tests/1/dependsOn".into()],
        ),
        (
            "version 2",
            |d| d["version"] = json!(2),
            vec!["/version".into()],
        ),
        (
            "an unknown transport",
            |d| d["target"]["transport"] = json!("websocket"),
            vec!["/target".into()],
        ),
        (
            "an HTTP member on a stdio target",
            |d| d["target"]["url"] = json!("http://x"),
            vec!["/target".into()],
        ),
        (
            "a percentile of 101",
            |d| d["budgets"][0]["percentile"] = json!(101),
            vec!["/budgets/0/percentile".into()],
        ),
        (
            "a window of 1001",
            |d| d["budgets"][0]["window"] = json!(1001),
            vec!["/budgets/0/window".into()],
        ),
        (
            "a duplicate redaction",
            |d| d["redact"] = json!(["abc", "abc"]),
            vec!["/redact".into()],
        ),
        (
            "an empty redaction",
            |d| d["redact"] = json!([""]),
            vec!["/redact/0".into()],
        ),
        (
            "a snapshot ignore path without $",
            |d| d["snapshots"]["ignore"] = json!(["createdAt"]),
            vec!["/snapshots/ignore/0".into()],
        ),
        (
            "an unknown extension permission",
            |d| d["extensions"]["permissions"] = json!(["filesystem-write"]),
            vec!["/extensions/permissions/0".into()],
        ),
        (
            "a single parity target",
            |d| {
                d["targets"] = json!({"Local": {"transport": "stdio", "command": "node"}});
            },
            vec!["/targets".into()],
        ),
        (
            // One named server is a composition with `target` (issue 16); none is not.
            "no named server",
            |d| d["servers"] = json!({}),
            vec!["/servers".into()],
        ),
        (
            "an empty command",
            |d| d["target"]["command"] = json!(""),
            vec!["/target".into()],
        ),
    ];
    for (what, edit, expected) in cases {
        let errors = schema_errors_after(plain_suite(), edit);
        assert_eq!(errors, expected, "{what}");
    }
}

#[test]
fn the_schema_rejects_broken_additions_at_the_right_place() {
    type Edit = fn(&mut Value);
    let cases: Vec<(&str, Edit, Vec<&str>)> = vec![
        (
            "irVersion 2",
            |d| d["irVersion"] = json!(2),
            vec!["/irVersion"],
        ),
        (
            "forEach with both rows and a source",
            |d| d["tests"][1]["forEach"]["source"] = json!("customers"),
            vec!["/tests/1/forEach"],
        ),
        (
            "forEach with no rows",
            |d| d["tests"][1]["forEach"] = json!({"rows": []}),
            vec!["/tests/1/forEach"],
        ),
        (
            "an empty flow list",
            |d| d["tests"][1]["steps"][0]["flow"] = json!([]),
            vec!["/tests/1/steps/0/flow"],
        ),
        (
            "a flow frame without a prefix",
            |d| {
                d["tests"][1]["steps"][0]["flow"][1]
                    .as_object_mut()
                    .unwrap()
                    .remove("prefix");
            },
            vec!["/tests/1/steps/0/flow/1"],
        ),
        (
            "line 0",
            |d| d["tests"][0]["steps"][0]["source"]["line"] = json!(0),
            vec!["/tests/0/steps/0/source/line"],
        ),
        (
            "a call site without a column",
            |d| {
                d["tests"][1]["steps"][0]["flow"][0]["callSite"]
                    .as_object_mut()
                    .unwrap()
                    .remove("column");
            },
            vec!["/tests/1/steps/0/flow/0/callSite"],
        ),
        (
            "an unknown provider",
            |d| d["dataSources"]["customers"]["provider"] = json!("parquet"),
            vec!["/dataSources/customers/provider"],
        ),
        (
            "an unknown member of a data source",
            |d| d["dataSources"]["customers"]["limit"] = json!(3),
            vec!["/dataSources/customers"],
        ),
        (
            "a join key outside a join",
            |d| d["dataSources"]["customers"]["on"] = json!("id"),
            vec!["/dataSources/customers"],
        ),
        (
            "a join without `on`",
            |d| {
                d["dataSources"]["customers"]["join"]
                    .as_object_mut()
                    .unwrap()
                    .remove("on");
            },
            vec!["/dataSources/customers/join"],
        ),
        (
            "an unknown join kind",
            |d| d["dataSources"]["customers"]["join"]["kind"] = json!("outer"),
            vec!["/dataSources/customers/join/kind"],
        ),
        (
            "an unknown column type",
            |d| d["dataSources"]["customers"]["columns"]["spend"]["type"] = json!("decimal"),
            vec!["/dataSources/customers/columns/spend/type"],
        ),
        (
            "two sample forms at once",
            |d| d["dataSources"]["customers"]["sample"] = json!({"first": 2, "last": 3}),
            vec!["/dataSources/customers/sample"],
        ),
        (
            "an unknown where operator",
            |d| d["dataSources"]["customers"]["where"]["spend"] = json!({"atLeast": 3}),
            vec!["/dataSources/customers/where/spend"],
        ),
        (
            "a derive template that is not text",
            |d| d["dataSources"]["customers"]["derive"]["label"] = json!(3),
            vec!["/dataSources/customers/derive/label"],
        ),
        (
            "a plugin timeout over ten minutes",
            |d| d["dataSources"]["db"]["timeoutMs"] = json!(600_001),
            vec!["/dataSources/db/timeoutMs"],
        ),
    ];
    for (what, edit, expected) in cases {
        let errors = schema_errors_after(mcpr_additions_suite(), edit);
        assert_eq!(errors, expected, "{what}");
    }
}

/// Inserts an unknown member into the object at `pointer` and returns the serde error.
fn serde_error_with_unknown_member(base: &Value, pointer: &str) -> String {
    let mut document = base.clone();
    document
        .pointer_mut(pointer)
        .unwrap_or_else(|| panic!("{pointer} exists"))
        .as_object_mut()
        .unwrap_or_else(|| panic!("{pointer} is an object"))
        .insert("bogusMember".into(), json!(1));
    assert!(
        !validator().is_valid(&document),
        "the schema accepts an unknown member at {pointer}"
    );
    match serde_json::from_value::<Suite>(document) {
        Ok(_) => panic!("serde accepts an unknown member at {pointer}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_types_reject_unknown_members_where_the_schema_does() {
    let plain = plain_suite();
    for pointer in [
        "",
        "/target",
        "/defaults",
        "/budgets/0",
        "/snapshots",
        "/extensions",
        "/tests/0",
        "/tests/0/requires",
        "/tests/0/steps/0",
        "/tests/0/steps/0/tool",
        "/tests/0/steps/0/assert",
        "/tests/0/steps/0/assert/json/0",
        "/tests/0/steps/0/assert/json/8/snapshot",
        "/tests/0/steps/0/export/all",
        "/tests/0/steps/1/request",
        "/tests/0/steps/1/assert/json",
        "/tests/0/steps/3/set",
        "/tests/0/steps/4/assert/error",
        "/tests/1/steps/0/native",
    ] {
        let error = serde_error_with_unknown_member(&plain, pointer);
        assert!(
            error.contains("bogusMember") || error.contains("did not match any variant"),
            "{pointer}: {error}"
        );
    }
    let http = http_parity_suite();
    for pointer in ["/target", "/targets/QA/oauth", "/targets/Legacy"] {
        serde_error_with_unknown_member(&http, pointer);
    }
    let additions = mcpr_additions_suite();
    for pointer in [
        "/tests/0/forEach",
        "/tests/1/forEach",
        "/tests/2/forEach",
        "/tests/0/steps/0/source",
        "/tests/1/steps/0/flow/0",
        "/tests/1/steps/0/flow/0/callSite",
        "/dataSources/customers",
        "/dataSources/customers/join",
        "/dataSources/customers/columns/spend",
        "/dataSources/customers/where/spend",
        "/dataSources/customers/sample",
        "/dataSources/firstObj/sample",
        "/dataSources/last/sample",
        "/dataSources/every/sample",
    ] {
        serde_error_with_unknown_member(&additions, pointer);
    }
}

#[test]
fn the_types_reject_what_the_schema_rejects_about_step_kinds_and_versions() {
    let mut two_kinds = plain_suite();
    two_kinds["tests"][0]["steps"][0]["request"] = json!({"method": "ping"});
    let error = serde_json::from_value::<Suite>(two_kinds)
        .unwrap_err()
        .to_string();
    assert!(error.contains("found tool and request"), "{error}");

    let mut no_kind = plain_suite();
    no_kind["tests"][0]["steps"][0]
        .as_object_mut()
        .unwrap()
        .remove("tool");
    let error = serde_json::from_value::<Suite>(no_kind)
        .unwrap_err()
        .to_string();
    assert!(error.contains("found none"), "{error}");

    let mut version = plain_suite();
    version["version"] = json!(2);
    let error = serde_json::from_value::<Suite>(version)
        .unwrap_err()
        .to_string();
    assert!(error.contains("unsupported suite version 2"), "{error}");

    let mut transport = plain_suite();
    transport["target"]["transport"] = json!("websocket");
    assert!(serde_json::from_value::<Suite>(transport).is_err());

    let mut native = plain_suite();
    native["tests"][1]["steps"][0]["native"]["action"] = json!("ping");
    assert!(serde_json::from_value::<Suite>(native).is_err());
}

#[test]
fn duplicate_keys_in_typed_maps_are_rejected() {
    let text = r#"{"version":1,"target":{"transport":"stdio","command":"x",
        "env":{"A":"1","A":"2"}},"tests":[{"name":"t","steps":[{"tool":{"name":"x"}}]}]}"#;
    let error = serde_json::from_str::<Suite>(text).unwrap_err().to_string();
    assert!(error.contains("duplicate key `A`"), "{error}");
}

#[test]
fn members_in_another_order_give_the_same_ir_written_in_canonical_order() {
    let shuffled = json!({
        "tests": [{ "server": "b", "steps": [{ "timeoutMs": 5, "tool": { "name": "echo" } }], "name": "On b" }],
        "servers": composition_suite()["servers"].clone(),
        "target": composition_suite()["target"].clone(),
        "version": 1
    });
    assert_valid(&validator(), &shuffled);
    let suite: Suite = serde_json::from_value(shuffled).unwrap();
    let mut expected = composition_suite();
    expected["tests"][0]["steps"][0]["timeoutMs"] = json!(5);
    assert_eq!(
        serde_json::to_string(&suite).unwrap(),
        serde_json::to_string(&expected).unwrap()
    );
}

/// Suites compiled from legacy `.mcp` scripts name no server: `target` may be absent, and such
/// a document round-trips unchanged.
#[test]
fn a_suite_without_target_round_trips() {
    let mut doc = plain_suite();
    doc.as_object_mut().unwrap().shift_remove("target");
    let suite = round_trip(&doc);
    assert!(suite.target.is_none());
}

/// What the runner would ignore is an error for both the schema and the types: a member a
/// native action does not use, a client member it does not read, a root without a text `uri`.
#[test]
fn members_the_runner_would_ignore_are_rejected_by_both() {
    type Edit = fn(&mut Value);
    let cases: [(&str, Edit, &str); 5] = [
        (
            "a level on subscribe",
            |d| d["tests"][1]["steps"][0]["native"]["level"] = json!("debug"),
            "/tests/1/steps/0/native",
        ),
        (
            "a uri on task-get",
            |d| d["tests"][1]["steps"][5]["native"]["uri"] = json!("u://x"),
            "/tests/1/steps/5/native",
        ),
        (
            "an unknown client member",
            |d| d["client"] = json!({"rots": []}),
            "/client",
        ),
        (
            "a root without uri",
            |d| d["client"] = json!({"roots": [{"name": "W"}]}),
            "/client/roots/0",
        ),
        (
            "a sampling answer that is a number",
            |d| {
                d["tests"][1]["steps"][8]["native"]["behavior"] = json!({"sampling": 5});
            },
            "/tests/1/steps/8/native/behavior/sampling",
        ),
    ];
    for (what, edit, path) in cases {
        let mut doc = plain_suite();
        assert!(serde_json::from_value::<Suite>(doc.clone()).is_ok());
        edit(&mut doc);
        assert_eq!(
            error_paths(&validator(), &doc),
            vec![path.to_owned()],
            "{what}"
        );
        assert!(
            serde_json::from_value::<Suite>(doc).is_err(),
            "{what}: the types accept it"
        );
    }
}
