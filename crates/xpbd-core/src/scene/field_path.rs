//! Where a TOML parse error is: the line and field path (`body[1].material.youngs`) of the key or value
//! at the error's offset, with serde's type names turned into words.

use crate::Error;
use std::path::Path;
use toml_edit::{ImDocument, Item, TableLike, Value};

/// `e`, met parsing `text` read from `path`, as one line: `path:line: field.path: message`. A value
/// that is not valid TOML (an integer past 2⁶³) is located by parsing the text with `0` in its place.
pub fn located(text: &str, path: &Path, e: &toml::de::Error) -> Error {
    let start = e.span().map(|s| s.start).filter(|&s| text.is_char_boundary(s));
    let line = start.map(|s| text[..s].matches('\n').count() + 1);
    let field = start.and_then(|s| at(text, s).or_else(|| at(&with_zero_at(text, s), s)));
    let field = field.map(|f| format!("{f}: ")).unwrap_or_default();
    Error::parse(path, line, format!("{field}{}", humane(e.message())))
}

/// `text` with the token that starts at byte `start` replaced by `0`.
fn with_zero_at(text: &str, start: usize) -> String {
    let rest = &text[start..];
    let end = rest.find(|c: char| c.is_whitespace() || ",]}#".contains(c)).unwrap_or(rest.len());
    format!("{}0{}", &text[..start], &rest[end..])
}

/// The path of the innermost key or value of `text` whose span holds byte `at`; `None` when the text
/// is not valid TOML or `at` lies outside every key and value.
fn at(text: &str, at: usize) -> Option<String> {
    let doc = ImDocument::parse(text).ok()?;
    let mut path = String::new();
    in_table(doc.as_table(), at, &mut path).then_some(path)
}

/// Rewrites serde's Rust type names (`expected usize`) and toml's integer overflow in words.
fn humane(message: &str) -> String {
    const WORDS: [(&str, &str); 6] = [
        ("expected usize", "expected a whole number ≥ 0"),
        ("expected u64", "expected a whole number ≥ 0"),
        ("expected u32", "expected a whole number from 0 to 4294967295"),
        ("expected u8", "expected a whole number from 0 to 255"),
        ("expected f64", "expected a number"),
        ("number too large to fit in target type", "integer too large (at most 9223372036854775807)"),
    ];
    WORDS.iter().fold(message.replace('\n', " "), |m, (rust, words)| m.replace(rust, words))
}

fn holds(span: Option<std::ops::Range<usize>>, at: usize) -> bool {
    span.is_some_and(|s| s.contains(&at))
}

/// A standard table's entries live anywhere in the file, so every one is searched.
fn in_table(table: &dyn TableLike, at: usize, path: &mut String) -> bool {
    for (name, item) in table.iter() {
        let len = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(name);
        let key = table.get_key_value(name).and_then(|(k, _)| k.span());
        if in_item(item, at, path) || holds(key, at) {
            return true;
        }
        path.truncate(len);
    }
    false
}

fn in_item(item: &Item, at: usize, path: &mut String) -> bool {
    match item {
        Item::Table(t) => in_table(t, at, path) || holds(t.span(), at),
        Item::ArrayOfTables(tables) => tables.iter().enumerate().any(|(i, t)| {
            let len = path.len();
            path.push_str(&format!("[{i}]"));
            let found = in_table(t, at, path) || holds(t.span(), at);
            if !found {
                path.truncate(len);
            }
            found
        }),
        Item::Value(v) => in_value(v, at, path),
        Item::None => false,
    }
}

fn in_value(value: &Value, at: usize, path: &mut String) -> bool {
    if !holds(value.span(), at) {
        return false;
    }
    match value {
        Value::InlineTable(t) => {
            in_table(t, at, path);
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                if in_value(v, at, path) {
                    break;
                }
                path.truncate(len);
            }
        }
        _ => {}
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_through_tables_arrays_and_inline_tables() {
        let text = "name = \"a\"\n[simulation]\nframes = \"3\"\n[[body]]\nname = \"x\"\n[[body]]\nname = \"y\"\n\
                    material = { model = \"stvk\", youngs = \"1e5\" }\nmesh = { size = [1.0, \"2\"] }\n";
        let path = |needle: &str| at(text, text.find(needle).unwrap());
        assert_eq!(path("\"3\"").as_deref(), Some("simulation.frames"));
        assert_eq!(path("\"1e5\"").as_deref(), Some("body[1].material.youngs"));
        assert_eq!(path("\"2\"").as_deref(), Some("body[1].mesh.size[1]"));
        assert_eq!(path("[[body]]\nname = \"y\"").as_deref(), Some("body[1]"));
        assert_eq!(at("a = [", 2), None);
    }

    #[test]
    fn rust_type_names_become_words() {
        assert_eq!(humane("invalid type: string \"3\", expected usize"), "invalid type: string \"3\", expected a whole number ≥ 0");
        assert_eq!(humane("invalid value: integer `500`, expected u8"), "invalid value: integer `500`, expected a whole number from 0 to 255");
    }
}
