//! Wire-fidelity tests of the generated API types live in `tests/`; this library is empty.
