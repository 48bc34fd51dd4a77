//! The operating system, in one place.

pub mod memory;
