//! The one mapping from errors to HTTP responses: 4xx carry the user's diagnostic, 5xx a generic
//! body while the real error is logged.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// An API failure.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The request is wrong (bad SPL, bad parameter); the message says how.
    #[error("{0}")]
    BadRequest(String),
    /// A named thing does not exist.
    #[error("{0}")]
    NotFound(String),
    /// The server is overloaded or shutting down.
    #[error("{0}")]
    Unavailable(String),
    /// A fault of ours; logged, not shown.
    #[error("internal error: {0}")]
    Internal(String),
}

impl From<lode_search::SearchError> for ApiError {
    fn from(e: lode_search::SearchError) -> ApiError {
        use lode_search::SearchError as E;
        match e {
            E::Parse(p) => {
                ApiError::BadRequest(format!("Error in 'search' command: {}", p.message))
            }
            E::User(m) => ApiError::BadRequest(m),
            E::Limit(m) => ApiError::BadRequest(format!("search limit exceeded: {m}")),
            other => ApiError::Internal(other.to_string()),
        }
    }
}

impl From<lode_node::NodeError> for ApiError {
    fn from(e: lode_node::NodeError) -> ApiError {
        match e {
            lode_node::NodeError::UnknownIndex(i) => {
                ApiError::NotFound(format!("index '{i}' does not exist"))
            }
            other => ApiError::Internal(other.to_string()),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, text) = match &self {
            ApiError::BadRequest(m) => (StatusCode::BAD_REQUEST, m.clone()),
            ApiError::NotFound(m) => (StatusCode::NOT_FOUND, m.clone()),
            ApiError::Unavailable(m) => (StatusCode::SERVICE_UNAVAILABLE, m.clone()),
            ApiError::Internal(m) => {
                tracing::error!(error = %m, "request failed");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal error; see the server log".to_string(),
                )
            }
        };
        (status, Json(serde_json::json!({ "error": text }))).into_response()
    }
}
