//! The Suite IR types and `docs/schema/suite.schema.json` describe the same documents.
//!
//! (a) Example suites deserialize, serialize back byte-identically and validate against the
//! schema; (b) broken documents are rejected by the schema at the expected instance paths;
//! (c) the Rust types reject unknown members where the schema does; (d) the property names of
//! every object in the schema equal the member names the Rust types write.

use std::collections::BTreeSet;

use jsonschema::Validator;
use mcpr_compiler::ir::{
    self, Aggregate, Assert, Assertion, Budget, ClientBehavior, Column, ColumnType, DataSource,
    Defaults, ElicitationAnswer, ErrorExpectation, Export, Extensions, FlowFrame, ForEach,
    ForEachFile, ForEachRows, ForEachSource, FormatVersion, HttpTarget, IR_VERSION, JoinKind,
    JsonAssertions, JsonType, NamedRoot, NativeAction, NativeStep, OAuth, OAuthGrant, OAuthIdp,
    OAuthSettings, OrderedMap, Permission, Phase, Provider, RequestStep, Requirements, Root,
    SCHEMA_ID, Sample, SampleEvery, SampleFirst, SampleLast, SampleRandom, SamplingAnswer,
    ScriptedElicitation, ScriptedSampling, SetStep, Skip, SnapshotAssertion, Snapshots,
    SourceLocation, Status, StdioTarget, Step, StepKind, Suite, Target, TaskMode, Test,
    TokenEndpointAuth, ToolStep, WhereCondition, WhereOperators,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

const SCHEMA_TEXT: &str = include_str!("../../docs/schema/suite.schema.json");

fn schema() -> Value {
    serde_json::from_str(SCHEMA_TEXT).expect("the schema file is JSON")
}

fn validator() -> Validator {
    jsonschema::draft202012::new(&schema()).expect("the schema compiles")
}

/// A validator for one subschema of the suite schema, addressed by JSON pointer.
fn validator_at(pointer: &str) -> Validator {
    let wrapper = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("{SCHEMA_ID}#{pointer}"),
        "$defs": { "suite": schema() },
    });
    jsonschema::draft202012::new(&wrapper).expect("the wrapped schema compiles")
}

/// Instance paths of every schema error, deduplicated and sorted.
fn error_paths(validator: &Validator, instance: &Value) -> Vec<String> {
    let paths: BTreeSet<String> = validator
        .iter_errors(instance)
        .map(|e| e.instance_path().as_str().to_owned())
        .collect();
    paths.into_iter().collect()
}

fn assert_valid(validator: &Validator, instance: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path().as_str()))
        .collect();
    assert!(errors.is_empty(), "schema errors: {errors:#?}");
}

/// Deserializes `document` into a `Suite`, checks that it serializes back to the same text
/// (same members, same order) and that it validates against the schema.
fn round_trip(document: &Value) -> Suite {
    let text = serde_json::to_string_pretty(document).unwrap();
    let suite: Suite =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("does not deserialize: {e}\n{text}"));
    let again = serde_json::to_string_pretty(&suite).unwrap();
    assert_eq!(again, text, "serialization changed the document");
    assert_eq!(
        serde_json::from_value::<Suite>(document.clone()).unwrap(),
        suite
    );
    assert_valid(&validator(), document);
    suite
}

fn plain_suite() -> Value {
    json!({
        "version": 1,
        "name": "Customer tests",
        "target": {
            "transport": "stdio",
            "command": "node",
            "args": ["dist/server.js", "--quiet"],
            "cwd": "./server",
            "env": { "MODE": "test", "LEVEL": "2" }
        },
        "defaults": { "timeoutMs": 10000 },
        "budgets": [
            { "test": "*", "percentile": 95, "maxMs": 500, "window": 20 },
            { "test": "Create customer", "percentile": 50, "maxMs": 2000 }
        ],
        "redact": ["secret-value", "token-value"],
        "snapshots": { "file": "snapshots.json", "ignore": ["$.createdAt", "$.requestId"] },
        "client": {
            "roots": [{ "uri": "file:///workspace", "name": "Workspace" }],
            "sampling": { "model": "fixture", "text": "deterministic response" },
            "elicitation": { "action": "accept", "content": { "approved": true } }
        },
        "tests": [
            {
                "name": "Create customer",
                "steps": [
                    {
                        "name": "Call tool \"create\"",
                        "tool": { "name": "create", "arguments": { "email": "a@b.c", "count": 2 } },
                        "phase": "test",
                        "always": false,
                        "assert": {
                            "status": "success",
                            "maxDurationMs": 800,
                            "json": [
                                { "path": "$.structuredContent.total", "equals": 2 },
                                { "path": "$.structuredContent.deletedAt", "equals": null },
                                { "path": "$.structuredContent.status", "notEquals": "deleted" },
                                { "path": "$.items", "exists": true, "length": 3 },
                                { "path": "$.count", "type": "number" },
                                { "path": "$.content[0].text", "contains": "complete" },
                                { "path": "$.customerId", "matches": "^C-[0-9]+$" },
                                {
                                    "path": "$.structuredContent",
                                    "schema": { "type": "object", "required": ["customerId"] }
                                },
                                {
                                    "path": "$",
                                    "snapshot": { "name": "customer", "ignore": ["$.createdAt"] }
                                }
                            ]
                        },
                        "capture": { "localId": "$.structuredContent.id" },
                        "export": {
                            "customerId": { "path": "$.structuredContent.id" },
                            "all": { "path": "$.structuredContent.id", "aggregate": "list", "sensitive": true }
                        },
                        "timeoutMs": 2000
                    },
                    {
                        "name": "Read resource",
                        "request": { "method": "resources/read", "params": { "uri": "catalog://status" } },
                        "phase": "test",
                        "always": false,
                        "assert": { "json": { "path": "$.contents", "exists": true } }
                    },
                    {
                        "name": "Send ping",
                        "request": { "method": "ping" },
                        "phase": "test"
                    },
                    {
                        "name": "Set normalized",
                        "set": { "variable": "normalized", "function": "lowercase", "arguments": { "value": "${localId}" } },
                        "phase": "test"
                    },
                    {
                        "name": "Bad input",
                        "tool": { "name": "create", "arguments": {} },
                        "phase": "test",
                        "assert": {
                            "status": "error",
                            "error": { "code": -32602, "message": "Invalid params", "matches": "invalid" }
                        }
                    },
                    {
                        "name": "Remove",
                        "tool": { "name": "remove" },
                        "phase": "cleanup",
                        "always": true
                    }
                ],
                "id": "create-customer",
                "requires": { "capabilities": ["tools", "resources.subscribe"], "protocolVersions": ["2025-06-18"] },
                "logicalName": "Create customer",
                "variables": { "tenant": "acme", "retryCount": 3, "nothing": null }
            },
            {
                "name": "Native actions",
                "steps": [
                    {
                        "name": "Subscribe",
                        "native": { "action": "subscribe", "uri": "customer://updates" },
                        "phase": "setup",
                        "always": false
                    },
                    {
                        "name": "Wait",
                        "native": { "action": "await-notification", "method": "notifications/resources/updated", "timeoutMs": 5000 },
                        "phase": "test",
                        "capture": { "updated": "$.params.uri" }
                    },
                    {
                        "name": "Import with progress",
                        "native": {
                            "action": "request",
                            "method": "tools/call",
                            "params": { "name": "import", "arguments": { "source": "catalog.csv" } },
                            "progress": true,
                            "cancelAfterMs": 500
                        },
                        "phase": "test",
                        "assert": { "json": [{ "path": "$.progress", "length": 2 }] }
                    },
                    {
                        "name": "List templates",
                        "native": { "action": "list-all", "method": "resources/templates/list", "field": "resourceTemplates" },
                        "phase": "test"
                    },
                    {
                        "native": { "action": "set-log-level", "level": "debug" }
                    },
                    {
                        "native": { "action": "task-get", "taskId": "task-1" },
                        "phase": "test"
                    },
                    {
                        "native": { "action": "task-list", "params": { "cursor": "abc" } }
                    },
                    {
                        "native": { "action": "task-cancel", "taskId": "task-1" }
                    },
                    {
                        "native": {
                            "action": "configure-client",
                            "behavior": { "elicitation": { "action": "accept", "content": { "ok": true } } }
                        }
                    },
                    {
                        "native": { "action": "unsubscribe", "uri": "customer://updates" },
                        "phase": "cleanup",
                        "always": true
                    }
                ],
                "skip": "Not enabled in this environment",
                "dependsOn": ["create-customer"]
            },
            {
                "name": "Skipped",
                "steps": [{ "request": { "method": "ping", "params": null } }],
                "skip": true,
                "data": { "source": "customers.csv", "row": { "a": 1 }, "id": "1", "fingerprint": "sha256:00" }
            }
        ],
        "extensions": {
            "functions": ["functions.mjs"],
            "permissions": ["environment", "filesystem-read", "network"],
            "allowlist": ["functions.mjs"],
            "unsafeLegacy": false
        }
    })
}

fn http_parity_suite() -> Value {
    json!({
        "version": 1,
        "name": "Parity",
        "target": {
            "transport": "streamable-http",
            "url": "https://qa.example.com/mcp",
            "headers": { "Authorization": "Bearer ${env.QA_TOKEN}" },
            "tokenFrom": "print-token",
            "oauth": true
        },
        "targets": {
            "Local": { "transport": "stdio", "command": "node", "args": ["server.js"] },
            "QA": {
                "transport": "streamable-http",
                "url": "https://qa.example.com/mcp",
                "oauth": { "clientId": "mcpr", "clientSecret": "s3cret", "scope": "read write" }
            },
            "Legacy": { "transport": "sse", "url": "http://localhost:3001/sse" }
        },
        "tests": [
            { "name": "Ping", "steps": [{ "request": { "method": "ping" } }] }
        ]
    })
}

fn composition_suite() -> Value {
    json!({
        "version": 1,
        "target": { "transport": "stdio", "command": "node", "args": ["a.js"] },
        "servers": {
            "a": { "transport": "stdio", "command": "node", "args": ["a.js"] },
            "b": { "transport": "streamable-http", "url": "http://localhost:8080/mcp", "oauth": {} }
        },
        "tests": [
            { "name": "On b", "steps": [{ "tool": { "name": "echo" } }], "server": "b" }
        ]
    })
}

fn mcpr_additions_suite() -> Value {
    json!({
        "version": 1,
        "irVersion": 1,
        "name": "Data and flows",
        "target": { "transport": "stdio", "command": "node", "args": ["server.js"] },
        "tests": [
            {
                "name": "Active customer",
                "steps": [
                    {
                        "name": "Call tool \"find_customer\"",
                        "tool": { "name": "find_customer", "arguments": { "customerId": "${row.customerId}" } },
                        "phase": "test",
                        "always": false,
                        "source": { "file": "tests/customers.mcpr", "line": 14, "column": 3 }
                    }
                ],
                "id": "active-customer",
                "logicalName": "Active customer",
                "variables": {},
                "forEach": { "source": "customers" }
            },
            {
                "name": "Inline rows",
                "steps": [
                    {
                        "name": "Call tool \"add\"",
                        "tool": { "name": "add", "arguments": { "a": "${flow0.a}", "b": "${flow0.b}" } },
                        "phase": "test",
                        "always": false,
                        "assert": { "json": [{ "path": "$.structuredContent.sum", "equals": "${flow0.expected}" }] },
                        "source": { "file": "shared/flows.mcpr", "line": 7, "column": 3 },
                        "flow": [
                            {
                                "name": "Verify twice",
                                "callSite": { "file": "tests/math.mcpr", "line": 22, "column": 3 },
                                "prefix": "flow0"
                            },
                            {
                                "name": "Verify addition",
                                "callSite": { "file": "shared/flows.mcpr", "line": 3, "column": 3 },
                                "prefix": "flow1"
                            }
                        ]
                    }
                ],
                "id": "inline-rows",
                "logicalName": "Inline rows",
                "variables": { "flow0.a": "${row.input}", "flow0.b": 1, "flow0.expected": "${row.expected}" },
                "forEach": {
                    "rows": [
                        { "caseId": "first", "input": 2, "expected": 4 },
                        { "caseId": "second", "input": "x", "expected": null }
                    ]
                }
            },
            {
                "name": "From a sheet",
                "steps": [{ "tool": { "name": "check" } }],
                "forEach": { "file": "cases.xlsx", "sheet": "Smoke" }
            },
            {
                "name": "From a file",
                "steps": [{ "tool": { "name": "check" } }],
                "forEach": { "file": "cases.csv" }
            }
        ],
        "dataSources": {
            "customers": {
                "provider": "csv",
                "file": "customers.csv",
                "columns": {
                    "customerId": { "type": "string", "required": true },
                    "spend": { "type": "number", "required": true },
                    "tier": { "type": "string", "enum": ["gold", "silver", "bronze", 3] },
                    "joined": { "type": "date" },
                    "meta": { "type": "json" },
                    "active": { "type": "boolean" }
                },
                "join": {
                    "file": "orders.json",
                    "path": "data.orders",
                    "on": "customerId",
                    "kind": "left",
                    "prefix": "order_"
                },
                "derive": { "label": "${customerId}:${tier}", "upper": "${label}" },
                "where": {
                    "spend": { "greaterThan": 100, "lessThan": 99999.5 },
                    "tier": ["gold", "silver"],
                    "active": true,
                    "region": "EU",
                    "email": { "notEquals": "x@example.com", "matches": "@example\\.com$" },
                    "deleted": { "equals": null, "in": [null, false] }
                },
                "sample": { "count": 25, "seed": 2025 },
                "cache": true
            },
            "first": { "provider": "yaml", "file": "a.yaml", "sample": 10 },
            "firstObj": { "provider": "excel", "file": "b.xlsx", "sheet": "S", "sample": { "first": 3 } },
            "last": { "provider": "json", "file": "c.json", "sample": { "last": 3 } },
            "every": {
                "provider": "inline",
                "rows": [{ "a": 1 }, { "a": 2 }],
                "sample": { "every": 2 }
            },
            "remote": {
                "provider": "rest",
                "url": "https://data.example.com/rows",
                "path": "items",
                "headers": { "Authorization": "Bearer ${env.DATA_TOKEN}" },
                "sample": { "count": 5 }
            },
            "sheet": {
                "provider": "google-sheets",
                "spreadsheetId": "1AbC",
                "range": "Cases!A1:D20",
                "apiKey": "${env.GOOGLE_KEY}",
                "accessToken": "${env.GOOGLE_TOKEN}"
            },
            "db": {
                "provider": "sql",
                "module": "./sql-provider.mjs",
                "query": "select * from customers",
                "connection": { "url": "postgres://localhost/db" },
                "timeoutMs": 5000,
                "permissions": ["network"]
            },
            "custom": {
                "provider": "plugin",
                "module": "./rows.mjs",
                "connection": "sqlite://x",
                "command": "generate",
                "args": ["--count", "3"],
                "permissions": ["environment", "filesystem-read"],
                "unsafeLegacy": true
            }
        }
    })
}

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

// ---------------------------------------------------------------------------------------------
// Keeping the schema and the types in step.
//
// For every object in the schema that lists `properties`, a Rust value is built below with
// struct literals that set every field (no `..Default::default()`, so adding a field to a type
// breaks this file until the value here sets it). Its serialized member names must equal the
// schema's property names exactly, it must validate against that subschema, and it must
// deserialize back to the same value. A final check makes sure no object of the schema was
// left out.
// ---------------------------------------------------------------------------------------------

fn loc(line: u32) -> SourceLocation {
    SourceLocation {
        file: "a.mcpr".into(),
        line,
        column: 1,
    }
}

fn full_stdio() -> StdioTarget {
    StdioTarget {
        command: "node".into(),
        args: Some(vec!["s.js".into()]),
        cwd: Some(".".into()),
        env: Some(OrderedMap::from_iter([("A", "1".to_owned())])),
        inherit_env: Some(ir::InheritEnv::Names(vec![
            "NODE_OPTIONS".into(),
            "AWS_*".into(),
        ])),
    }
}

fn full_idp() -> OAuthIdp {
    OAuthIdp {
        id_token: "eyJ.id.token".into(),
        token_endpoint: Some("https://idp/token".into()),
        issuer: Some("https://idp".into()),
        client_id: Some("idp-client".into()),
        client_secret: Some("idp-secret".into()),
    }
}

fn full_oauth() -> OAuthSettings {
    OAuthSettings {
        grant: Some(OAuthGrant::IdentityAssertion),
        client_id: Some("id".into()),
        client_secret: Some("secret".into()),
        scope: Some("a b".into()),
        client_metadata_url: Some("https://app.example/client.json".into()),
        token_endpoint_auth: Some(TokenEndpointAuth::ClientSecretPost),
        private_key: Some("-----BEGIN PRIVATE KEY-----".into()),
        assertion: Some("eyJ.assertion".into()),
        refresh_token: Some("rt".into()),
        redirect_uri: Some("http://127.0.0.1:8976/callback".into()),
        dpop: Some(true),
        offline_access: Some(false),
        token_cache: Some(false),
        idp: Some(full_idp()),
    }
}

fn full_http() -> HttpTarget {
    HttpTarget {
        url: "https://h/mcp".into(),
        headers: Some(OrderedMap::from_iter([("X-A", "1".to_owned())])),
        token_from: Some("tok".into()),
        oauth: Some(OAuth::Settings(full_oauth())),
    }
}

fn full_assertion() -> Assertion {
    Assertion {
        path: Some("$.a".into()),
        equals: Some(json!(1)),
        not_equals: Some(json!(2)),
        exists: Some(true),
        kind: Some(JsonType::Number),
        contains: Some(json!(1)),
        not_contains: Some(json!(3)),
        length: Some(1),
        matches: Some("1".into()),
        schema: Some(Map::from_iter([("type".to_owned(), json!("number"))])),
        snapshot: Some(full_snapshot()),
        greater_than: Some(json!(0)),
        less_than: Some(json!(2)),
        at_least: Some(json!("${low}")),
        at_most: Some(json!(1.5)),
        min_length: Some(0),
        max_length: Some(1),
        source: Some(SourceLocation::new("a.mcpr", 5, 3)),
    }
}

fn full_snapshot() -> SnapshotAssertion {
    SnapshotAssertion {
        name: "n".into(),
        ignore: Some(vec!["$.t".into()]),
    }
}

fn full_error() -> ErrorExpectation {
    ErrorExpectation {
        code: Some(-32602),
        message: Some("m".into()),
        matches: Some("m".into()),
    }
}

fn full_assert() -> Assert {
    Assert {
        status: Some(Status::Error),
        error: Some(full_error()),
        max_duration_ms: Some(800),
        json: Some(JsonAssertions::List(vec![full_assertion()])),
        source: Some(loc(4)),
    }
}

fn full_export() -> Export {
    Export {
        path: "$.id".into(),
        aggregate: Some(Aggregate::Map),
        sensitive: Some(false),
    }
}

fn full_frame() -> FlowFrame {
    FlowFrame {
        name: "F".into(),
        call_site: loc(2),
        prefix: "flow0".into(),
    }
}

/// One native step of each action, every member it has set.
fn full_natives() -> Vec<NativeStep> {
    let all = NativeStep::Request(ir::RequestAction {
        method: Some("tools/call".into()),
        params: Some(json!({"name": "t"})),
        progress: Some(true),
        cancel_after_ms: Some(5),
        timeout_ms: Some(5),
    });
    let mut natives = vec![all];
    for action in [
        NativeAction::AwaitNotification,
        NativeAction::Subscribe,
        NativeAction::Unsubscribe,
        NativeAction::SetLogLevel,
        NativeAction::ListAll,
        NativeAction::TaskGet,
        NativeAction::TaskList,
        NativeAction::TaskCancel,
        NativeAction::ConfigureClient,
        NativeAction::Echo,
        NativeAction::Prompt,
        NativeAction::QueueAnswer,
        NativeAction::Check,
        NativeAction::SaveText,
        NativeAction::TaskWait,
        NativeAction::SkillsList,
        NativeAction::SkillsVerify,
        NativeAction::AppsVerify,
        NativeAction::LintClean,
        NativeAction::ToolsSnapshot,
        NativeAction::Reconnect,
    ] {
        // Every member the action has, filled in through its JSON form.
        let mut doc = serde_json::to_value(NativeStep::new(action)).unwrap();
        for (member, value) in [
            ("method", json!("notifications/x")),
            ("params", json!({"uri": "u://x"})),
            ("uri", json!("u://x")),
            ("level", json!("debug")),
            ("field", json!("tools")),
            ("taskId", json!("t1")),
            ("behavior", serde_json::to_value(full_behavior()).unwrap()),
            ("timeoutMs", json!(5)),
            ("message", json!("m")),
            ("variable", json!("v")),
            ("status", json!("completed")),
            ("ignore", json!(["MCP005"])),
            ("failOn", json!("warning")),
            ("file", json!("tools.json")),
            ("allowCompatible", json!(true)),
        ] {
            let mut probe = doc.clone();
            probe[member] = value;
            if serde_json::from_value::<NativeStep>(probe.clone()).is_ok() {
                doc = probe;
            }
        }
        let native: NativeStep = serde_json::from_value(doc).unwrap();
        assert_eq!(native.action(), action);
        natives.push(native);
    }
    natives
}

fn full_behavior() -> ClientBehavior {
    ClientBehavior {
        prepared_answers_only: Some(true),
        extensions: Some(Map::from_iter([("x".to_owned(), json!({}))])),
        roots: Some(vec![
            Root::Uri("file:///a".into()),
            Root::Named(full_root()),
        ]),
        sampling: Some(SamplingAnswer::Scripted(full_sampling())),
        elicitation: Some(ElicitationAnswer::Scripted(full_elicitation())),
    }
}

fn full_root() -> NamedRoot {
    NamedRoot {
        uri: "file:///w".into(),
        name: Some("W".into()),
    }
}

fn full_sampling() -> ScriptedSampling {
    ScriptedSampling {
        model: Some("m".into()),
        text: Some("t".into()),
        response: Some("r".into()),
    }
}

fn full_elicitation() -> ScriptedElicitation {
    ScriptedElicitation {
        action: Some("decline".into()),
        content: Some(json!({"ok": true})),
    }
}

fn full_tool() -> ToolStep {
    ToolStep {
        name: "t".into(),
        arguments: Some(Map::new()),
        positional: Some(vec![json!("1")]),
        coerce: Some(true),
        task: Some(TaskMode::Run),
    }
}

fn full_request() -> RequestStep {
    RequestStep {
        method: "ping".into(),
        params: Some(json!({})),
    }
}

fn full_set() -> SetStep {
    SetStep {
        variable: "v".into(),
        function: "trim".into(),
        arguments: Some(Map::new()),
    }
}

fn full_step(kind: StepKind) -> Step {
    Step {
        name: Some("s".into()),
        kind,
        phase: Some(Phase::Cleanup),
        always: Some(true),
        assert: Some(full_assert()),
        capture: Some(OrderedMap::from_iter([("v", "$.v".to_owned())])),
        export: Some(OrderedMap::from_iter([("e", full_export())])),
        timeout_ms: Some(1),
        fault: Some(ir::Fault {
            kind: ir::FaultKind::Delay,
            delay_ms: Some(5),
        }),
        source: Some(loc(1)),
        flow: vec![full_frame()],
    }
}

fn full_requirements() -> Requirements {
    Requirements {
        capabilities: Some(vec!["tools".into()]),
        protocol_versions: Some(vec!["2025-06-18".into()]),
    }
}

fn full_test() -> Test {
    Test {
        name: "T".into(),
        steps: vec![full_step(StepKind::Tool(full_tool()))],
        id: Some("t".into()),
        skip: Some(Skip::Flag(false)),
        server: Some("a".into()),
        depends_on: Some(vec!["u".into()]),
        requires: Some(full_requirements()),
        logical_name: Some("T".into()),
        variables: Some(Map::new()),
        data: Some(Map::new()),
        for_each: Some(ForEach::Source(ForEachSource { source: "s".into() })),
        continue_on_failure: Some(true),
        isolated: Some(true),
        retries: Some(2),
    }
}

fn full_column() -> Column {
    Column {
        kind: Some(ColumnType::Date),
        required: Some(true),
        allowed: Some(vec![json!("2025-01-01")]),
    }
}

fn full_operators() -> WhereOperators {
    WhereOperators {
        equals: Some(json!(1)),
        not_equals: Some(json!(2)),
        one_of: Some(vec![json!(1)]),
        matches: Some("x".into()),
        greater_than: Some(0.into()),
        less_than: Some(9.into()),
    }
}

/// Every member of a source; `join` is set only when `with_join` (a join carries its own).
fn full_source(with_join: bool, join_fields: bool) -> DataSource {
    DataSource {
        provider: Some(Provider::Csv),
        file: Some("a.csv".into()),
        url: Some("https://h/rows".into()),
        sheet: Some("S".into()),
        path: Some("items".into()),
        headers: Some(OrderedMap::from_iter([("A", "1".to_owned())])),
        rows: Some(vec![Map::new()]),
        columns: Some(OrderedMap::from_iter([("c", full_column())])),
        join: with_join.then(|| Box::new(full_source(false, true))),
        on: join_fields.then(|| "id".into()),
        kind: join_fields.then_some(JoinKind::Inner),
        prefix: join_fields.then(|| "j_".into()),
        derive: Some(OrderedMap::from_iter([("d", "${c}".to_owned())])),
        filter: Some(OrderedMap::from_iter([(
            "c",
            WhereCondition::Operators(full_operators()),
        )])),
        sample: Some(Sample::Random(SampleRandom {
            count: 2,
            seed: Some(1),
        })),
        cache: Some(true),
        spreadsheet_id: Some("id".into()),
        range: Some("A1".into()),
        api_key: Some("k".into()),
        access_token: Some("t".into()),
        module: Some("m.mjs".into()),
        query: Some("q".into()),
        connection: Some(json!("c")),
        command: Some("cmd".into()),
        args: Some(vec!["a".into()]),
        timeout_ms: Some(5),
        permissions: Some(vec![Permission::Network]),
        unsafe_legacy: Some(false),
    }
}

fn full_suite() -> Suite {
    Suite {
        version: FormatVersion,
        ir_version: Some(IR_VERSION),
        name: Some("S".into()),
        target: Some(Target::Stdio(full_stdio())),
        targets: Some(OrderedMap::from_iter([
            ("a", Target::Stdio(full_stdio())),
            ("b", Target::StreamableHttp(full_http())),
        ])),
        servers: Some(OrderedMap::from_iter([
            ("a", Target::Stdio(full_stdio())),
            ("b", Target::Sse(full_http())),
        ])),
        defaults: Some(full_defaults()),
        budgets: Some(vec![full_budget()]),
        redact: Some(vec!["secret".into()]),
        minimum_coverage: Some(80.0),
        snapshots: Some(full_snapshots()),
        client: Some(ClientBehavior::default()),
        tests: vec![full_test()],
        extensions: Some(full_extensions()),
        data_sources: Some(OrderedMap::from_iter([("s", full_source(true, false))])),
    }
}

fn full_defaults() -> Defaults {
    Defaults {
        timeout_ms: Some(1),
        shutdown_grace_ms: Some(0),
        retries: Some(1),
        session: Some(ir::SessionMode::Shared),
    }
}

fn full_budget() -> Budget {
    Budget {
        test: "*".into(),
        percentile: 95,
        max_ms: 500,
        window: Some(20),
    }
}

fn full_snapshots() -> Snapshots {
    Snapshots {
        file: Some("s.json".into()),
        ignore: Some(vec!["$.t".into()]),
    }
}

fn full_extensions() -> Extensions {
    Extensions {
        functions: Some(vec!["f.mjs".into()]),
        permissions: Some(vec![Permission::Environment, Permission::FilesystemRead]),
        allowlist: Some(vec!["f.mjs".into()]),
        unsafe_legacy: Some(true),
    }
}

/// The property names an object subschema lists, following `$ref` to shared members.
fn listed_properties(schema: &Value, pointer: &str) -> BTreeSet<String> {
    let node = schema
        .pointer(pointer)
        .unwrap_or_else(|| panic!("{pointer} exists in the schema"));
    let mut names: BTreeSet<String> = node
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    if let Some(reference) = node.get("$ref").and_then(Value::as_str) {
        let target = reference.trim_start_matches('#');
        names.extend(listed_properties(schema, target));
    }
    names
}

fn member_names(value: &Value) -> BTreeSet<String> {
    value
        .as_object()
        .expect("an object")
        .keys()
        .cloned()
        .collect()
}

/// Checks one Rust value against the subschema at `pointer` (see the comment above).
fn check_in_step<T>(checked: &mut BTreeSet<String>, pointer: &str, values: &[T])
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let schema = schema();
    let validator = validator_at(pointer);
    let mut written = BTreeSet::new();
    for value in values {
        let json = serde_json::to_value(value).unwrap();
        assert_valid(&validator, &json);
        let back: T = serde_json::from_value(json.clone())
            .unwrap_or_else(|e| panic!("{pointer}: does not read back: {e}"));
        assert_eq!(&back, value, "{pointer}: round trip");
        written.extend(member_names(&json));
    }
    assert_eq!(
        written,
        listed_properties(&schema, pointer),
        "{pointer}: members written by the Rust type vs properties listed in the schema"
    );
    checked.insert(pointer.to_owned());
}

/// Pointers of every subschema in the document that lists `properties`.
fn object_schemas(node: &Value, pointer: String, found: &mut BTreeSet<String>) {
    match node {
        Value::Object(map) => {
            if map.get("properties").is_some_and(Value::is_object) {
                found.insert(pointer.clone());
            }
            for (key, child) in map {
                // The condition of an `if`/`then` only names the member it tests.
                if key == "if" {
                    continue;
                }
                // The entries of a `properties` map are subschemas; their names are data.
                let escaped = key.replace('~', "~0").replace('/', "~1");
                object_schemas(child, format!("{pointer}/{escaped}"), found);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                object_schemas(child, format!("{pointer}/{i}"), found);
            }
        }
        _ => {}
    }
}

#[test]
fn schema_properties_and_type_members_are_the_same() {
    let mut checked = BTreeSet::new();
    let c = &mut checked;
    check_in_step(c, "", &[full_suite()]);
    check_in_step(c, "/properties/defaults", &[full_defaults()]);
    check_in_step(c, "/properties/snapshots", &[full_snapshots()]);
    check_in_step(c, "/properties/extensions", &[full_extensions()]);
    check_in_step(c, "/$defs/budget", &[full_budget()]);
    check_in_step(c, "/$defs/stdioTarget", &[Target::Stdio(full_stdio())]);
    check_in_step(
        c,
        "/$defs/httpTarget",
        &[
            Target::StreamableHttp(full_http()),
            Target::Sse(full_http()),
        ],
    );
    check_in_step(
        c,
        "/$defs/httpTarget/properties/oauth/oneOf/1",
        &[full_oauth()],
    );
    check_in_step(
        c,
        "/$defs/httpTarget/properties/oauth/oneOf/1/properties/idp",
        &[full_idp()],
    );
    check_in_step(c, "/$defs/test", &[full_test()]);
    check_in_step(c, "/$defs/test/properties/requires", &[full_requirements()]);
    check_in_step(
        c,
        "/$defs/step/properties/fault",
        &[ir::Fault {
            kind: ir::FaultKind::Delay,
            delay_ms: Some(5),
        }],
    );
    check_in_step(
        c,
        "/$defs/forEach/oneOf/0",
        &[ForEach::Rows(ForEachRows {
            rows: vec![Map::from_iter([("a".to_owned(), json!(1))])],
        })],
    );
    check_in_step(
        c,
        "/$defs/forEach/oneOf/1",
        &[ForEach::Source(ForEachSource { source: "s".into() })],
    );
    check_in_step(
        c,
        "/$defs/forEach/oneOf/2",
        &[ForEach::File(ForEachFile {
            file: "a.xlsx".into(),
            sheet: Some("S".into()),
        })],
    );
    check_in_step(
        c,
        "/$defs/step",
        &[
            full_step(StepKind::Tool(full_tool())),
            full_step(StepKind::Request(full_request())),
            full_step(StepKind::Set(full_set())),
            full_step(StepKind::native(full_natives().remove(0))),
        ],
    );
    check_in_step(c, "/$defs/step/properties/tool", &[full_tool()]);
    check_in_step(c, "/$defs/step/properties/request", &[full_request()]);
    check_in_step(c, "/$defs/step/properties/set", &[full_set()]);
    check_in_step(
        c,
        "/$defs/step/properties/export/additionalProperties",
        &[full_export()],
    );
    check_in_step(c, "/$defs/native", &full_natives());
    // Each action's own members: the `then` of its condition.
    for (i, native) in full_natives().into_iter().enumerate() {
        let condition = schema()["$defs"]["native"]["allOf"][i]["if"].clone();
        assert_eq!(
            condition["properties"]["action"]["const"],
            serde_json::to_value(native.action()).unwrap(),
            "the conditions follow the order of the actions"
        );
        check_in_step(c, &format!("/$defs/native/allOf/{i}/then"), &[native]);
    }
    check_in_step(c, "/$defs/assert", &[full_assert()]);
    check_in_step(c, "/$defs/assert/properties/error", &[full_error()]);
    check_in_step(c, "/$defs/assertion", &[full_assertion()]);
    check_in_step(
        c,
        "/$defs/assertion/properties/snapshot",
        &[full_snapshot()],
    );
    check_in_step(c, "/$defs/sourceLocation", &[loc(1)]);
    check_in_step(c, "/$defs/flowFrame", &[full_frame()]);
    check_in_step(c, "/$defs/sourceFields", &[full_source(true, false)]);
    check_in_step(c, "/$defs/joinSource", &[full_source(true, true)]);
    check_in_step(
        c,
        "/$defs/sourceFields/properties/columns/additionalProperties",
        &[full_column()],
    );
    check_in_step(c, "/$defs/whereCondition/oneOf/2", &[full_operators()]);
    check_in_step(
        c,
        "/$defs/sample/oneOf/1",
        &[Sample::First(SampleFirst { first: 1 })],
    );
    check_in_step(
        c,
        "/$defs/sample/oneOf/2",
        &[Sample::Last(SampleLast { last: 1 })],
    );
    check_in_step(
        c,
        "/$defs/sample/oneOf/3",
        &[Sample::Every(SampleEvery { every: 1 })],
    );
    check_in_step(
        c,
        "/$defs/sample/oneOf/4",
        &[Sample::Random(SampleRandom {
            count: 1,
            seed: Some(0),
        })],
    );
    check_in_step(c, "/$defs/clientBehavior", &[full_behavior()]);
    check_in_step(c, "/$defs/root/oneOf/1", &[full_root()]);
    check_in_step(
        c,
        "/$defs/clientBehavior/properties/sampling/oneOf/1",
        &[full_sampling()],
    );
    check_in_step(
        c,
        "/$defs/clientBehavior/properties/elicitation/oneOf/1",
        &[full_elicitation()],
    );

    let mut all = BTreeSet::new();
    object_schemas(&schema(), String::new(), &mut all);
    // `dataSource` only refers to `sourceFields`; a data source with its join is checked there.
    check_in_step(c, "/$defs/dataSource", &[full_source(true, false)]);
    let unchecked: Vec<&String> = all.difference(&checked).collect();
    assert!(
        unchecked.is_empty(),
        "objects of the schema not compared with a Rust type: {unchecked:?}"
    );
}

#[test]
fn the_join_fields_are_only_valid_inside_a_join() {
    let mut source = serde_json::to_value(full_source(false, false)).unwrap();
    source["on"] = json!("id");
    assert!(!validator_at("/$defs/dataSource").is_valid(&source));
    assert!(validator_at("/$defs/joinSource").is_valid(&source));
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

#[test]
fn a_step_kind_alone_is_written_as_the_member_it_has_inside_a_step() {
    let kind = StepKind::Set(full_set());
    let alone = serde_json::to_value(&kind).unwrap();
    let inside = serde_json::to_value(Step::new(kind.clone())).unwrap();
    assert_eq!(alone, inside);
    assert_eq!(serde_json::from_value::<StepKind>(alone).unwrap(), kind);
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
