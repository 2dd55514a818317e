//! `POST /api/register` (`--open`): a new entrant name, answered with its token, shown once.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::rejection::JsonRejection;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::json;

use super::super::registry::Refused;
use super::{Api, ApiError};

/// The address of the client of a connection.
#[derive(Debug, Clone, Copy)]
pub struct Peer(pub IpAddr);

/// `POST /api/register`'s body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegisterBody {
    name: String,
}

/// `POST /api/register`: `{"name", "token"}`, or why not.
pub async fn register(
    State(api): State<Arc<Api>>,
    Extension(Peer(from)): Extension<Peer>,
    body: Result<Json<RegisterBody>, JsonRejection>,
) -> Result<Response, ApiError> {
    let Some(registry) = &api.registry else {
        let why = "registration is not open (the server was not started with `--open`)";
        return Err(ApiError::Bad(StatusCode::FORBIDDEN, why.to_string()));
    };
    let Json(body) = body?;
    let name = body.name.trim();
    match registry.register(&api.hub, from, name) {
        Ok(token) => {
            let body = Json(json!({ "name": name, "token": token }));
            Ok(([(header::CACHE_CONTROL, "no-store")], body).into_response())
        }
        Err(Refused::TooSoon(wait)) => {
            let secs = wait.as_secs().max(1);
            let why = format!("too many registrations: try again in {secs} s");
            let mut response = ApiError::Bad(StatusCode::TOO_MANY_REQUESTS, why).into_response();
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from(secs));
            Ok(response)
        }
        Err(Refused::Name(why)) => Err(ApiError::Bad(StatusCode::BAD_REQUEST, why)),
        Err(Refused::Conflict(why)) => Err(ApiError::Conflict(why)),
        Err(Refused::Failed(why)) => {
            eprintln!("error: {why}");
            let why = "the server cannot record the entrant".to_string();
            Err(ApiError::Bad(StatusCode::INTERNAL_SERVER_ERROR, why))
        }
    }
}
