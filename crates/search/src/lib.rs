//! Search planning and execution over Lode indexes.
