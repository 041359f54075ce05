//! Kubernetes wire types with special encodings.
//!
//! Each type serializes exactly as the Kubernetes API server does and accepts what it
//! accepts, so generated models round-trip objects byte for byte:
//!
//! | type | wire form |
//! |---|---|
//! | [`IntOrString`] | JSON number (`i32`) or JSON string |
//! | [`Quantity`] | JSON string; JSON numbers accepted on input |
//! | [`Time`] | RFC 3339 string, whole seconds, UTC (`2024-01-02T03:04:05Z`) |
//! | [`MicroTime`] | RFC 3339 string, six fractional digits, UTC |
//! | [`Bytes`] | standard base64 with padding |

mod bytes;
mod int_or_string;
mod quantity;
mod time;

pub use bytes::Bytes;
pub use int_or_string::IntOrString;
pub use quantity::{Amount, Quantity, QuantityError};
pub use time::{MicroTime, ParseTimeError, Time, is_date};
