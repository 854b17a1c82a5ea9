//! The tenant's program on the create path: run once the whole paste is
//! known and before anything is stored, it accepts the paste, refuses it
//! (`422 policy_refused`, with the program's reason) or replaces its body.
//! A program that fails in any way refuses the paste too (`422
//! policy_failed`, naming the failure): a policy fails closed.

use std::sync::Arc;

use axum::http::StatusCode;
use bytes::{Bytes, BytesMut};

use super::options::CreateOptions;
use crate::core::Ttl;
use crate::core::files::PasteFile;
use crate::core::tenant::Tenant;
use crate::http::api_error::{ApiError, ErrorCode};
use crate::http::state::SharedState;
use crate::programs::{CheckMeta, Failure, FileMeta, Limits, Program, Verdict};

/// `body` (and, for a several-file paste, its file table) as `tenant`'s
/// program leaves it (unchanged if it has none). A several-file paste is
/// checked file by file: each run reads one file's bytes, the meta naming
/// that file and listing every file, so a refusal or a replacement is always
/// about one file and the table stays true.
pub(super) async fn apply(
    state: &SharedState,
    tenant: &Tenant,
    options: &CreateOptions,
    ttl: Ttl,
    (body, files): (Bytes, Vec<PasteFile>),
    max_body: u64,
) -> Result<(Bytes, Vec<PasteFile>), ApiError> {
    let Some(info) = tenant.program.as_deref() else {
        return Ok((body, files));
    };
    let program = match state.programs.cached(&info.sha256) {
        Some(program) => program,
        None => match load(state, &tenant.name).await? {
            Some(program) => program,
            // Cleared since the tenant was read: there is no policy.
            None => return Ok((body, files)),
        },
    };
    let defaults = state.programs.defaults();
    let limits = Limits {
        fuel: tenant.program_fuel.unwrap_or(defaults.fuel),
        memory: tenant.program_memory.unwrap_or(defaults.memory),
    };
    let paste = CheckMeta {
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
    };
    let run = Run {
        state,
        tenant: &tenant.name,
        program: &program,
        limits,
        options,
        max_body,
    };
    if files.is_empty() {
        let body = run.check(body, paste.to_json()).await?;
        return Ok((body, files));
    }
    let listed: Vec<FileMeta<'_>> = files
        .iter()
        .map(|file| FileMeta {
            name: Some(&file.name),
            lang: file.lang.as_deref(),
            size: file.size,
        })
        .collect();
    let mut checked_body = BytesMut::with_capacity(body.len());
    let mut checked_files = Vec::with_capacity(files.len());
    let mut offset = 0;
    for file in &files {
        let end = offset + usize::try_from(file.size).unwrap_or(usize::MAX);
        let bytes = body.slice(offset..end.min(body.len()));
        offset = end;
        let meta = CheckMeta {
            name: Some(&file.name),
            lang: file.lang.as_deref(),
            size: file.size,
            files: Some(listed.clone()),
            ..paste.clone()
        };
        let bytes = run.check(bytes, meta.to_json()).await?;
        if bytes.is_empty() {
            let why = format!("it left the file {} empty", file.name);
            return Err(failed(&tenant.name, &Failure::Nonsense(why)));
        }
        checked_files.push(PasteFile {
            size: bytes.len() as u64,
            ..file.clone()
        });
        checked_body.extend_from_slice(&bytes);
    }
    if checked_body.len() as u64 > max_body {
        let why = "its files together outgrew the paste size limit".to_owned();
        return Err(failed(&tenant.name, &Failure::Nonsense(why)));
    }
    Ok((checked_body.freeze(), checked_files))
}

/// One paste's runs of its tenant's program.
struct Run<'a> {
    state: &'a SharedState,
    tenant: &'a str,
    program: &'a Program,
    limits: Limits,
    options: &'a CreateOptions,
    max_body: u64,
}

impl Run<'_> {
    /// `body` as one run of the program leaves it, given `meta`.
    async fn check(&self, body: Bytes, meta: Vec<u8>) -> Result<Bytes, ApiError> {
        let verdict = self
            .state
            .programs
            .run(
                self.program.clone(),
                self.limits,
                body.clone(),
                meta,
                self.max_body,
            )
            .await;
        match verdict {
            Ok(Verdict::Accept) => Ok(body),
            Ok(Verdict::Refuse(reason)) => Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::PolicyRefused,
                reason,
            )),
            Ok(Verdict::Replace(_)) if self.options.url.is_some() => Err(failed(
                self.tenant,
                &Failure::Nonsense("it replaced a short link's target".into()),
            )),
            Ok(Verdict::Replace(replaced)) => Ok(Bytes::from(replaced)),
            Err(failure) => Err(failed(self.tenant, &failure)),
        }
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
