//! Model-facing content blocks and deferred context messages.

use serde::{Deserialize, Serialize};

/// One block of model-facing content, as a tool result carries it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// Base64 data.
        data: String,
        /// MIME type such as `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text { text: text.into() }
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text { text } => Some(text),
            ContentBlock::Image { .. } => None,
        }
    }
}

/// The text of all text blocks, joined by newlines.
pub fn content_text(content: &[ContentBlock]) -> String {
    let mut out = String::new();
    for block in content.iter().filter_map(ContentBlock::as_text) {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(block);
    }
    out
}

/// A context message a tool defers until after its result reaches the agent loop
/// (the seed's `UserMessage` as carried by `deferContext`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserMessage {
    /// Who produced it (a plugin or tool name).
    pub source: String,
    /// The message content.
    pub content: Vec<ContentBlock>,
}

impl UserMessage {
    /// A text message from `source`.
    pub fn text(source: impl Into<String>, text: impl Into<String>) -> Self {
        UserMessage {
            source: source.into(),
            content: vec![ContentBlock::text(text)],
        }
    }
}
