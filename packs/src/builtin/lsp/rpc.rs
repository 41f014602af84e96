//! JSON-RPC over a language server's standard streams: `Content-Length` framing, read and
//! written by a few lines here (the crates that do it, `lsp-server` and `async-lsp`, bring
//! a threaded or tower-based server loop this client does not need).

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt};

/// The largest message accepted from a server (a `workspace/symbol` of a large project stays
/// well below).
const MAX_MESSAGE: usize = 64 * 1024 * 1024;

/// `message` framed for the wire.
pub(crate) fn frame(message: &Value) -> Vec<u8> {
    let body = message.to_string();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

/// The next message from `input`; `Ok(None)` at the end of the stream.
pub(crate) async fn read(
    input: &mut (impl AsyncBufRead + Unpin),
) -> std::io::Result<Option<Value>> {
    let bad = |what: String| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
    let mut length = None;
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line).await? == 0 {
            return Ok(None);
        }
        let header = line.trim_end();
        if header.is_empty() {
            if length.is_some() {
                break;
            }
            continue;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                let n: usize = value
                    .trim()
                    .parse()
                    .map_err(|_| bad(format!("bad Content-Length header `{header}`")))?;
                if n > MAX_MESSAGE {
                    return Err(bad(format!("a message of {n} bytes is over the cap")));
                }
                length = Some(n);
            }
        }
    }
    let mut body = vec![0; length.unwrap_or(0)];
    input.read_exact(&mut body).await?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| bad(format!("a message that is not JSON: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn a_framed_message_reads_back_after_other_headers() {
        let message = json!({"jsonrpc": "2.0", "method": "x", "params": {"é": 1}});
        let mut wire = b"Content-Type: application/vscode-jsonrpc\r\n".to_vec();
        wire.extend(frame(&message));
        wire.extend(frame(&json!(2)));
        let mut input = &wire[..];
        assert_eq!(read(&mut input).await.unwrap(), Some(message));
        assert_eq!(read(&mut input).await.unwrap(), Some(json!(2)));
        assert_eq!(read(&mut input).await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_bad_length_is_an_error_naming_the_header() {
        let mut input = &b"Content-Length: many\r\n\r\n{}"[..];
        let err = read(&mut input).await.unwrap_err();
        assert!(err.to_string().contains("Content-Length: many"), "{err}");
    }
}
