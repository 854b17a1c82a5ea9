//! The route table: every route of the HTTP API, once. Each [`Route`] says
//! its method and path template, its [`Group`] (which decides the
//! middleware around it), its handler, and whether the fast path
//! ([`crate::http::pipeline::hot`]) serves it too.
//!
//! [`make_router`] builds axum's router from the table, [`fast_routes`] are
//! the entries the fast path recognises, and [`operations`] is what
//! `tests/it/openapi.rs` compares with `docs/openapi.json`.

use axum::Router;
use axum::handler::Handler;
use axum::http::Method;
use axum::routing::{MethodFilter, MethodRouter, on};

use super::handlers::{
    admin, backup, create, delete, embed, files, hastebin, language, list, login, loopback, meta,
    my, oidc, ops, program, read, session, teams,
};
use super::pipeline::auth;
use super::pipeline::finish::FinishLayer;
use super::pipeline::hot::{Fast, FastRoute};
use super::render;
use super::state::SharedState;

/// The middleware group of a route: routes of one group share the
/// per-route middleware (`Group::layered`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// Every route that touches pastes: it knows its caller and is rate
    /// limited ([`auth::AuthLayer`]).
    Pastes,
    /// Pages that work for anonymous browsers under any policy (they offer
    /// sign-in) and resolve a session themselves; limited by client IP
    /// ([`auth::limit_pages`]).
    Pages,
    /// Signing in and out; they count against the pages' bucket in their
    /// handlers.
    Session,
    /// The admin API; every handler checks the admin token first.
    Admin,
    /// Probes, robots and the API document.
    Ops,
    /// `/metrics`, routed on the main listener only with `--metrics-public`.
    Metrics,
    /// The pages' static assets.
    Assets,
}

impl Group {
    /// Every group, in the order the router merges them.
    const ALL: [Self; 7] = [
        Self::Pastes,
        Self::Pages,
        Self::Session,
        Self::Admin,
        Self::Ops,
        Self::Metrics,
        Self::Assets,
    ];

    /// `router` (this group's routes) with the group's middleware.
    fn layered(self, router: Router<SharedState>, state: &SharedState) -> Router<SharedState> {
        match self {
            Self::Pastes => router.route_layer(auth::AuthLayer::new(state.clone())),
            Self::Pages => router.route_layer(axum::middleware::from_fn_with_state(
                state.clone(),
                auth::limit_pages,
            )),
            Self::Session | Self::Admin | Self::Ops | Self::Metrics | Self::Assets => router,
        }
    }
}

/// The methods the API routes.
#[derive(Debug, Clone, Copy)]
enum Verb {
    Get,
    Post,
    Patch,
    Put,
    Delete,
}

impl Verb {
    fn method(self) -> Method {
        match self {
            Self::Get => Method::GET,
            Self::Post => Method::POST,
            Self::Patch => Method::PATCH,
            Self::Put => Method::PUT,
            Self::Delete => Method::DELETE,
        }
    }

    fn filter(self) -> MethodFilter {
        match self {
            Self::Get => MethodFilter::GET,
            Self::Post => MethodFilter::POST,
            Self::Patch => MethodFilter::PATCH,
            Self::Put => MethodFilter::PUT,
            Self::Delete => MethodFilter::DELETE,
        }
    }
}

/// One route: one method on one path template.
#[derive(Debug)]
pub struct Route {
    pub method: Method,
    /// The path template, as axum matches it and the metrics label it.
    pub path: &'static str,
    pub group: Group,
    /// How the fast path serves it, if it does.
    pub fast: Option<Fast>,
    /// The handler, routed for [`Route::method`] only.
    pub handler: MethodRouter<SharedState>,
}

impl Route {
    /// `handler` serving `verb` on `path`, in `group`.
    fn new<H, T>(verb: Verb, path: &'static str, group: Group, handler: H) -> Self
    where
        H: Handler<T, SharedState>,
        T: 'static,
    {
        Self {
            method: verb.method(),
            path,
            group,
            fast: None,
            handler: on(verb.filter(), handler),
        }
    }

    /// The same route, also served by the fast path as `fast`.
    fn fast(self, fast: Fast) -> Self {
        Self {
            fast: Some(fast),
            ..self
        }
    }
}

/// Every route of the API (a table: one line a route, as written).
#[rustfmt::skip]
pub fn routes() -> Vec<Route> {
    use Group::{Admin, Assets, Metrics, Ops, Pages, Pastes, Session};
    use Verb::{Delete, Get, Patch, Post, Put};
    vec![
        Route::new(Post, "/", Pastes, create::create).fast(Fast::Create),
        Route::new(Get, "/api/pastes", Pastes, list::list),
        Route::new(Get, "/api/pastes/{id}", Pastes, meta::metadata),
        Route::new(Get, "/raw/{id}", Pastes, read::raw).fast(Fast::Raw),
        Route::new(Get, "/raw/{id}/{name}", Pastes, files::raw_file).fast(Fast::RawFile),
        Route::new(Get, "/download/{id}", Pastes, read::download),
        Route::new(Post, "/{id}/reveal", Pastes, read::reveal),
        Route::new(Post, "/documents", Pastes, hastebin::create),
        Route::new(Get, "/documents/{id}", Pastes, hastebin::read),
        Route::new(Get, "/embed/{id}", Pastes, embed::embed),
        Route::new(Get, "/oembed", Pastes, embed::oembed),
        Route::new(Get, "/{id}", Pastes, read::view),
        Route::new(Delete, "/{id}", Pastes, delete::delete),
        Route::new(Get, "/", Pages, create::form),
        Route::new(Get, "/new", Pages, create::form),
        Route::new(Get, "/signin", Pages, session::form),
        Route::new(Get, "/my", Pages, my::my),
        Route::new(Post, "/signin", Session, session::signin),
        Route::new(Post, "/signout", Session, session::signout),
        Route::new(Post, "/lang", Session, language::choose),
        Route::new(Post, "/session/tenant", Pastes, teams::switch),
        Route::new(Get, "/signin/oidc", Session, oidc::start),
        Route::new(Get, "/signin/oidc/callback", Session, oidc::callback),
        Route::new(Post, "/api/login/device", Session, login::device_start),
        Route::new(Post, "/api/login/device/token", Session, login::device_token),
        Route::new(Post, "/api/login/loopback", Session, loopback::start),
        Route::new(Post, "/api/login/loopback/token", Session, loopback::token),
        Route::new(Get, "/api/login", Pastes, login::whoami),
        Route::new(Post, "/api/login/refresh", Pastes, login::refresh),
        Route::new(Delete, "/api/login", Pastes, login::logout),
        Route::new(Get, "/api/admin/tenants", Admin, admin::list_tenants),
        Route::new(Post, "/api/admin/tenants", Admin, admin::create_tenant),
        Route::new(Patch, "/api/admin/tenants/{name}", Admin, admin::update_tenant),
        Route::new(Delete, "/api/admin/tenants/{name}", Admin, admin::delete_tenant),
        Route::new(Get, "/api/admin/tenants/{name}/tokens", Admin, admin::list_tokens),
        Route::new(Post, "/api/admin/tenants/{name}/tokens", Admin, admin::create_token),
        Route::new(Put, "/api/admin/tenants/{name}/program", Admin, program::set_program),
        Route::new(Get, "/api/admin/tenants/{name}/program", Admin, program::show_program),
        Route::new(Delete, "/api/admin/tenants/{name}/program", Admin, program::clear_program),
        Route::new(Delete, "/api/admin/tokens/{id}", Admin, admin::revoke_token),
        Route::new(Get, "/api/admin/backup", Admin, backup::backup),
        Route::new(Get, "/healthz", Ops, ops::healthz),
        Route::new(Get, "/readyz", Ops, ops::readyz),
        Route::new(Get, "/robots.txt", Ops, ops::robots),
        Route::new(Get, "/api/openapi.json", Ops, ops::spec),
        Route::new(Get, "/metrics", Metrics, ops::render_metrics),
        Route::new(Get, "/assets/{file}", Assets, render::assets::serve),
    ]
}

/// `(method, path template)` of every route, for comparing with the API
/// document.
pub fn operations() -> Vec<(Method, &'static str)> {
    routes().into_iter().map(|r| (r.method, r.path)).collect()
}

/// The routes the fast path serves.
pub fn fast_routes() -> Vec<FastRoute> {
    routes()
        .into_iter()
        .filter_map(|r| {
            r.fast.map(|fast| FastRoute {
                method: r.method,
                template: r.path,
                fast,
            })
        })
        .collect()
}

/// The router of every route (`/metrics` only when the main listener
/// serves it), each group with its middleware, and around all of them the
/// response layer ([`FinishLayer`]).
pub fn make_router(state: SharedState) -> Router {
    let routes = routes();
    let mut router = Router::new();
    for group in Group::ALL {
        if group == Group::Metrics && !state.metrics_on_main {
            continue;
        }
        let part = routes
            .iter()
            .filter(|r| r.group == group)
            .fold(Router::new(), |part, r| {
                part.route(r.path, r.handler.clone())
            });
        router = router.merge(group.layered(part, &state));
    }
    router
        .fallback(ops::no_route)
        .with_state(state.clone())
        .layer(FinishLayer::new(state))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::PasteId;
    use crate::http::pipeline::hot::Hot;

    /// No route is listed twice.
    #[test]
    fn every_operation_once() {
        let mut operations = operations();
        let count = operations.len();
        operations.sort_by(|a, b| (a.1, a.0.as_str()).cmp(&(b.1, b.0.as_str())));
        operations.dedup();
        assert_eq!(operations.len(), count);
    }

    /// The hot request of `method` and `path`, by the table's fast routes.
    fn hot(method: &Method, path: &str) -> Option<Hot> {
        fast_routes().iter().find_map(|r| r.hot(method, path))
    }

    /// Every fast route is recognised (its template fits its [`Fast`]).
    #[test]
    fn every_fast_route_is_recognised() {
        let id = PasteId::generate(12).unwrap();
        for route in fast_routes() {
            let path = route.template.replace("{id}", id.as_str());
            assert!(route.hot(&route.method, &path).is_some(), "{route:?}");
        }
    }

    /// No fixed route is ever taken for a hot one: the hot `/{id}` would
    /// otherwise shadow it.
    #[test]
    fn hot_routes_never_shadow_fixed_routes() {
        for route in routes() {
            if route.path.contains('{') {
                continue;
            }
            let expected = route.fast.map(|_| Hot::Create);
            assert_eq!(hot(&route.method, route.path), expected, "{route:?}");
        }
    }

    #[test]
    fn recognises_only_well_formed_ids() {
        let id = PasteId::generate(12).unwrap();
        let id = id.as_str();
        let (raw, view) = (format!("/raw/{id}"), format!("/{id}"));
        let parsed = PasteId::parse(id).unwrap();
        assert_eq!(hot(&Method::GET, &raw), Some(Hot::Raw(parsed.clone())));
        // A view is routed: the shortcut gained it nothing (docs/design.md).
        assert_eq!(hot(&Method::GET, &view), None);
        assert_eq!(hot(&Method::POST, "/"), Some(Hot::Create));
        // IDs are case-insensitive on input.
        let upper = format!("/raw/{}", id.to_ascii_uppercase());
        assert_eq!(hot(&Method::GET, &upper), Some(Hot::Raw(parsed)));
        // Everything unsure goes to the router.
        for path in [
            format!("/raw/{id}/"),
            format!("/{id}/reveal"),
            format!("//{id}"),
            format!("/%32{}", &id[1..]),
            "/raw/".to_owned(),
            "/".to_owned(),
        ] {
            assert_eq!(hot(&Method::GET, &path), None, "{path}");
        }
        assert_eq!(hot(&Method::HEAD, &format!("/{id}")), None);
        assert_eq!(hot(&Method::DELETE, &format!("/{id}")), None);
        assert_eq!(hot(&Method::PUT, "/"), None);
    }
}
