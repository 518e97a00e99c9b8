//! Program arguments (docs/plan.md, "Program arguments"): the words an axis value's `args` adds to the target's
//! command line after the command's own words, or where `{args}` stands in `target.command` — read from the plan
//! (a list of words, nothing else) and checked where `{args}` is written (a word of its own in the command, once,
//! and nowhere else). The one rule of where they go on a cell's command line is [`place_args`].

/// The placeholder in `target.command` for the cell's program arguments.
pub const ARGS_PLACEHOLDER: &str = "{args}";

/// What an axis value's `args` must look like, for its errors.
const ARGS_FORM: &str = "a list of words, like args = [\"--no-request-journal\"] or [\"--container-threads\", \"10\"]";

/// An axis value's `args` as written: absent → none; a list of strings → those words; anything else is refused
/// with the form to write. The error names neither file nor axis (the caller does).
pub fn parse_args(written: Option<&toml::Value>) -> Result<Vec<String>, String> {
    let Some(value) = written else { return Ok(Vec::new()) };
    let not_a_list = |what: String| Err(format!("args must be {ARGS_FORM}, not {what}"));
    let toml::Value::Array(items) = value else { return not_a_list(written_as(value)) };
    let mut words = Vec::with_capacity(items.len());
    for item in items {
        match item {
            toml::Value::String(word) if word.contains(ARGS_PLACEHOLDER) => {
                return Err(format!("args: '{word}' holds {ARGS_PLACEHOLDER}, which stands only in target.command"));
            }
            toml::Value::String(word) => words.push(word.clone()),
            other => return not_a_list(format!("a list holding {}", written_as(other))),
        }
    }
    Ok(words)
}

/// A TOML value as the plan wrote it, for an error: `"x"`, `10`, `{ … }`.
fn written_as(value: &toml::Value) -> String {
    match value {
        toml::Value::Table(_) => "a table".to_string(),
        other => other.to_string(),
    }
}

/// Where `{args}` may stand: as one word of `target.command`, at most once. `command` is the command's words as
/// split; `elsewhere` every other text of the plan that placeholders fill (`target.jvm`, `target.env`, the ready
/// URL, an axis value's options and env), each with the key that names it.
pub fn check_placement<'a>(
    command: &[String],
    elsewhere: impl IntoIterator<Item = (String, &'a str)>,
) -> Result<(), String> {
    if let Some(word) = command.iter().find(|word| word.contains(ARGS_PLACEHOLDER) && *word != ARGS_PLACEHOLDER) {
        return Err(format!(
            "target.command: {ARGS_PLACEHOLDER} must be a word of its own, not part of '{word}' (it stands for \
             several words); to hand the args to a shell, pass them as its arguments: sh -c 'exec … \"$@\"' sh \
             {ARGS_PLACEHOLDER}"
        ));
    }
    if command.iter().filter(|word| *word == ARGS_PLACEHOLDER).count() > 1 {
        return Err(format!(
            "target.command has {ARGS_PLACEHOLDER} more than once; write it once, where the axes' args go"
        ));
    }
    for (key, text) in elsewhere {
        if text.contains(ARGS_PLACEHOLDER) {
            return Err(format!(
                "{key} holds {ARGS_PLACEHOLDER}, which stands only in target.command, as a word of its own (without \
                 it the args go at the command's end)"
            ));
        }
    }
    Ok(())
}

/// The rule of where a cell's program arguments go: the command's words with `{args}` replaced by `args` where it
/// stands, else `args` after the last word. Without args, `{args}` is simply dropped.
pub fn place_args(words: Vec<String>, args: &[String]) -> Vec<String> {
    let mut placed = Vec::with_capacity(words.len() + args.len());
    let mut stood = false;
    for word in words {
        if word == ARGS_PLACEHOLDER {
            placed.extend(args.iter().cloned());
            stood = true;
        } else {
            placed.push(word);
        }
    }
    if !stood {
        placed.extend(args.iter().cloned());
    }
    placed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        shell_words::split(text).unwrap()
    }

    /// No text of the plan but the command.
    fn nothing_else() -> Vec<(String, &'static str)> {
        Vec::new()
    }

    fn value(text: &str) -> toml::Value {
        toml::from_str::<toml::Table>(&format!("args = {text}")).unwrap().remove("args").unwrap()
    }

    #[test]
    fn args_are_a_list_of_words() {
        assert_eq!(parse_args(None).unwrap(), Vec::<String>::new());
        assert_eq!(parse_args(Some(&value("[]"))).unwrap(), Vec::<String>::new());
        let parsed = parse_args(Some(&value("[\"--container-threads\", \"10\", \"a b\"]"))).unwrap();
        assert_eq!(parsed, ["--container-threads", "10", "a b"]);
    }

    #[test]
    fn args_that_are_no_list_of_words_say_what_to_write() {
        let error = |text: &str| parse_args(Some(&value(text))).unwrap_err();
        let form = "args must be a list of words, like args = [\"--no-request-journal\"] or \
                    [\"--container-threads\", \"10\"]";
        assert_eq!(error("\"--no-request-journal\""), format!("{form}, not \"--no-request-journal\""));
        assert_eq!(error("10"), format!("{form}, not 10"));
        assert_eq!(error("[\"--container-threads\", 10]"), format!("{form}, not a list holding 10"));
        assert_eq!(error("{ a = \"b\" }"), format!("{form}, not a table"));
        assert_eq!(error("[\"{args}\"]"), "args: '{args}' holds {args}, which stands only in target.command");
    }

    #[test]
    fn args_go_where_args_stands_or_at_the_end() {
        let args = ["--no-request-journal".to_string(), "--container-threads".into(), "10".into()];
        let placed = place_args(words("java -jar w.jar {args} --port 9"), &args);
        assert_eq!(placed, words("java -jar w.jar --no-request-journal --container-threads 10 --port 9"));
        let appended = place_args(words("java -jar w.jar --port 9"), &args);
        assert_eq!(appended, words("java -jar w.jar --port 9 --no-request-journal --container-threads 10"));
        assert_eq!(place_args(words("java -jar w.jar {args} --port 9"), &[]), words("java -jar w.jar --port 9"));
        assert_eq!(place_args(words("java -jar w.jar"), &[]), words("java -jar w.jar"));
    }

    #[test]
    fn args_stands_once_as_a_word_of_the_command_and_nowhere_else() {
        assert_eq!(check_placement(&words("java -jar w.jar {args}"), nothing_else()), Ok(()));
        assert_eq!(check_placement(&words("java -jar w.jar"), [("target.jvm".to_string(), "-Dx=1")]), Ok(()));
        assert_eq!(
            check_placement(&words("sh -c 'java -jar w.jar {args}'"), nothing_else()).unwrap_err(),
            "target.command: {args} must be a word of its own, not part of 'java -jar w.jar {args}' (it stands for \
             several words); to hand the args to a shell, pass them as its arguments: sh -c 'exec … \"$@\"' sh {args}"
        );
        assert_eq!(
            check_placement(&words("java -jar w.jar {args} x {args}"), nothing_else()).unwrap_err(),
            "target.command has {args} more than once; write it once, where the axes' args go"
        );
        assert_eq!(
            check_placement(&words("java -jar w.jar"), [("target.env.APP_ARGS".to_string(), "{args}")]).unwrap_err(),
            "target.env.APP_ARGS holds {args}, which stands only in target.command, as a word of its own (without it \
             the args go at the command's end)"
        );
    }
}
