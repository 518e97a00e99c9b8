//! Names of the folders the target JVM writes into (a cell's folder, the results directory): safe for a file system,
//! for the JVM's option syntax (`-Xlog:…:file=PATH` splits on `:` and `,`, `-XX:ErrorFile` expands `%`), for a `{jvm}`
//! joined into one word of an environment variable (splits on spaces) and for shells; still readable.

use std::path::Path;

/// Characters kept as they are in a folder name jload makes; every run of other characters becomes one `_`.
fn is_kept(c: char) -> bool {
    c.is_ascii_alphanumeric() || "._+=-".contains(c)
}

/// Characters a path jload passes to the JVM must not contain (anything else, non-ASCII included, is left to the
/// file system).
pub fn is_unsafe_in_jvm_path(c: char) -> bool {
    c.is_whitespace() || c.is_control() || ":,%\"'\\$`;&|<>*?[]{}()!#".contains(c)
}

/// `text` made safe (see [`is_kept`]), cut to at most `max` characters.
pub fn safe_part(text: &str, max: usize) -> String {
    let mut safe = String::with_capacity(text.len().min(max));
    for c in text.chars() {
        if is_kept(c) {
            safe.push(c);
        } else if !safe.ends_with('_') {
            safe.push('_');
        }
    }
    safe.chars().take(max).collect()
}

/// The first character of `path` that the JVM's option syntax or a shell would take apart, if any.
pub fn unsafe_char(path: &Path) -> Option<char> {
    path.to_string_lossy().chars().find(|&c| is_unsafe_in_jvm_path(c))
}

/// Longest part one axis name or label contributes to a cell's folder name.
const MAX_PART: usize = 48;
/// Longest cell folder name (file systems allow 255 bytes).
const MAX_FOLDER: usize = 160;

/// The folder name of a cell with these `(axis, label)` pairs: `axis=label` parts joined by `__`, each made safe and
/// cut; `default` without axes. Not yet unique: see [`unique_folders`].
pub fn cell_folder(pairs: &[(&str, &str)]) -> String {
    if pairs.is_empty() {
        return "default".to_string();
    }
    let parts: Vec<String> = pairs
        .iter()
        .map(|(axis, label)| format!("{}={}", safe_part(axis, MAX_PART), safe_part(label, MAX_PART)))
        .collect();
    parts.join("__").chars().take(MAX_FOLDER).collect()
}

/// Make names unique in order: a name already taken (compared without case, for case-insensitive file systems) gets
/// `_2`, `_3`, … The first of equal names keeps it, so the matrix order decides and a re-run finds the same folders.
pub fn unique_folders(names: Vec<String>) -> Vec<String> {
    let mut used = std::collections::HashSet::new();
    names
        .into_iter()
        .map(|name| {
            let mut candidate = name.clone();
            let mut suffix = 2;
            while !used.insert(candidate.to_lowercase()) {
                candidate = format!("{name}_{suffix}");
                suffix += 1;
            }
            candidate
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_syntax_and_shell_characters_become_underscores() {
        assert_eq!(cell_folder(&[("gc", "-XX:+UseSerialGC")]), "gc=-XX_+UseSerialGC");
        assert_eq!(cell_folder(&[("log", "-Xlog:gc*:file=x.log,filecount=2")]), "log=-Xlog_gc_file=x.log_filecount=2");
        assert_eq!(cell_folder(&[("a b", "it's \"quoted\" 50% /x\\y")]), "a_b=it_s_quoted_50_x_y");
        assert_eq!(cell_folder(&[("堆", "大 堆"), ("gc", "G1")]), "_=___gc=G1");
    }

    #[test]
    fn axes_are_joined_with_a_double_underscore_and_no_axes_is_default() {
        assert_eq!(cell_folder(&[("heap", "-Xmx64m"), ("gc", "G1")]), "heap=-Xmx64m__gc=G1");
        assert_eq!(cell_folder(&[]), "default");
    }

    #[test]
    fn long_labels_and_many_axes_are_cut() {
        let long = "x".repeat(500);
        assert_eq!(cell_folder(&[("a", &long)]), format!("a={}", "x".repeat(MAX_PART)));
        let pairs: Vec<(&str, &str)> = (0..10).map(|_| ("axis", long.as_str())).collect();
        assert_eq!(cell_folder(&pairs).len(), MAX_FOLDER);
    }

    #[test]
    fn every_folder_name_is_safe_in_jvm_options() {
        let nasty = ["-XX:+UseG1GC", "a,b", "x=y", "a/b", "sp ace", "'\"", "ünï", "%p", "$(rm -rf)", "`x`", "\t\n"];
        for label in nasty {
            let name = cell_folder(&[("gc", label)]);
            assert_eq!(unsafe_char(Path::new(&name)), None, "{label} → {name}");
            assert!(name.chars().all(|c| c.is_ascii() && !c.is_control()), "{label} → {name}");
        }
    }

    #[test]
    fn colliding_names_get_numbered_suffixes_in_order() {
        let names = vec!["gc=a_b".to_string(), "gc=a_b".to_string(), "GC=A_B".to_string(), "gc=a_b_2".to_string()];
        assert_eq!(unique_folders(names), ["gc=a_b", "gc=a_b_2", "GC=A_B_3", "gc=a_b_2_2"]);
    }

    #[test]
    fn unsafe_char_names_the_first_offender() {
        assert_eq!(unsafe_char(Path::new("/tmp/results/heap=-Xmx64m")), None);
        assert_eq!(unsafe_char(Path::new("/tmp/my run/x")), Some(' '));
        assert_eq!(unsafe_char(Path::new("/tmp/a:b,c")), Some(':'));
        assert_eq!(unsafe_char(Path::new("/tmp/100%")), Some('%'));
    }
}
