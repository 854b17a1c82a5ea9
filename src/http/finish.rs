//! The one wrapper every response passes through: errors rendered for what
//! the client accepts, then the security headers (a handler's own value, e.g.
//! the raw CSP, wins).
//!
//! A hand-written tower service rather than `axum::middleware::from_fn`: it
//! wraps the whole router once, and its future is a plain struct, so the read
//! path pays no boxed future and no cloned inner service for it (`from_fn`
//! costs both on every request).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use tower::Service;

use super::negotiate::{self, Accepts};
use super::{PAGE_CSP, errors};

/// Wraps a service (the router) so that every response is finished.
#[derive(Debug, Clone)]
pub struct Finish<S> {
    inner: S,
}

impl<S> Finish<S> {
    /// Wraps `inner`.
    pub fn new(inner: S) -> Self {
        Self { inner }
    }
}

impl<S> Service<Request> for Finish<S>
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Finishing<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let wants = negotiate::accepts(request.headers());
        Finishing {
            inner: self.inner.call(request),
            wants,
        }
    }
}

pin_project_lite::pin_project! {
    /// The future of [`Finish`]: the inner response, then [`finish`].
    pub struct Finishing<F> {
        #[pin]
        inner: F,
        wants: Accepts,
    }
}

impl<F> Future for Finishing<F>
where
    F: Future<Output = Result<Response, Infallible>>,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        match this.inner.poll(cx) {
            Poll::Ready(Ok(response)) => Poll::Ready(Ok(finish(*this.wants, response))),
            Poll::Ready(Err(never)) => match never {},
            Poll::Pending => Poll::Pending,
        }
    }
}

/// Renders an error for `wants` and adds the security headers.
fn finish(wants: Accepts, response: Response) -> Response {
    let mut response = errors::render_for(wants, response);
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, PAGE_CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_FRAME_OPTIONS, "DENY"),
    ] {
        if !headers.contains_key(&name) {
            headers.insert(name, HeaderValue::from_static(value));
        }
    }
    response
}
