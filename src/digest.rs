//! Content hashes: the sha256 of trusted configurations and of spilled log values.

use sha2::{Digest, Sha256};

/// The sha256 of `bytes` as 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
