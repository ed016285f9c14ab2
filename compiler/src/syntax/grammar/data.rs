//! Rules of the phrases of a phrase-mode `Data source:` block.

use super::super::token::Tok;
use super::super::tree::*;
use super::atoms::*;
use super::{Extra, Lab, P};
use chumsky::prelude::*;

pub(crate) fn from_file<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    let provider = select! {
        Tok::Word(w) if ["csv", "json", "yaml", "excel"].iter().any(|k| w.eq_ignore_ascii_case(k)) => w
    }
    .map_with(|w, e| Text::raw(&w.to_ascii_lowercase(), span(e.span())))
    .lab::<E>("CSV, JSON, YAML, Excel or REST");
    kw("from")
        .ignore_then(provider)
        .then(quoted())
        .then(kw("sheet").ignore_then(quoted()).or_not())
        .then(kw("at").ignore_then(quoted()).or_not())
        .then_ignore(end())
        .map(|(((provider, file), sheet), at)| Stmt::From {
            provider,
            file,
            sheet,
            at,
        })
        .boxed()
}

pub(crate) fn from_rest<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("from rest")
        .ignore_then(quoted())
        .then(kw("at").ignore_then(quoted()).or_not())
        .then_ignore(end())
        .map(|(url, at)| Stmt::FromRest { url, at })
        .boxed()
}

pub(crate) fn column<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    kw("column")
        .ignore_then(quoted())
        .then_ignore(kw("is"))
        .then(value_type())
        .then(kw("required").or_not().map(|r| r.is_some()))
        .then(phrase("one of").ignore_then(rest(src)).or_not())
        .then_ignore(end())
        .map(|(((name, kind), required), one_of)| Stmt::Column {
            name,
            kind,
            required,
            one_of: one_of.map(|t| split_list_raw(&t)).unwrap_or_default(),
        })
        .boxed()
}

pub(crate) fn derive<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    kw("derive")
        .ignore_then(quoted())
        .then_ignore(kw("as"))
        .then(unquoted_rest(src))
        .map(|(name, template)| Stmt::Derive { name, template })
        .boxed()
}

pub(crate) fn keep_rows<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    let compare = choice((
        kw("equals").to(Compare::Equals),
        phrase("does not equal").to(Compare::NotEquals),
        phrase("is one of").to(Compare::OneOf),
        kw("matches").to(Compare::Matches),
        phrase("is greater than").to(Compare::GreaterThan),
        phrase("is less than").to(Compare::LessThan),
    ));
    phrase("keep rows where")
        .ignore_then(quoted())
        .then(compare)
        .then(rest(src))
        .map(|((column, compare), value)| Stmt::KeepRowsWhere {
            column,
            compare,
            value,
        })
        .boxed()
}

pub(crate) fn sample<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    let rows = choice((kw("rows"), kw("row")));
    let mode = choice((
        kw("first").to(SampleMode::First),
        kw("last").to(SampleMode::Last),
        kw("every").to(SampleMode::Every),
    ));
    let by_mode = mode
        .then(number())
        .then_ignore(rows.clone())
        .then_ignore(end())
        .map(|(mode, count)| Stmt::Sample { mode, count });
    let seeded = number()
        .then_ignore(rows)
        .then_ignore(phrase("with seed"))
        .then(number())
        .then_ignore(end())
        .map(|(count, seed)| Stmt::SampleSeeded { count, seed });
    kw("sample").ignore_then(choice((by_mode, seeded))).boxed()
}

pub(crate) fn cache<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrases(&["cache this source", "cache source"])
        .then_ignore(end())
        .to(Stmt::Cache)
        .boxed()
}
