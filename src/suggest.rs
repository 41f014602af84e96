//! "Did you mean …?": the closest of some known names to a name that matched none of them.

/// The candidate closest to `name` (case-insensitive edit distance), if it is close enough to
/// be a likely typo: at most a third of the longer name's length, and never more than 3 edits.
/// A candidate that contains `name` (or is contained in it) is preferred on ties.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_lowercase();
    candidates
        .into_iter()
        .filter_map(|candidate| {
            let other = candidate.to_lowercase();
            let distance = edit_distance(&lower, &other);
            let allowed = (lower.chars().count().max(other.chars().count()) / 3).clamp(1, 3);
            let contains = other.contains(&lower) || lower.contains(&other);
            (distance <= allowed || (contains && lower.len() >= 3))
                .then_some((distance, !contains, candidate))
        })
        .min()
        .map(|(_, _, candidate)| candidate)
}

/// Argument names models bring from other tools (ripgrep's `--glob`, a shell's `cwd`),
/// with the name ptc's tools use for the same thing.
const ALIASES: &[(&str, &str)] = &[
    ("glob", "include"),
    ("cwd", "workdir"),
    ("dir", "path"),
    ("directory", "path"),
    ("file", "file_path"),
    ("filename", "file_path"),
];

/// [`closest`], or else the candidate `name` is a known alias of.
pub(crate) fn closest_or_alias<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str> + Clone,
) -> Option<&'a str> {
    closest(name, candidates.clone()).or_else(|| {
        let lower = name.to_lowercase();
        let target = ALIASES.iter().find(|(alias, _)| *alias == lower)?.1;
        candidates.into_iter().find(|c| *c == target)
    })
}

/// Edit distance over characters, an adjacent swap counting as one edit (optimal string
/// alignment).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for i in 0..=a.len() {
        d[i * width] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(width) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

#[cfg(test)]
mod tests {
    use super::{closest, closest_or_alias};

    #[test]
    fn aliases_from_other_tools_find_their_name() {
        let grep = ["pattern", "path", "include"];
        assert_eq!(closest_or_alias("glob", grep), Some("include"));
        assert_eq!(closest_or_alias("directory", grep), Some("path"));
        assert_eq!(closest_or_alias("cwd", grep), None, "only a declared name");
    }

    #[test]
    fn typos_find_their_name_and_strangers_find_none() {
        let names = [
            "bash",
            "edit",
            "glob",
            "grep",
            "read",
            "write",
            "todo_write",
        ];
        assert_eq!(closest("Bash", names), Some("bash"));
        assert_eq!(closest("gerp", names), Some("grep"));
        assert_eq!(closest("todo", names), Some("todo_write"));
        assert_eq!(closest("ignoreCase", ["pattern", "path", "include"]), None);
        assert_eq!(closest("glob", ["pattern", "path", "include"]), None);
        assert_eq!(
            closest("inclde", ["pattern", "path", "include"]),
            Some("include")
        );
        assert_eq!(closest("zzz", names), None);
    }
}
