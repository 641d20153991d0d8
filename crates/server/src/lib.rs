//! Lode's HTTP server.
