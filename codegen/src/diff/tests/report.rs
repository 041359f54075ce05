//! The report as a whole.
