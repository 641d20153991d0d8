//! Deterministic generator of realistic machine data with planted search targets.
