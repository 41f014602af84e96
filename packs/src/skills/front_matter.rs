//! A `SKILL.md`'s YAML front matter (the Agent Skills layout): `name` and `description`
//! required, the other fields of the format accepted and not used by ptc.

use serde::Deserialize;

/// The front matter fields ptc reads.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(crate) struct FrontMatter {
    pub(crate) name: String,
    pub(crate) description: String,
}

/// The longest `name` the format allows.
const MAX_NAME: usize = 64;
/// The longest `description` the format allows.
const MAX_DESCRIPTION: usize = 1024;

/// The front matter and the body after it, or what is wrong with the file.
pub(crate) fn split(text: &str) -> Result<(FrontMatter, &str), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("it does not start with a `---` line opening its YAML front matter")?;
    let (yaml, body) = closing(rest).ok_or("its front matter has no closing `---` line")?;
    let front: FrontMatter = serde_norway::from_str(yaml).map_err(|e| {
        format!("its front matter is not valid (need `name` and `description`): {e}")
    })?;
    check_name(&front.name)?;
    let description = front.description.trim();
    if description.is_empty() || description.chars().count() > MAX_DESCRIPTION {
        return Err(format!(
            "its `description` must have 1 to {MAX_DESCRIPTION} characters"
        ));
    }
    Ok((
        FrontMatter {
            name: front.name,
            description: description.split_whitespace().collect::<Vec<_>>().join(" "),
        },
        body.trim_start_matches(['\r', '\n']),
    ))
}

/// The YAML before the closing `---` line and the text after that line.
fn closing(rest: &str) -> Option<(&str, &str)> {
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Some((&rest[..at], &rest[at + line.len()..]));
        }
        at += line.len();
    }
    None
}

/// The format's rule for names: 1 to 64 of `a-z`, `0-9` and `-`, no hyphen first, last or twice.
fn check_name(name: &str) -> Result<(), String> {
    let valid = !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--");
    match valid {
        true => Ok(()),
        false => Err(format!(
            "its `name` {name:?} is not 1 to {MAX_NAME} lowercase letters, digits and single hyphens"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_with_folded_description_and_extra_fields() {
        let text = "---\nname: pdf-forms\ndescription: >\n  Fill PDF forms.\n  Use for any form.\nlicense: MIT\nallowed-tools: Bash Read\nmetadata:\n  version: \"1\"\n---\n\n# Steps\n1. Read.\n";
        let (front, body) = split(text).unwrap();
        assert_eq!(front.name, "pdf-forms");
        assert_eq!(front.description, "Fill PDF forms. Use for any form.");
        assert_eq!(body, "# Steps\n1. Read.\n");
    }

    #[test]
    fn bad_front_matter_says_what_is_wrong() {
        let cases = [
            ("# no front matter", "does not start with"),
            ("---\nname: x\n", "no closing"),
            ("---\nname: x\n---\n", "need `name` and `description`"),
            (
                "---\nname: Bad_Name\ndescription: d\n---\n",
                "`name` \"Bad_Name\"",
            ),
            ("---\nname: a--b\ndescription: d\n---\n", "single hyphens"),
            (
                "---\nname: ok\ndescription: \"  \"\n---\n",
                "`description` must have",
            ),
            ("---\nname: [1\n---\n", "not valid"),
        ];
        for (text, expected) in cases {
            let err = split(text).unwrap_err();
            assert!(err.contains(expected), "{text:?}: {err}");
        }
    }
}
