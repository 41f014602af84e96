//! A compiler message as a model reads it: short, and about this sandbox.
//!
//! - A type printed in full (`'{ add: (args: …) => …; ask_user_question: …'`) is cut to its head,
//!   so what follows it (`Did you mean 'read'?`) stays in view.
//! - Advice to install Node's type definitions (TS2580, TS2591) is dropped: the sandbox has no
//!   Node globals, so the name simply does not exist here.
//! - The whole message is cut at [`MAX_MESSAGE_CHARS`].

/// The most characters of one message shown.
pub(super) const MAX_MESSAGE_CHARS: usize = 300;
/// The most characters of one quoted type kept.
const MAX_QUOTED_CHARS: usize = 80;

/// `message` of diagnostic `code` as shown (see the module docs).
pub(super) fn for_model(code: u32, message: &str) -> String {
    let message = match code {
        2580 | 2591 => message.split_once(". ").map_or(message, |(head, _)| head),
        _ => message,
    };
    let mut text = short_quotes(message);
    if matches!(code, 2580 | 2591) && !text.ends_with('.') {
        text.push('.');
    }
    cut(&text, MAX_MESSAGE_CHARS)
}

/// Every `'…'` longer than [`MAX_QUOTED_CHARS`] cut to its head and `…'`.
fn short_quotes(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut parts = message.split('\'');
    if let Some(first) = parts.next() {
        out.push_str(first);
    }
    // Odd parts are inside quotes (a lone apostrophe at the end just closes nothing).
    for (i, part) in parts.enumerate() {
        out.push('\'');
        match i % 2 == 0 && part.chars().count() > MAX_QUOTED_CHARS {
            true => out.push_str(&cut(part, MAX_QUOTED_CHARS)),
            false => out.push_str(part),
        }
    }
    out
}

/// `text` cut at `max` characters with `…`.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_quoted_type_is_cut_and_the_suggestion_after_it_kept() {
        let tools = format!(
            "{{ add: (args: {{ a: number }}) => Promise<number>; {} }}",
            "x".repeat(400)
        );
        let message =
            format!("Property 'Read' does not exist on type '{tools}'. Did you mean 'read'?");
        let shown = for_model(2551, &message);
        assert!(
            shown.starts_with("Property 'Read' does not exist on type '{ add: (args:"),
            "{shown}"
        );
        assert!(shown.ends_with("…'. Did you mean 'read'?"), "{shown}");
    }

    #[test]
    fn node_advice_is_dropped() {
        let message = "Cannot find name 'process'. Do you need to install type definitions for \
                       node? Try `npm i --save-dev @types/node`.";
        assert_eq!(for_model(2591, message), "Cannot find name 'process'.");
    }

    #[test]
    fn a_long_message_is_cut_with_an_ellipsis() {
        let long = "x".repeat(MAX_MESSAGE_CHARS + 10);
        let shown = for_model(2322, &long);
        assert_eq!(shown.chars().count(), MAX_MESSAGE_CHARS + 1);
        assert!(shown.ends_with('…'));
        assert_eq!(for_model(2322, "short"), "short");
    }
}
