//! End-to-end tests of ferrax live in `tests/tests/`; this library is empty.
