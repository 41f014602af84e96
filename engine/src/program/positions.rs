//! Where a position in the program that runs was in the program the model wrote.
//!
//! Shaping a program only replaces text with text of the same length, except where it
//! inserts (e.g. `return ` before a final expression) or appends a line after the last one.
//! [`PositionMap`] records the insertions and maps positions back, so every diagnostic points
//! at the model's own line and column.

/// One insertion: `len` characters put before original column `col` of `line` (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Insertion {
    line: usize,
    col: usize,
    len: usize,
}

/// The insertions made into a program, and how many lines it had.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PositionMap {
    insertions: Vec<Insertion>,
    /// The number of lines of the original program.
    lines: usize,
    /// The length in characters of its last line.
    last_len: usize,
}

impl PositionMap {
    /// The map of a program `source` with no insertions yet.
    pub(crate) fn new(source: &str) -> Self {
        let last = source.rsplit('\n').next().unwrap_or("");
        PositionMap {
            insertions: Vec::new(),
            lines: source.split('\n').count(),
            last_len: last.chars().count(),
        }
    }

    /// Record `len` characters inserted before original `line:col` (1-based), after those
    /// already recorded there. Recording in order of position costs nothing to keep sorted.
    pub(crate) fn insert(&mut self, line: usize, col: usize, len: usize) {
        let at = self
            .insertions
            .partition_point(|i| (i.line, i.col) <= (line, col));
        self.insertions.insert(at, Insertion { line, col, len });
    }

    /// The original `line:col` of `line:col` in the shaped program (1-based). A position inside
    /// inserted text maps to where it was inserted; one on a line appended after the program
    /// maps to the end of its last line.
    pub(crate) fn original(&self, line: usize, col: usize) -> (usize, usize) {
        if line > self.lines {
            return (self.lines, self.last_len + 1);
        }
        let mut shift = 0;
        for insertion in self.insertions.iter().filter(|i| i.line == line) {
            let start = insertion.col + shift;
            if col < start {
                break;
            }
            if col < start + insertion.len {
                return (line, insertion.col);
            }
            shift += insertion.len;
        }
        (line, col.saturating_sub(shift).max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::PositionMap;

    #[test]
    fn positions_after_an_insertion_shift_back() {
        let mut map = PositionMap::new("let a = 1\na + 1");
        // `return ` (7 characters) before line 2, column 1.
        map.insert(2, 1, 7);
        assert_eq!(map.original(2, 8), (2, 1));
        assert_eq!(map.original(2, 12), (2, 5));
        assert_eq!(map.original(2, 3), (2, 1));
        assert_eq!(map.original(1, 5), (1, 5));
        // An appended line maps to the end of the program.
        assert_eq!(map.original(3, 4), (2, 6));
    }
}
