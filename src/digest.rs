//! Content hashes: the sha256 of trusted configurations, of spilled log values and of the
//! arguments a run journal records.

use sha2::{Digest, Sha256};

/// The sha256 of `bytes` as 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// `bytes` as lowercase hex digits (a journal hashes every sub-call's arguments: no
/// formatting machinery per byte).
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = vec![0; bytes.len() * 2];
    for (pair, b) in out.chunks_exact_mut(2).zip(bytes) {
        pair[0] = DIGITS[usize::from(b >> 4)];
        pair[1] = DIGITS[usize::from(b & 0xf)];
    }
    String::from_utf8(out).expect("hex digits are ASCII")
}

#[cfg(test)]
mod tests {
    #[test]
    fn hex_is_two_lowercase_digits_a_byte() {
        assert_eq!(super::hex(&[0x00, 0x0f, 0xa0, 0xff]), "000fa0ff");
        assert_eq!(
            super::sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
