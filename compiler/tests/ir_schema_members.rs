//! The IR schema and the Rust types stay in step.
//!
//! For every object in the schema that lists `properties`, a Rust value is built below with
//! struct literals that set every field (no `..Default::default()`, so adding a field to a type
//! breaks this file until the value here sets it). Its serialized member names must equal the
//! schema's property names exactly, it must validate against that subschema, and it must
//! deserialize back to the same value. A final check makes sure no object of the schema was
//! left out.

mod ir_schema_support;

use ir_schema_support::*;
use mcpr_compiler::ir::{
    self, Aggregate, Assert, Assertion, Budget, ClientBehavior, Column, ColumnType, DataSource,
    Defaults, ElicitationAnswer, ErrorExpectation, Export, Extensions, FlowFrame, ForEach,
    ForEachFile, ForEachRows, ForEachSource, FormatVersion, HttpTarget, IR_VERSION, JoinKind,
    JsonAssertions, JsonType, NamedRoot, NativeAction, NativeStep, OAuth, OAuthGrant, OAuthIdp,
    OAuthSettings, OrderedMap, Permission, Phase, Provider, RequestStep, Requirements, Root,
    Sample, SampleEvery, SampleFirst, SampleLast, SampleRandom, SamplingAnswer,
    ScriptedElicitation, ScriptedSampling, SetStep, Skip, SnapshotAssertion, Snapshots,
    SourceLocation, Status, StdioTarget, Step, StepKind, Suite, Target, TaskMode, Test,
    TokenEndpointAuth, ToolStep, WhereCondition, WhereOperators,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

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
    for action in NativeAction::ALL
        .into_iter()
        .filter(|a| *a != NativeAction::Request)
    {
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
        assert: Some(Box::new(full_assert())),
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
fn a_step_kind_alone_is_written_as_the_member_it_has_inside_a_step() {
    let kind = StepKind::Set(full_set());
    let alone = serde_json::to_value(&kind).unwrap();
    let inside = serde_json::to_value(Step::new(kind.clone())).unwrap();
    assert_eq!(alone, inside);
    assert_eq!(serde_json::from_value::<StepKind>(alone).unwrap(), kind);
}
