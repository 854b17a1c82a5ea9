//! The tenant's program on the create path: run once the whole paste is
//! known and before anything is stored, it accepts the paste, refuses it
//! (`422 policy_refused`, with the program's reason) or replaces its body.
//! A program that fails in any way refuses the paste too (`422
//! policy_failed`, naming the failure): a policy fails closed.

use std::sync::Arc;

use axum::http::StatusCode;
use bytes::Bytes;

use super::options::CreateOptions;
use crate::core::Ttl;
use crate::core::tenant::Tenant;
use crate::http::api_error::{ApiError, ErrorCode};
use crate::http::state::SharedState;
use crate::programs::{CheckMeta, Failure, Limits, Program, Verdict};

/// `body` as `tenant`'s program leaves it (unchanged if it has none).
pub(super) async fn apply(
    state: &SharedState,
    tenant: &Tenant,
    options: &CreateOptions,
    ttl: Ttl,
    body: Bytes,
    max_body: u64,
) -> Result<Bytes, ApiError> {
    let Some(info) = tenant.program.as_deref() else {
        return Ok(body);
    };
    let program = match state.programs.cached(&info.sha256) {
        Some(program) => program,
        None => match load(state, &tenant.name).await? {
            Some(program) => program,
            // Cleared since the tenant was read: there is no policy.
            None => return Ok(body),
        },
    };
    let defaults = state.programs.defaults();
    let limits = Limits {
        fuel: tenant.program_fuel.unwrap_or(defaults.fuel),
        memory: tenant.program_memory.unwrap_or(defaults.memory),
    };
    let meta = CheckMeta {
        tenant: &tenant.name,
        name: options.name.as_deref(),
        lang: options.lang.as_deref(),
        size: body.len() as u64,
        visibility: options.visibility,
        burn: options.burn,
        ttl: match ttl {
            Ttl::After(duration) => Some(duration.as_secs()),
            Ttl::Never => None,
        },
        encrypted: options.encrypted,
        files: None,
    }
    .to_json();
    let verdict = state
        .programs
        .run(program, limits, body.clone(), meta, max_body)
        .await;
    match verdict {
        Ok(Verdict::Accept) => Ok(body),
        Ok(Verdict::Refuse(reason)) => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::PolicyRefused,
            reason,
        )),
        Ok(Verdict::Replace(_)) if options.url.is_some() => Err(failed(
            &tenant.name,
            &Failure::Nonsense("it replaced a short link's target".into()),
        )),
        Ok(Verdict::Replace(replaced)) => Ok(Bytes::from(replaced)),
        Err(failure) => Err(failed(&tenant.name, &failure)),
    }
}

/// The tenant's module from the store, compiled (and kept for the next run).
async fn load(state: &SharedState, tenant: &str) -> Result<Option<Program>, ApiError> {
    let Some(module) = state.store.program(tenant).await? else {
        return Ok(None);
    };
    let bytes: Arc<[u8]> = module.as_ref().into();
    match state.programs.compile(bytes).await {
        Ok(program) => Ok(Some(program)),
        Err(e) => Err(failed(tenant, &Failure::Compile(e.to_string()))),
    }
}

fn failed(tenant: &str, failure: &Failure) -> ApiError {
    tracing::info!(tenant, %failure, "a tenant's program failed; the paste is refused");
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        ErrorCode::PolicyFailed,
        format!("the paste is refused because this tenant's policy program failed: {failure}"),
    )
}
