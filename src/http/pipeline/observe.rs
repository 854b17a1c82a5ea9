//! Per-request observation: the request metrics and the one log line every
//! request gets, recorded by the response layer ([`super::finish::FinishLayer`]).
//!
//! The log line carries the method, the route *template* (`/raw/{id}`), the
//! status, the response body's size, the latency and the client IP. It never
//! carries the path, the query or any header: paths hold paste IDs, queries
//! can hold names and URLs, and headers hold tokens and delete tokens. Paste
//! bodies and `#key` fragments never reach this layer (a fragment never
//! leaves the browser).

use std::net::IpAddr;
use std::time::Instant;

use axum::body::HttpBody;
use axum::extract::MatchedPath;
use axum::http::Method;
use axum::response::Response;

use crate::http::state::SharedState;
use crate::logging::RequestLine;
use crate::metrics::RouteId;

/// What is known about a request when it arrives.
pub struct Probe {
    start: Instant,
    route: RouteId,
    method: Method,
    client: IpAddr,
}

impl Probe {
    /// Starts timing `request` from `client`. `route` is given for a route
    /// served outside the router; otherwise this runs after routing, and
    /// the matched route's template is in the request's extensions.
    pub fn start<B>(
        state: &SharedState,
        request: &axum::http::Request<B>,
        route: Option<RouteId>,
        client: IpAddr,
    ) -> Self {
        let route = route.unwrap_or_else(|| {
            let matched = request.extensions().get::<MatchedPath>();
            state.metrics.route(matched.map(MatchedPath::as_str))
        });
        Self {
            start: Instant::now(),
            route,
            // Standard methods are an enum inside: cloning them does not allocate.
            method: request.method().clone(),
            client,
        }
    }

    /// The request's route.
    pub fn route(&self) -> RouteId {
        self.route
    }

    /// Records the answer in the metrics and logs the request line.
    pub fn finish(self, state: &SharedState, response: &Response) {
        let elapsed = self.start.elapsed();
        let status = response.status();
        state
            .metrics
            .record_request(self.route, &self.method, status, elapsed);
        let size = response.body().size_hint();
        crate::logging::request(&RequestLine {
            method: self.method.as_str(),
            route: state.metrics.route_label(self.route),
            status: status.as_u16(),
            bytes: size.exact().unwrap_or(size.lower()),
            latency: elapsed,
            client: self.client,
        });
    }
}
