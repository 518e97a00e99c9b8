//! JDK discovery: the installed JDKs jload can find (JAVA_HOME, the java on PATH, the system's JVM directory,
//! SDKMAN's folder) with their versions, and choosing one for a plan (`jdk = "25"` or a path).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::bad_input;

/// One installed JDK (or JRE).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Jdk {
    /// The JDK's home directory (canonical).
    pub home: PathBuf,
    /// `JAVA_VERSION` from its `release` file, e.g. `17.0.15`.
    pub version: String,
    /// Vendor and build, e.g. `Temurin-25.0.3+9` (empty when unknown).
    pub implementor: String,
    /// Where it was found: `JAVA_HOME`, `PATH`, `/usr/lib/jvm`, `sdkman`.
    pub found_in: String,
}

impl Jdk {
    pub fn java(&self) -> PathBuf {
        self.home.join("bin").join("java")
    }

    /// The feature release: 17 for `17.0.15`, 8 for `1.8.0_392`.
    pub fn major(&self) -> u32 {
        major_of(&self.version)
    }
}

fn major_of(version: &str) -> u32 {
    let mut parts = version.split(['.', '_', '+', '-']);
    let first: u32 = parts.next().and_then(|part| part.parse().ok()).unwrap_or(0);
    if first == 1 { parts.next().and_then(|part| part.parse().ok()).unwrap_or(0) } else { first }
}

/// Read a JDK home's `release` file; None when `home` is not a JDK.
fn inspect(home: &Path, found_in: &str) -> Option<Jdk> {
    let home = home.canonicalize().ok()?;
    if !home.join("bin").join("java").is_file() {
        return None;
    }
    let release = std::fs::read_to_string(home.join("release")).unwrap_or_default();
    let field = |name: &str| {
        release
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{name}=")))
            .map(|value| value.trim().trim_matches('"').to_string())
            .unwrap_or_default()
    };
    let version = field("JAVA_VERSION");
    if version.is_empty() {
        return None;
    }
    let implementor = [field("IMPLEMENTOR_VERSION"), field("IMPLEMENTOR")]
        .into_iter()
        .find(|text| !text.is_empty())
        .unwrap_or_default();
    Some(Jdk { home, version, implementor, found_in: found_in.to_string() })
}

/// The JDK home that a `java` executable belongs to (following symlinks such as /usr/bin/java).
fn home_of_java(java: &Path) -> Option<PathBuf> {
    let real = java.canonicalize().ok()?;
    Some(real.parent()?.parent()?.to_path_buf())
}

fn java_on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join("java")).find(|candidate| candidate.is_file())
}

/// Every JDK found, the default one (`java` on PATH) first when known, without duplicates.
pub fn discover() -> Vec<Jdk> {
    let mut candidates: Vec<(PathBuf, &str)> = Vec::new();
    if let Some(java) = java_on_path()
        && let Some(home) = home_of_java(&java)
    {
        candidates.push((home, "PATH"));
    }
    if let Some(home) = std::env::var_os("JAVA_HOME") {
        candidates.push((PathBuf::from(home), "JAVA_HOME"));
    }
    let mut folders = vec![(PathBuf::from("/usr/lib/jvm"), "/usr/lib/jvm")];
    if let Some(home) = std::env::var_os("HOME") {
        folders.push((PathBuf::from(home).join(".sdkman/candidates/java"), "sdkman"));
    }
    for (folder, label) in folders {
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        let mut homes: Vec<PathBuf> = entries.filter_map(|entry| entry.ok().map(|entry| entry.path())).collect();
        homes.sort();
        candidates.extend(homes.into_iter().map(|home| (home, label)));
    }
    let mut found: Vec<Jdk> = Vec::new();
    for (home, label) in candidates {
        if let Some(jdk) = inspect(&home, label)
            && !found.iter().any(|known| known.home == jdk.home)
        {
            found.push(jdk);
        }
    }
    found
}

/// Choose the JDK for `wanted`: None → the java on PATH; a number → the newest of that major version; a path → that
/// JDK home (or its `bin/java`).
pub fn choose(wanted: Option<&str>, installed: &[Jdk]) -> anyhow::Result<Jdk> {
    let listing = || {
        installed.iter().map(|jdk| format!("{} ({})", jdk.version, jdk.home.display())).collect::<Vec<_>>().join(", ")
    };
    match wanted.map(str::trim) {
        None | Some("") => {
            installed.iter().find(|jdk| jdk.found_in == "PATH").or_else(|| installed.first()).cloned().ok_or_else(
                || bad_input("no JDK found: install one (apt-get install openjdk-17-jdk-headless) or set JAVA_HOME"),
            )
        }
        Some(text) if text.chars().all(|c| c.is_ascii_digit()) => {
            let major: u32 = text.parse().map_err(|_| bad_input(format!("jdk '{text}' is not a version number")))?;
            installed
                .iter()
                .filter(|jdk| jdk.major() == major)
                .max_by(|a, b| compare_versions(&a.version, &b.version))
                .cloned()
                .ok_or_else(|| {
                    bad_input(format!("no JDK {major} installed (found: {}); install it or give a JDK path", listing()))
                })
        }
        Some(text) => {
            let path = Path::new(text);
            let home = if path.is_file() { home_of_java(path) } else { Some(path.to_path_buf()) };
            home.and_then(|home| inspect(&home, "plan")).ok_or_else(|| {
                bad_input(format!("jdk '{text}' is not a JDK home (no bin/java and release file there)"))
            })
        }
    }
}

/// Order version strings numerically (`17.0.9` < `17.0.15`).
fn compare_versions(a: &str, b: &str) -> std::cmp::Ordering {
    let numbers =
        |text: &str| -> Vec<u64> { text.split(['.', '_', '+', '-']).map(|part| part.parse().unwrap_or(0)).collect() };
    numbers(a).cmp(&numbers(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn majors_and_ordering() {
        assert_eq!(major_of("17.0.15"), 17);
        assert_eq!(major_of("1.8.0_392"), 8);
        assert_eq!(major_of("25"), 25);
        assert!(compare_versions("17.0.9", "17.0.15").is_lt());
    }

    #[test]
    fn the_installed_jdks_are_found_and_chosen_by_major() {
        // This machine (and CI) has JDK 17 as the default java and a Temurin 25 beside it.
        let installed = discover();
        let seventeen = choose(Some("17"), &installed).unwrap();
        assert_eq!(seventeen.major(), 17);
        assert!(seventeen.java().is_file());
        let default = choose(None, &installed).unwrap();
        assert_eq!(default.found_in, "PATH");
        let by_path = choose(Some(seventeen.home.to_str().unwrap()), &installed).unwrap();
        assert_eq!(by_path.home, seventeen.home);
        let err = choose(Some("3"), &installed).unwrap_err().to_string();
        assert!(err.contains("no JDK 3 installed"), "{err}");
        assert!(choose(Some("/nonexistent/jdk"), &installed).is_err());
    }
}
