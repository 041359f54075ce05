//! The generator.
