//! The threat searcher for boards too large to search to the end.

#![allow(dead_code)]

mod field;
mod shape;
