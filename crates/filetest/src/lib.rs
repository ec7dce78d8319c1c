//! The driver for the `ir/` corpus.
