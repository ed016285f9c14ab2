//! What the IR schema tests share: the schema, validators for it and its parts, the
//! round trip of a document through the types, and example suites.
#![allow(dead_code)]

use jsonschema::Validator;
use mcpr_compiler::ir::{SCHEMA_ID, Suite};
use serde_json::{Value, json};
use std::collections::BTreeSet;

pub const SCHEMA_TEXT: &str = include_str!("../../../docs/schema/suite.schema.json");

pub fn schema() -> Value {
    serde_json::from_str(SCHEMA_TEXT).expect("the schema file is JSON")
}

pub fn validator() -> Validator {
    jsonschema::draft202012::new(&schema()).expect("the schema compiles")
}

/// A validator for one subschema of the suite schema, addressed by JSON pointer.
pub fn validator_at(pointer: &str) -> Validator {
    let wrapper = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("{SCHEMA_ID}#{pointer}"),
        "$defs": { "suite": schema() },
    });
    jsonschema::draft202012::new(&wrapper).expect("the wrapped schema compiles")
}

/// Instance paths of every schema error, deduplicated and sorted.
pub fn error_paths(validator: &Validator, instance: &Value) -> Vec<String> {
    let paths: BTreeSet<String> = validator
        .iter_errors(instance)
        .map(|e| e.instance_path().as_str().to_owned())
        .collect();
    paths.into_iter().collect()
}

pub fn assert_valid(validator: &Validator, instance: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path().as_str()))
        .collect();
    assert!(errors.is_empty(), "schema errors: {errors:#?}");
}

/// Deserializes `document` into a `Suite`, checks that it serializes back to the same text
/// (same members, same order) and that it validates against the schema.
pub fn round_trip(document: &Value) -> Suite {
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

pub fn plain_suite() -> Value {
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

pub fn http_parity_suite() -> Value {
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

pub fn composition_suite() -> Value {
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

pub fn mcpr_additions_suite() -> Value {
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
