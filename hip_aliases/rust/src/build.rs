//! Build-script helper: decide `use_rocm` and tell cargo.
//!
//! Decision, first match wins:
//! 1. `PORT_GPU_PLATFORM`: `rocm` (or `hip`) -> ROCm; `cuda`, `none`, `cpu` -> not ROCm;
//!    `auto` or unset -> step 2; anything else is a build error naming the variable.
//! 2. `port detect --json` (the binary from `PORT_BIN`, else `port` on `PATH`): ROCm when its
//!    top-level field `device` is `"rocm"`. If `port` cannot be run, not ROCm, with a
//!    `cargo:warning` saying why.

use std::process::Command;

/// The cfg name this helper emits.
pub const CFG: &str = "use_rocm";

/// Where the decision came from, for messages and tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// From `PORT_GPU_PLATFORM`.
    Env(bool),
    /// From `port detect --json`'s `device` field.
    Detected { use_rocm: bool, device: String },
    /// `port detect` could not be run or its output had no `device`: not ROCm.
    Undetected(String),
}

impl Decision {
    pub fn use_rocm(&self) -> bool {
        match self {
            Decision::Env(v) => *v,
            Decision::Detected { use_rocm, .. } => *use_rocm,
            Decision::Undetected(_) => false,
        }
    }
}

/// Decide from the value of `PORT_GPU_PLATFORM` and a way to get `port detect --json`'s output.
pub fn decide<F>(platform: Option<&str>, detect_json: F) -> Result<Decision, String>
where
    F: FnOnce() -> Result<String, String>,
{
    match platform.map(str::trim).unwrap_or("") {
        "rocm" | "hip" => Ok(Decision::Env(true)),
        "cuda" | "none" | "cpu" => Ok(Decision::Env(false)),
        "" | "auto" => Ok(match detect_json() {
            Ok(json) => match device_from_detect_json(&json) {
                Some(device) => Decision::Detected { use_rocm: device == "rocm", device },
                None => Decision::Undetected("`port detect --json` printed no top-level \"device\"".into()),
            },
            Err(why) => Decision::Undetected(why),
        }),
        other => Err(format!(
            "PORT_GPU_PLATFORM={other:?}: must be one of auto, cuda, rocm, none"
        )),
    }
}

/// Run `port detect --json` (or `$PORT_BIN detect --json`) and return its standard output.
pub fn run_port_detect() -> Result<String, String> {
    let bin = std::env::var("PORT_BIN").ok().filter(|s| !s.is_empty()).unwrap_or_else(|| "port".into());
    let out = Command::new(&bin)
        .args(["detect", "--json"])
        .output()
        .map_err(|e| format!("cannot run `{bin} detect --json`: {e}"))?;
    if !out.status.success() {
        return Err(format!("`{bin} detect --json` exited with {}", out.status));
    }
    String::from_utf8(out.stdout).map_err(|_| format!("`{bin} detect --json` printed non-UTF-8 output"))
}

/// The string value of the top-level key `"device"` of a JSON object, without a JSON library.
pub fn device_from_detect_json(json: &str) -> Option<String> {
    let chars: Vec<char> = json.chars().collect();
    let mut depth = 0usize;
    let mut i = 0usize;
    let mut expect_key = false;
    while i < chars.len() {
        match chars[i] {
            '{' => {
                depth += 1;
                expect_key = depth == 1;
                i += 1;
            }
            '[' => {
                depth += 1;
                i += 1;
            }
            '}' | ']' => {
                depth = depth.checked_sub(1)?;
                i += 1;
            }
            ',' => {
                expect_key = depth == 1;
                i += 1;
            }
            '"' => {
                let (text, next) = read_string(&chars, i)?;
                i = next;
                if depth == 1 && expect_key {
                    expect_key = false;
                    if text == "device" {
                        while i < chars.len() && (chars[i].is_whitespace() || chars[i] == ':') {
                            i += 1;
                        }
                        return if chars.get(i) == Some(&'"') { read_string(&chars, i).map(|(v, _)| v) } else { None };
                    }
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// Read the JSON string starting at `chars[start] == '"'`; return (text, index after it).
fn read_string(chars: &[char], start: usize) -> Option<(String, usize)> {
    let mut out = String::new();
    let mut i = start + 1;
    while i < chars.len() {
        match chars[i] {
            '"' => return Some((out, i + 1)),
            '\\' => {
                let c = *chars.get(i + 1)?;
                out.push(match c {
                    'n' => '\n',
                    't' => '\t',
                    other => other, // \" \\ \/; \uXXXX is kept verbatim (not needed here)
                });
                i += 2;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    None
}

/// The lines cargo must read for a decision.
pub fn cargo_lines(decision: &Decision) -> Vec<String> {
    let mut lines = vec![
        format!("cargo:rustc-check-cfg=cfg({CFG})"),
        "cargo:rerun-if-env-changed=PORT_GPU_PLATFORM".to_string(),
        "cargo:rerun-if-env-changed=PORT_BIN".to_string(),
    ];
    if let Decision::Undetected(why) = decision {
        lines.push(format!("cargo:warning=hip-aliases: not building for ROCm: {why}"));
    }
    if decision.use_rocm() {
        lines.push(format!("cargo:rustc-cfg={CFG}"));
    }
    lines
}

/// Call from a `-sys` crate's `build.rs`: decide, print the cargo lines, return `use_rocm`.
/// Panics (a build error with the message) on an invalid `PORT_GPU_PLATFORM`.
pub fn configure() -> bool {
    let platform = std::env::var("PORT_GPU_PLATFORM").ok();
    let decision = decide(platform.as_deref(), run_port_detect).unwrap_or_else(|msg| panic!("{msg}"));
    for line in cargo_lines(&decision) {
        println!("{line}");
    }
    decision.use_rocm()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_detect() -> Result<String, String> {
        panic!("detect must not run when PORT_GPU_PLATFORM decides")
    }

    #[test]
    fn env_decides_without_running_detect() {
        assert_eq!(decide(Some("rocm"), no_detect), Ok(Decision::Env(true)));
        assert_eq!(decide(Some(" hip "), no_detect), Ok(Decision::Env(true)));
        assert_eq!(decide(Some("cuda"), no_detect), Ok(Decision::Env(false)));
        assert_eq!(decide(Some("none"), no_detect), Ok(Decision::Env(false)));
        assert!(decide(Some("amd"), no_detect).unwrap_err().contains("PORT_GPU_PLATFORM"));
    }

    #[test]
    fn auto_reads_the_top_level_device_of_port_detect() {
        let json = r#"{"schema": 1, "gpus": [{"device": "cuda"}], "rocm": {"device": "x"}, "device": "rocm"}"#;
        let d = decide(Some("auto"), || Ok(json.to_string())).unwrap();
        assert_eq!(d, Decision::Detected { use_rocm: true, device: "rocm".into() });
        let d = decide(None, || Ok(r#"{"path": "cpu", "device": "none"}"#.into())).unwrap();
        assert!(!d.use_rocm());
    }

    #[test]
    fn detect_failure_means_not_rocm_with_a_warning() {
        let d = decide(None, || Err("cannot run `port detect --json`: not found".into())).unwrap();
        assert!(!d.use_rocm());
        let lines = cargo_lines(&d);
        assert!(lines.iter().any(|l| l.starts_with("cargo:warning=") && l.contains("not found")));
        assert!(!lines.iter().any(|l| l == "cargo:rustc-cfg=use_rocm"));
    }

    #[test]
    fn json_parser_ignores_nested_keys_and_strings() {
        assert_eq!(device_from_detect_json(r#"{"a": {"device": "rocm"}}"#), None);
        assert_eq!(device_from_detect_json(r#"{"a": "\"device\": x", "device": "cuda"}"#), Some("cuda".into()));
        assert_eq!(device_from_detect_json(r#"{"device": 3}"#), None);
        assert_eq!(device_from_detect_json("not json"), None);
        assert_eq!(device_from_detect_json(r#"{"device": "rocm"#), None);
    }

    #[test]
    fn rocm_decision_emits_cfg_and_check_cfg() {
        let lines = cargo_lines(&Decision::Env(true));
        assert_eq!(lines[0], "cargo:rustc-check-cfg=cfg(use_rocm)");
        assert!(lines.contains(&"cargo:rustc-cfg=use_rocm".to_string()));
        assert!(!cargo_lines(&Decision::Env(false)).contains(&"cargo:rustc-cfg=use_rocm".to_string()));
    }
}
