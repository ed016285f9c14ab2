//! Rules of the statements inside tests and flows: actions, expectations and modifiers.

use super::super::token::Tok;
use super::super::tree::*;
use super::atoms::*;
use super::{Extra, In, Lab, P};
use chumsky::prelude::*;

pub(crate) fn call_tool_lead<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, (), E> {
    phrases(&[
        "call tool",
        "call the tool",
        "when i call the tool",
        "when i call tool",
    ])
}

pub(crate) fn call_tool_progress<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    call_tool_lead()
        .ignore_then(quoted())
        .then_ignore(phrase("with progress"))
        .then(phrase("and cancel after").ignore_then(duration()).or_not())
        .then(with_opt())
        .then_ignore(end())
        .map(|((name, cancel_after), with)| Stmt::CallToolWithProgress {
            name,
            cancel_after,
            with,
        })
        .boxed()
}

pub(crate) fn call_tool_values<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    call_tool_lead()
        .ignore_then(quoted())
        .then_ignore(phrase("with values"))
        .then(rest(src))
        .map(|(name, values)| Stmt::CallToolWithValues { name, values })
        .boxed()
}

pub(crate) fn call_tool<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    call_tool_lead()
        .ignore_then(quoted())
        .then(with_opt())
        .then_ignore(end())
        .map(|(name, with)| Stmt::CallTool { name, with })
        .boxed()
}

pub(crate) fn read_resource<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrases(&[
        "read resource",
        "read the resource",
        "when i read the resource",
        "when i read resource",
    ])
    .ignore_then(quoted())
    .then_ignore(end())
    .map(|uri| Stmt::ReadResource { uri })
    .boxed()
}

pub(crate) fn get_prompt<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrases(&[
        "get prompt",
        "get the prompt",
        "when i get the prompt",
        "when i get prompt",
    ])
    .ignore_then(quoted())
    .then(with_opt())
    .then_ignore(end())
    .map(|(name, with)| Stmt::GetPrompt { name, with })
    .boxed()
}

pub(crate) fn send<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrases(&["send", "when i send"])
        .ignore_then(quoted())
        .then(with_opt())
        .then_ignore(end())
        .map(|(method, with)| Stmt::Send { method, with })
        .boxed()
}

pub(crate) fn subscribe<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("subscribe to resource")
        .ignore_then(quoted())
        .then_ignore(end())
        .map(|uri| Stmt::Subscribe { uri })
        .boxed()
}

pub(crate) fn unsubscribe<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("unsubscribe from resource")
        .ignore_then(quoted())
        .then_ignore(end())
        .map(|uri| Stmt::Unsubscribe { uri })
        .boxed()
}

pub(crate) fn wait_for_notification<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    // `where "data.status" equals "done" and "data.n" equals 3`: one token per value, so
    // `within` can follow.
    let value = choice((quoted(), word()));
    let condition = quoted().then_ignore(kw("equals")).then(value);
    let conditions = kw("where").ignore_then(
        condition
            .separated_by(kw("and"))
            .at_least(1)
            .collect::<Vec<_>>(),
    );
    phrase("wait for notification")
        .ignore_then(quoted())
        .then(conditions.or_not())
        .then(kw("within").ignore_then(duration()).or_not())
        .then_ignore(end())
        .map(|((method, filter), within)| Stmt::WaitForNotification {
            method,
            filter: filter.unwrap_or_default(),
            within,
        })
        .boxed()
}

pub(crate) fn wait_up_to<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("wait up to")
        .ignore_then(duration())
        .then_ignore(end())
        .map(|duration| Stmt::WaitUpTo { duration })
        .boxed()
}

pub(crate) fn fault<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    choice((
        phrase("drop the response").to(FaultPhrase::Drop),
        phrase("delay the response by")
            .ignore_then(duration())
            .map(FaultPhrase::Delay),
        phrase("disconnect after the request").to(FaultPhrase::Disconnect),
        phrase("duplicate the response").to(FaultPhrase::Duplicate),
        phrase("corrupt the response").to(FaultPhrase::Corrupt),
    ))
    .then_ignore(end())
    .map(|fault| Stmt::Fault { fault })
    .boxed()
}

pub(crate) fn set_log_level<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    phrase("set log level to")
        .ignore_then(unquoted_rest(src))
        .map(|level| Stmt::SetLogLevel { level })
        .boxed()
}

pub(crate) fn set_using<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    kw("set")
        .ignore_then(quoted())
        .then_ignore(kw("using"))
        .then(quoted())
        .then(with_opt())
        .then_ignore(end())
        .map(|((variable, function), with)| Stmt::SetUsing {
            variable,
            function,
            with,
        })
        .boxed()
}

pub(crate) fn list_all<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("list all")
        .ignore_then(choice((
            phrase("resource templates").to(ListKind::ResourceTemplates),
            kw("tools").to(ListKind::Tools),
            kw("resources").to(ListKind::Resources),
            kw("prompts").to(ListKind::Prompts),
        )))
        .then_ignore(end())
        .map(|what| Stmt::ListAll { what })
        .boxed()
}

pub(crate) fn list_tasks<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("list tasks")
        .then_ignore(end())
        .to(Stmt::ListTasks)
        .boxed()
}

pub(crate) fn reconnect<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    kw("reconnect")
        .then_ignore(end())
        .to(Stmt::Reconnect)
        .boxed()
}

pub(crate) fn get_task<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("get task")
        .ignore_then(quoted())
        .then_ignore(end())
        .map(|task| Stmt::GetTask { task })
        .boxed()
}

pub(crate) fn cancel_task<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("cancel task")
        .ignore_then(quoted())
        .then_ignore(end())
        .map(|task| Stmt::CancelTask { task })
        .boxed()
}

pub(crate) fn respond_elicitation<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("when the server asks for input")
        .ignore_then(comma())
        .ignore_then(kw("respond"))
        .ignore_then(quoted())
        .then(with_opt())
        .then_ignore(end())
        .map(|(action, with)| Stmt::RespondToElicitation { action, with })
        .boxed()
}

pub(crate) fn respond_sampling<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("when the server requests sampling")
        .ignore_then(comma())
        .ignore_then(kw("respond"))
        .ignore_then(quoted())
        .then_ignore(end())
        .map(|text| Stmt::RespondToSampling { text })
        .boxed()
}

pub(crate) fn use_flow<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("use flow")
        .ignore_then(quoted())
        .then(with_opt())
        .then_ignore(end())
        .map(|(name, with)| Stmt::UseFlow { name, with })
        .boxed()
}

pub(crate) fn run_step<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("run step with")
        .ignore_then(colon())
        .then_ignore(end())
        .to(Stmt::RunStep)
        .boxed()
}

pub(crate) fn for_each_row<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    let inline = colon().then_ignore(end()).to(Stmt::ForEachRow);
    let file = kw("in")
        .ignore_then(quoted())
        .then(phrase("from sheet").ignore_then(quoted()).or_not())
        .then_ignore(end())
        .map(|(file, sheet)| Stmt::ForEachRowIn { file, sheet });
    let source = kw("from")
        .ignore_then(quoted())
        .then_ignore(end())
        .map(|source| Stmt::ForEachRowFrom { source });
    phrase("for each row")
        .ignore_then(choice((inline, file, source)))
        .boxed()
}

pub(crate) fn expect_lead<'a, 's: 'a, E: Extra<'a, 's>>()
-> impl Parser<'a, In<'a, 's>, (), E> + Clone + 'a {
    choice((kw("expect"), kw("then"))).then_ignore(kw("the").or_not())
}

pub(crate) fn expect_success<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    expect_lead()
        .ignore_then(kw("it").or_not())
        .ignore_then(choice((kw("succeeds"), kw("succeed"))))
        .then_ignore(end())
        .to(Stmt::ExpectSuccess)
        .boxed()
}

pub(crate) fn expect_error<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    expect_lead()
        .ignore_then(choice((kw("an"), kw("a"))).or_not())
        .ignore_then(kw("error"))
        .then_ignore(end())
        .to(Stmt::ExpectError)
        .boxed()
}

pub(crate) fn expect_error_code<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    expect_lead()
        .ignore_then(phrase("error code"))
        .ignore_then(number())
        .then_ignore(end())
        .map(|code| Stmt::ExpectErrorCode { code })
        .boxed()
}

pub(crate) fn expect_error_message<'a, 's: 'a, E: Extra<'a, 's>>(
    src: &'s str,
) -> P<'a, 's, Stmt, E> {
    expect_lead()
        .ignore_then(phrase("error message"))
        .ignore_then(choice((
            kw("equals").to(Compare::Equals),
            kw("contains").to(Compare::Contains),
            kw("matches").to(Compare::Matches),
        )))
        .then(unquoted_rest(src))
        .map(|(compare, value)| Stmt::ExpectErrorMessage { compare, value })
        .boxed()
}

pub(crate) fn expect_finish<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    expect_lead()
        .ignore_then(phrase("call to finish within"))
        .ignore_then(duration())
        .then_ignore(end())
        .map(|duration| Stmt::ExpectFinishWithin { duration })
        .boxed()
}

pub(crate) fn expect_lint_clean<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    // Bare, the statement fails on warnings and errors (as seed 002's `assert_lint_clean`);
    // `only errors` lets warnings pass, `including info` fails on info too.
    let including = choice((
        kw("including").ignore_then(choice((
            kw("warnings").to(LintLevel::Warning),
            kw("info").to(LintLevel::Info),
        ))),
        kw("only").ignore_then(kw("errors")).to(LintLevel::Error),
    ));
    let ignoring = kw("ignoring")
        .ignore_then(rest(src))
        .map(|t| split_list(&t));
    expect_lead()
        .ignore_then(phrase("server is lint clean"))
        .ignore_then(including.or_not())
        .then(ignoring.or_not())
        .then_ignore(end())
        .map(|(including, ignoring)| Stmt::ExpectLintClean {
            including,
            ignoring: ignoring.unwrap_or_default(),
        })
        .boxed()
}

pub(crate) fn expect_tools_snapshot<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    expect_lead()
        .ignore_then(phrase("tools match snapshot"))
        .ignore_then(quoted())
        .then(phrase("allowing compatible changes").or_not())
        .then_ignore(end())
        .map(|(file, allow)| Stmt::ExpectToolsSnapshot {
            file,
            allow_compatible: allow.is_some(),
        })
        .boxed()
}

pub(crate) fn expect_path<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    let not_equal = phrase("does not equal")
        .ignore_then(rest(src))
        .map(|v| (Compare::NotEquals, v));
    let not_contain = phrase("does not contain")
        .ignore_then(rest(src))
        .map(|v| (Compare::NotContains, v));
    let equals = kw("equals")
        .ignore_then(rest(src))
        .map(|v| (Compare::Equals, v));
    let contains = kw("contains")
        .ignore_then(rest(src))
        .map(|v| (Compare::Contains, v));
    // `is` + a comparison phrase; the words after `is` are otherwise the value (`is 5`).
    let is_then = |words: &'static str, compare: Compare| {
        kw("is")
            .ignore_then(phrase(words))
            .ignore_then(rest(src))
            .map(move |v| (compare, v))
    };
    // `is empty` / `is not empty`: the value is the phrase itself (where a failure points).
    let is_alone = |words: &'static str, compare: Compare| {
        kw("is")
            .ignore_then(phrase(words).to_span())
            .then_ignore(end())
            .map(move |sp: SimpleSpan| (compare, Text::raw(words, span(sp))))
    };
    let is_value = kw("is")
        .ignore_then(rest(src))
        .map(|v| (Compare::Equals, v));
    let value = choice((
        not_equal,
        not_contain,
        equals,
        contains,
        is_then("greater than", Compare::GreaterThan),
        is_then("more than", Compare::GreaterThan),
        is_then("less than", Compare::LessThan),
        is_then("fewer than", Compare::LessThan),
        is_then("at least", Compare::AtLeast),
        is_then("at most", Compare::AtMost),
        is_then("between", Compare::Between),
        is_then("equal to", Compare::Equals),
        is_then("one of", Compare::OneOf),
        is_alone("empty", Compare::Empty),
        is_alone("not empty", Compare::NotEmpty),
        is_then("not", Compare::NotEquals),
        is_value,
    ));

    let is_type = kw("is")
        .ignore_then(choice((kw("an"), kw("a"))))
        .ignore_then(value_type())
        .then_ignore(end());
    let exists =
        choice((kw("exists").to(false), phrase("does not exist").to(true))).then_ignore(end());
    let noun = select! {
        Tok::Word(w) if ["item", "items", "result", "results", "entry", "entries"]
            .iter().any(|k| w.eq_ignore_ascii_case(k)) => w
    }
    .map_with(|w, e| Text::raw(w, span(e.span())))
    .lab::<E>("`items`");
    let length = kw("has")
        .ignore_then(number())
        .then(noun)
        .then_ignore(end());
    let schema = phrase("matches schema")
        .then_ignore(colon())
        .then_ignore(end());
    let ignoring = kw("ignoring")
        .ignore_then(rest(src))
        .map(|t| split_list(&t));
    let snapshot = phrase("matches snapshot")
        .ignore_then(quoted())
        .then(ignoring.or_not())
        .then_ignore(end());
    let regex = kw("matches").ignore_then(unquoted_rest(src));

    expect_lead()
        .ignore_then(quoted())
        .then(choice((
            is_type.map(Tail::Type),
            exists.map(Tail::Exists),
            length.map(|(n, noun)| Tail::Length(n, noun)),
            schema.to(Tail::Schema),
            snapshot.map(|(name, ign)| Tail::Snapshot(name, ign.unwrap_or_default())),
            regex.map(|r| Tail::Value(Compare::Matches, r)),
            value.map(|(c, v)| Tail::Value(c, v)),
        )))
        .map(|(path, tail)| match tail {
            Tail::Type(kind) => Stmt::ExpectType { path, kind },
            Tail::Exists(absent) => Stmt::ExpectExists { path, absent },
            Tail::Length(count, noun) => Stmt::ExpectLength { path, count, noun },
            Tail::Schema => Stmt::ExpectMatchesSchema { path },
            Tail::Snapshot(name, ignoring) => Stmt::ExpectSnapshot {
                path,
                name,
                ignoring,
            },
            Tail::Value(compare, value) => Stmt::ExpectValue {
                path,
                compare,
                value,
            },
        })
        .boxed()
}

/// What follows the path of an `Expect "path" …` line.
#[derive(Clone)]
enum Tail {
    Type(ValueType),
    /// `exists`, or `does not exist` (true).
    Exists(bool),
    Length(Number, Text),
    Schema,
    Snapshot(Text, Vec<Text>),
    Value(Compare, Text),
}

pub(crate) fn save<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    choice((kw("save"), kw("remember")))
        .ignore_then(quoted())
        .then_ignore(kw("as"))
        .then(quoted())
        .then_ignore(end())
        .map(|(path, variable)| Stmt::Save { path, variable })
        .boxed()
}

pub(crate) fn export<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    let aggregate = kw("collecting").ignore_then(kw("a")).ignore_then(choice((
        kw("list").to(Aggregate::List),
        kw("map").to(Aggregate::Map),
    )));
    kw("export")
        .ignore_then(quoted())
        .then_ignore(kw("as"))
        .then(quoted())
        .then(aggregate.or_not())
        .then(kw("sensitive").or_not().map(|s| s.is_some()))
        .then_ignore(end())
        .map(|(((path, name), aggregate), sensitive)| Stmt::Export {
            path,
            name,
            aggregate,
            sensitive,
        })
        .boxed()
}
