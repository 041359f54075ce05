//! `base64.StdEncoding.DecodeString`, as Go's `encoding/json` decodes a `[]byte` and
//! kube-openapi checks `format: byte`.

use base64::Engine as _;
use base64::alphabet::STANDARD;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

/// Go's standard encoding as its decoder reads it: the standard alphabet, padding
/// required, and the unused bits of the last character ignored (`aGVsbG9=` is `hello`,
/// where a strict decoder rejects the `9`). Encoding is the canonical form.
pub const STD: GeneralPurpose = GeneralPurpose::new(
    &STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
);

/// Decodes `text` as Go does: line breaks (`\r`, `\n`) anywhere are skipped, everything
/// else must be standard base64 with padding.
pub fn decode(text: &str) -> Result<Vec<u8>, base64::DecodeError> {
    // Text without line breaks, nearly all of it, is decoded in one pass; a line break
    // fails that pass, and only then is the text read again without them.
    STD.decode(text).or_else(|error| {
        if !text.contains(['\r', '\n']) {
            return Err(error);
        }
        let cleaned: Vec<u8> = text.bytes().filter(|b| !matches!(b, b'\r' | b'\n')).collect();
        STD.decode(cleaned)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_bits_padding_and_line_breaks() {
        assert_eq!(decode("aGVsbG9=").unwrap(), b"hello");
        assert_eq!(decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(decode("aGVs\r\nbG8=\n").unwrap(), b"hello");
        assert_eq!(decode("").unwrap(), b"");
        assert!(decode("aGVsbG8").is_err(), "padding is required");
        assert!(decode("aGVsbG8=aGVs").is_err(), "nothing after padding");
        assert!(decode("aGVs bG8=").is_err());
        assert!(decode("aGVsbG8_").is_err(), "URL alphabet");
    }
}
