//! `oauth:` in `.mcpr` server and target options, on the target, a named server and a
//! compare target: lowered to the IR's settings (keys with spaces, a scope list, switches),
//! valid against the schema, and a wrong setting named.

use mcpr_compiler::SourceMap;
use mcpr_compiler::diagnostics::render;
use mcpr_compiler::ir::SCHEMA_TEXT;
use mcpr_compiler::lower::{self, MemoryLoader, Options};
use mcpr_compiler::source::SourceFile;
use serde_json::{Value, json};

const SUITE: &str = include_str!("oauth_settings.mcpr");

fn compile(text: &str) -> (SourceMap, lower::Compiled) {
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new("oauth.mcpr", text.to_string()));
    let compiled = lower::compile(&mut map, id, &MemoryLoader::new(), &Options::default());
    (map, compiled)
}

#[test]
fn oauth_on_every_kind_of_target_lowers_to_the_ir_settings() {
    let (map, compiled) = compile(SUITE);
    assert!(
        compiled.diagnostics.is_empty(),
        "{}",
        render::short(&compiled.diagnostics, &map)
    );
    let ir = serde_json::to_value(compiled.suite.unwrap()).unwrap();
    assert_eq!(
        ir["target"]["oauth"],
        json!({
            "grant": "client_credentials",
            "clientId": "ci-bot",
            "clientSecret": "${env.CI_BOT_SECRET}",
            "scope": "mcp admin",
            "tokenEndpointAuth": "client_secret_post",
            "tokenCache": false,
        })
    );
    assert_eq!(ir["servers"]["orders"]["oauth"], json!(true));
    assert_eq!(
        ir["servers"]["billing"]["oauth"],
        json!({"clientMetadataUrl": "https://ci.example.com/mcpr-client.json", "offlineAccess": false})
    );
    assert_eq!(
        ir["targets"]["QA"]["oauth"],
        json!({"clientId": "mcpr-qa", "refreshToken": "${env.QA_REFRESH_TOKEN}"})
    );
    let schema: Value = serde_json::from_str(SCHEMA_TEXT).unwrap();
    let v = jsonschema::draft202012::new(&schema).unwrap();
    let errors: Vec<String> = v.iter_errors(&ir).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn an_unknown_oauth_setting_is_named() {
    let text = SUITE.replace("token cache: false", "token cash: false");
    let (map, compiled) = compile(&text);
    let shown = render::short(&compiled.diagnostics, &map);
    assert!(shown.contains("MCPLANG417"), "{shown}");
    assert!(shown.contains("unknown setting `token cash`"), "{shown}");
}
