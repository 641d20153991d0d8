//! HEC's answers: `{"text": …, "code": N}` with the HTTP status Splunk pairs with each code
//! (docs/API.md has the table), plus `ackId` on success with acknowledgement and
//! `invalid-event-number` when one event of a batch is at fault.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// One HEC status code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// 0, 200.
    Success,
    /// 1, 403.
    TokenDisabled,
    /// 2, 401.
    TokenRequired,
    /// 3, 401.
    InvalidAuthorization,
    /// 4, 403.
    InvalidToken,
    /// 5, 400.
    NoData,
    /// 6, 400.
    InvalidDataFormat,
    /// 7, 400.
    IncorrectIndex,
    /// 8, 500.
    InternalError,
    /// 9, 503.
    ServerBusy,
    /// 10, 400.
    ChannelMissing,
    /// 11, 400.
    InvalidChannel,
    /// 12, 400.
    EventRequired,
    /// 13, 400.
    EventBlank,
    /// 14, 400.
    AckDisabled,
    /// 15, 400.
    IndexedFields,
    /// 16, 400.
    QueryStringAuthDisabled,
    /// 17, 200.
    Healthy,
    /// 18, 503.
    QueuesFull,
    /// 23, 503.
    ShuttingDown,
    /// 27, 429.
    AckChannelFull,
}

impl Code {
    /// The number, the HTTP status and the text.
    pub fn parts(self) -> (u16, StatusCode, &'static str) {
        use StatusCode as S;
        match self {
            Code::Success => (0, S::OK, "Success"),
            Code::TokenDisabled => (1, S::FORBIDDEN, "Token disabled"),
            Code::TokenRequired => (2, S::UNAUTHORIZED, "Token is required"),
            Code::InvalidAuthorization => (3, S::UNAUTHORIZED, "Invalid authorization"),
            Code::InvalidToken => (4, S::FORBIDDEN, "Invalid token"),
            Code::NoData => (5, S::BAD_REQUEST, "No data"),
            Code::InvalidDataFormat => (6, S::BAD_REQUEST, "Invalid data format"),
            Code::IncorrectIndex => (7, S::BAD_REQUEST, "Incorrect index"),
            Code::InternalError => (8, S::INTERNAL_SERVER_ERROR, "Internal server error"),
            Code::ServerBusy => (9, S::SERVICE_UNAVAILABLE, "Server is busy"),
            Code::ChannelMissing => (10, S::BAD_REQUEST, "Data channel is missing"),
            Code::InvalidChannel => (11, S::BAD_REQUEST, "Invalid data channel"),
            Code::EventRequired => (12, S::BAD_REQUEST, "Event field is required"),
            Code::EventBlank => (13, S::BAD_REQUEST, "Event field cannot be blank"),
            Code::AckDisabled => (14, S::BAD_REQUEST, "ACK is disabled"),
            Code::IndexedFields => (15, S::BAD_REQUEST, "Error in handling indexed fields"),
            Code::QueryStringAuthDisabled => (
                16,
                S::BAD_REQUEST,
                "Query string authorization is not enabled",
            ),
            Code::Healthy => (17, S::OK, "HEC is healthy"),
            Code::QueuesFull => (
                18,
                S::SERVICE_UNAVAILABLE,
                "HEC is unhealthy, queues are full",
            ),
            Code::ShuttingDown => (23, S::SERVICE_UNAVAILABLE, "Server is shutting down"),
            Code::AckChannelFull => (27, S::TOO_MANY_REQUESTS, "HEC ACK channel at capacity"),
        }
    }
}

/// A HEC answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The code.
    pub code: Code,
    /// `invalid-event-number`: zero-based number of the offending event of the batch.
    pub event: Option<usize>,
    /// `ackId` of an accepted request with acknowledgement.
    pub ack_id: Option<u64>,
    /// Replaces the standard status, code number and text (404, 413 and 415 answers, which
    /// have no HEC code of their own).
    pub status_text: Option<(StatusCode, u16, String)>,
}

impl Reply {
    /// The answer `code`.
    pub fn new(code: Code) -> Reply {
        Reply {
            code,
            event: None,
            ack_id: None,
            status_text: None,
        }
    }

    /// The answer `code` blaming event `n` of the batch.
    pub fn at(code: Code, n: usize) -> Reply {
        Reply {
            event: Some(n),
            ..Reply::new(code)
        }
    }

    /// An answer with its own status, code number and text.
    pub fn status(status: StatusCode, code: u16, text: impl Into<String>) -> Reply {
        Reply {
            status_text: Some((status, code, text.into())),
            ..Reply::new(Code::InvalidDataFormat)
        }
    }

    /// The JSON body.
    pub fn body(&self) -> serde_json::Value {
        let (n, _, text) = self.code.parts();
        let mut o = serde_json::Map::new();
        let (n, text) = match &self.status_text {
            Some((_, n, t)) => (*n, t.as_str()),
            None => (n, text),
        };
        o.insert("text".into(), text.into());
        o.insert("code".into(), n.into());
        if let Some(e) = self.event {
            o.insert("invalid-event-number".into(), e.into());
        }
        if let Some(a) = self.ack_id {
            o.insert("ackId".into(), a.into());
        }
        serde_json::Value::Object(o)
    }
}

impl IntoResponse for Reply {
    fn into_response(self) -> Response {
        let status = match &self.status_text {
            Some((s, _, _)) => *s,
            None => self.code.parts().1,
        };
        (status, Json(self.body())).into_response()
    }
}

impl From<Code> for Reply {
    fn from(c: Code) -> Reply {
        Reply::new(c)
    }
}
