//! Command-line mistakes as jload's one line (bad input: one line on stderr, exit 2), instead of clap's several lines
//! of tips, usage and "For more information": what is wrong, clap's suggestion on the same line, and where the help
//! is — e.g. `unexpected argument '--rat'; did you mean '--rate'? (jload bench --help)`. Help and version requests
//! keep clap's own output.

use clap::error::{ContextKind, ContextValue, ErrorKind};

use crate::error;

/// The one line for a usage error (without the `jload: ` prefix), or None for what is not an error (help, version,
/// `jload` alone, which prints the help).
/// `command` is jload's whole command line definition (to name the subcommand's help).
pub fn one_line(err: &clap::Error, command: &clap::Command) -> Option<String> {
    match err.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            None
        }
        _ => Some(bad_value(err).unwrap_or_else(|| mistake(err, command))),
    }
}

fn context(err: &clap::Error, kind: ContextKind) -> Option<&str> {
    match err.get(kind) {
        Some(ContextValue::String(text)) => Some(text.as_str()),
        _ => None,
    }
}

/// jload's own wording for a bad value given to a flag: a negative number (every count, rate, duration and size jload
/// takes is positive; clap would call `-5` an unexpected argument) or a value the flag's type refuses.
fn bad_value(err: &clap::Error) -> Option<String> {
    let flag_of = |arg: &str| arg.split(' ').next().unwrap_or(arg).to_string();
    match err.kind() {
        ErrorKind::UnknownArgument => {
            let unexpected = context(err, ContextKind::InvalidArg)?;
            if !looks_negative(unexpected) {
                return None;
            }
            // Clap reports `-1` of `-1s`: name the whole word the user typed, and the flag before it.
            let words: Vec<String> = std::env::args().collect();
            let at = words.iter().position(|word| word.starts_with(unexpected))?;
            let value = &words[at];
            let flag = words[..at].last().filter(|word| word.starts_with('-')).map_or("", String::as_str);
            Some(error::negative_value(flag, value))
        }
        ErrorKind::ValueValidation | ErrorKind::InvalidValue => {
            let flag = flag_of(context(err, ContextKind::InvalidArg)?);
            // No value at all (`-c` last): clap's "a value is required for '--connections <CONNECTIONS>'".
            let value = context(err, ContextKind::InvalidValue).filter(|value| !value.is_empty())?;
            if looks_negative(value) {
                return Some(error::negative_value(&flag, value));
            }
            let reason = std::error::Error::source(err).map(|source| format!(": {source}")).unwrap_or_default();
            let valid = match err.get(ContextKind::ValidValue) {
                Some(ContextValue::Strings(values)) if !values.is_empty() => {
                    format!(" (one of: {})", values.join(", "))
                }
                _ => String::new(),
            };
            Some(format!("invalid value '{value}' for {flag}{reason}{valid}"))
        }
        _ => None,
    }
}

/// Any other mistake (an unknown flag or subcommand, a missing argument, a conflict): clap's own statement of it,
/// joined onto one line, then its suggestions ("did you mean …?", its tips), then the help to read.
fn mistake(err: &clap::Error, command: &clap::Command) -> String {
    let rendered = err.render().to_string();
    let statement = rendered.strip_prefix("error: ").unwrap_or(&rendered);
    let statement = statement.split("\n\n").next().unwrap_or(statement);
    let statement = statement.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut line = statement.strip_suffix(" found").unwrap_or(&statement).to_string();
    let mut similar = Vec::new();
    for kind in [ContextKind::SuggestedArg, ContextKind::SuggestedSubcommand, ContextKind::SuggestedValue] {
        match err.get(kind) {
            Some(ContextValue::String(one)) => similar.push(format!("'{one}'")),
            Some(ContextValue::Strings(several)) => similar.extend(several.iter().map(|one| format!("'{one}'"))),
            _ => {}
        }
    }
    if !similar.is_empty() {
        line += &format!("; did you mean {}?", similar.join(" or "));
    }
    if let Some(ContextValue::StyledStrs(tips)) = err.get(ContextKind::Suggested) {
        for tip in tips {
            line += &format!("; {tip}");
        }
    }
    line + &format!(" ({} --help)", command_path(command))
}

/// `jload bench`: the subcommands the user typed (clap's usage names them too, but not for every kind of mistake).
fn command_path(command: &clap::Command) -> String {
    let mut path = vec![command.get_name().to_string()];
    let mut current = command;
    for word in std::env::args().skip(1) {
        if let Some(sub) = current.find_subcommand(&word) {
            path.push(sub.get_name().to_string());
            current = sub;
        }
    }
    path.join(" ")
}

/// `-5`, `-0.5`, `-1s`, `-.5`: a minus sign before a number (no jload flag starts with a digit).
fn looks_negative(word: &str) -> bool {
    word.strip_prefix('-')
        .and_then(|rest| rest.chars().next())
        .is_some_and(|first| first.is_ascii_digit() || first == '.')
}

#[cfg(test)]
mod tests {
    use super::looks_negative;

    #[test]
    fn a_minus_before_a_number_is_a_negative_value_and_a_flag_is_not() {
        for word in ["-5", "-0.5", "-.5", "-1s", "-500ms", "-5%"] {
            assert!(looks_negative(word), "{word}");
        }
        for word in ["-c", "--rate", "-", "5", "-R5x", ""] {
            assert!(!looks_negative(word), "{word}");
        }
    }
}
