//! The presentation vocabulary: `card`-tagged render intents a UI switches on.
//!
//! A tool describes how its pending call ([`ToolCallView`]) and completed result
//! ([`ToolResultView`]) should look, without depending on any client protocol.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::ContentBlock;

/// Icon hint on a generic card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolCallKind {
    /// Reads files.
    Read,
    /// Edits files.
    Edit,
    /// Deletes files.
    Delete,
    /// Moves files.
    Move,
    /// Searches.
    Search,
    /// Runs something.
    Execute,
    /// Fetches from the network.
    Fetch,
    /// Anything else.
    Other,
}

/// A file a call reads or modifies, for editor follow-along.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileLocation {
    /// File path.
    pub path: String,
    /// 1-based line, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
}

/// One file change: `old_text` is `None` for a new file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileDiff {
    /// File path.
    pub path: String,
    /// Text before, `None` when the file is new.
    pub old_text: Option<String>,
    /// Text after.
    pub new_text: String,
}

/// One 1-based numbered line of a read window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadFileLine {
    /// 1-based line number.
    pub number: u64,
    /// Line text.
    pub text: String,
}

/// How to present a pending call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "card", rename_all = "lowercase")]
pub enum ToolCallView {
    /// The default card.
    #[serde(rename_all = "camelCase")]
    Generic {
        /// Title.
        title: String,
        /// Icon hint.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kind: Option<ToolCallKind>,
        /// Raw arguments.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        raw_input: Option<Value>,
        /// Extra content.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<Vec<ContentBlock>>,
        /// Files involved.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        locations: Option<Vec<FileLocation>>,
    },
    /// A shell command.
    Terminal {
        /// Title (usually the command).
        title: String,
        /// What the command does.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        /// Working directory.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
    },
    /// A file creation or modification.
    Diff {
        /// Title.
        title: String,
        /// The changes.
        diffs: Vec<FileDiff>,
        /// Files involved.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        locations: Option<Vec<FileLocation>>,
    },
}

impl ToolCallView {
    /// The card's title, whatever its kind.
    pub fn title(&self) -> &str {
        match self {
            ToolCallView::Generic { title, .. }
            | ToolCallView::Terminal { title, .. }
            | ToolCallView::Diff { title, .. } => title,
        }
    }
}

/// Whether a search result lists matches grouped by file or a flat path list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchShape {
    /// Grouped-by-file matches (grep).
    Matches,
    /// A flat path list (glob).
    Paths,
}

/// Web retrieval kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WebKind {
    /// A web search.
    Search,
    /// A page fetch.
    Fetch,
}

/// How to present a completed call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "card", rename_all = "lowercase")]
pub enum ToolResultView {
    /// Generic: keep the pending title, show content.
    Generic {
        /// Title.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        /// Content.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<Vec<ContentBlock>>,
    },
    /// Captured run output and exit.
    #[serde(rename_all = "camelCase")]
    Terminal {
        /// Title.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        /// Output.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output: Option<String>,
        /// Exit code.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit_code: Option<i64>,
        /// Terminating signal.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signal: Option<String>,
    },
    /// A completed file mutation.
    Diff {
        /// Title.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        /// The applied changes.
        diffs: Vec<FileDiff>,
    },
    /// A completed discovery search; the view carries no result text.
    Search {
        /// Matches or paths.
        shape: SearchShape,
        /// Title.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        /// Whether the inline result was capped.
        truncated: bool,
        /// The true total.
        total: u64,
        /// Shape-specific data (matches grouped by file, or paths).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<Value>,
    },
    /// A line-numbered file window.
    #[serde(rename_all = "camelCase")]
    Read {
        /// Title.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        /// File path.
        path: String,
        /// 1-based first line requested.
        offset: u64,
        /// The lines.
        lines: Vec<ReadFileLine>,
        /// Lines in the file.
        total_lines: u64,
        /// Language hint.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        lang: Option<String>,
        /// Fallback text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
    },
    /// A completed web retrieval.
    Web {
        /// Search or fetch.
        kind: WebKind,
        /// Title.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        /// Kind-specific fields (sources/answer, or url/statusCode).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<Value>,
        /// Whether the body was capped.
        truncated: bool,
    },
}

/// The durable result projection a `present_result` callback sees.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// Whether the call failed.
    pub is_error: bool,
    /// Model-facing content.
    pub content: Vec<ContentBlock>,
    /// Presentation metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}
