//! The program ABI, version 1: what a module must export ([`check_exports`])
//! and one run of it against a paste ([`run`]), in a store made for that run
//! and dropped after it, under a fuel and a memory limit.
//!
//! A module exports `memory`, `alloc(len) -> ptr`,
//! `check(body_ptr, body_len, meta_ptr, meta_len) -> verdict`,
//! `output_ptr() -> ptr` and `output_len() -> len`, all `i32`; it imports
//! nothing. `docs/programs.md` is the authors' description.

use wasmtime::{
    Engine, ExternType, FuncType, Instance, Memory, Module, ResourceLimiter, Store, Trap,
    TypedFunc, ValType,
};

use super::{Failure, Limits, Verdict};

/// The longest refusal reason passed to the client, in bytes; a longer one
/// is cut at a character boundary.
pub const MAX_REASON_BYTES: usize = 1024;

/// Why a module is not a program (the upload is refused with this).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AbiError {
    /// The module imports something; programs get no imports.
    #[error("the module imports {0}; programs get no imports")]
    Imports(String),
    /// An export is missing or of the wrong type.
    #[error("the module must export {0}")]
    Export(&'static str),
}

/// The exports a program needs, with the type each must have.
const FUNCTIONS: &[(&str, usize, &str)] = &[
    ("alloc", 1, "a function `alloc(len: i32) -> i32`"),
    (
        "check",
        4,
        "a function `check(body_ptr: i32, body_len: i32, meta_ptr: i32, meta_len: i32) -> i32`",
    ),
    ("output_ptr", 0, "a function `output_ptr() -> i32`"),
    ("output_len", 0, "a function `output_len() -> i32`"),
];

/// Whether `ty` takes `params` `i32`s and answers one `i32`.
fn is_i32_function(ty: &FuncType, params: usize) -> bool {
    ty.params().len() == params
        && ty.params().all(|p| matches!(p, ValType::I32))
        && ty.results().len() == 1
        && ty.results().all(|r| matches!(r, ValType::I32))
}

/// Checks that `module` imports nothing and has every export of the ABI.
pub fn check_exports(module: &Module) -> Result<(), AbiError> {
    if let Some(import) = module.imports().next() {
        return Err(AbiError::Imports(format!(
            "`{}.{}`",
            import.module(),
            import.name()
        )));
    }
    match module.get_export("memory") {
        Some(ExternType::Memory(memory)) if !memory.is_64() && !memory.is_shared() => {}
        _ => return Err(AbiError::Export("a 32-bit, unshared memory `memory`")),
    }
    for &(name, params, what) in FUNCTIONS {
        match module.get_export(name) {
            Some(ExternType::Func(ty)) if is_i32_function(&ty, params) => {}
            _ => return Err(AbiError::Export(what)),
        }
    }
    Ok(())
}

/// A run's store data: the memory limit, and whether the program went past it.
struct Limiter {
    memory: usize,
    exceeded: bool,
}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.memory {
            self.exceeded = true;
            return Err(wasmtime::Error::msg("over the memory limit"));
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        // Tables hold function references; a program needs few.
        Ok(desired <= 10_000)
    }
}

/// What one run reads: the paste's bytes and its meta as JSON.
pub struct Input<'a> {
    /// The body (the ciphertext of an encrypted paste).
    pub body: &'a [u8],
    /// The meta JSON object.
    pub meta: &'a [u8],
    /// The largest body a replacement may have.
    pub max_body: u64,
}

/// Runs `module`'s `check` once on `input`, in a fresh instance, yielding
/// to the executor every [`super::YIELD_FUEL`] units of fuel.
pub async fn run(
    engine: &Engine,
    module: &Module,
    limits: Limits,
    input: &Input<'_>,
) -> Result<Verdict, Failure> {
    let mut store = Store::new(
        engine,
        Limiter {
            memory: usize::try_from(limits.memory).unwrap_or(usize::MAX),
            exceeded: false,
        },
    );
    store.limiter(|limiter| limiter);
    store
        .set_fuel(limits.fuel)
        .and_then(|()| store.fuel_async_yield_interval(Some(super::YIELD_FUEL)))
        .map_err(|e| Failure::Trap(e.to_string()))?;
    let outcome = call(&mut store, module, input).await;
    outcome.map_err(|error| match error {
        Step::Nonsense(what) => Failure::Nonsense(what),
        Step::Wasm(_) if store.data().exceeded => Failure::OutOfMemory,
        Step::Wasm(e) => match e.downcast_ref::<Trap>() {
            Some(Trap::OutOfFuel) => Failure::OutOfFuel,
            Some(trap) => Failure::Trap(trap.to_string()),
            None => Failure::Trap(e.root_cause().to_string()),
        },
    })
}

/// Why a step of a run stopped.
enum Step {
    /// The runtime stopped it (a trap, fuel, a limit, instantiation).
    Wasm(wasmtime::Error),
    /// The program answered something outside the ABI.
    Nonsense(String),
}

impl From<wasmtime::Error> for Step {
    fn from(e: wasmtime::Error) -> Self {
        Self::Wasm(e)
    }
}

fn function<P, R>(
    store: &mut Store<Limiter>,
    instance: &Instance,
    name: &str,
) -> Result<TypedFunc<P, R>, Step>
where
    P: wasmtime::WasmParams,
    R: wasmtime::WasmResults,
{
    instance
        .get_typed_func::<P, R>(&mut *store, name)
        .map_err(|_| Step::Nonsense(format!("it has no function `{name}` of the ABI")))
}

async fn call(
    store: &mut Store<Limiter>,
    module: &Module,
    input: &Input<'_>,
) -> Result<Verdict, Step> {
    let instance = Instance::new_async(&mut *store, module, &[]).await?;
    let memory = instance
        .get_memory(&mut *store, "memory")
        .ok_or_else(|| Step::Nonsense("it exports no memory".into()))?;
    let alloc = function::<i32, i32>(store, &instance, "alloc")?;
    let check = function::<(i32, i32, i32, i32), i32>(store, &instance, "check")?;
    let output_ptr = function::<(), i32>(store, &instance, "output_ptr")?;
    let output_len = function::<(), i32>(store, &instance, "output_len")?;

    let (body_ptr, body_len) = place(store, memory, &alloc, input.body).await?;
    let (meta_ptr, meta_len) = place(store, memory, &alloc, input.meta).await?;
    let verdict = check
        .call_async(&mut *store, (body_ptr, body_len, meta_ptr, meta_len))
        .await?;
    if verdict == 0 {
        return Ok(Verdict::Accept);
    }
    if verdict != 1 && verdict != 2 {
        return Err(Step::Nonsense(format!(
            "check answered {verdict}, not 0, 1 or 2"
        )));
    }
    let ptr = output_ptr.call_async(&mut *store, ()).await?;
    let len = output_len.call_async(&mut *store, ()).await?;
    let output = read(store, memory, ptr, len)?;
    if verdict == 1 {
        Ok(Verdict::Refuse(reason(output)))
    } else if output.len() as u64 > input.max_body {
        Err(Step::Nonsense(format!(
            "its replacement body ({} bytes) is larger than the paste limit ({} bytes)",
            output.len(),
            input.max_body
        )))
    } else {
        Ok(Verdict::Replace(output.to_vec()))
    }
}

/// Asks the program for `bytes.len()` bytes and copies `bytes` there.
async fn place(
    store: &mut Store<Limiter>,
    memory: Memory,
    alloc: &TypedFunc<i32, i32>,
    bytes: &[u8],
) -> Result<(i32, i32), Step> {
    let len = i32::try_from(bytes.len())
        .map_err(|_| Step::Nonsense("the paste is larger than a 32-bit memory".into()))?;
    let ptr = alloc.call_async(&mut *store, len).await?;
    let start =
        usize::try_from(ptr).map_err(|_| Step::Nonsense(format!("alloc({len}) answered {ptr}")))?;
    memory
        .write(&mut *store, start, bytes)
        .map_err(|_| Step::Nonsense(format!("alloc({len}) answered {ptr}, outside its memory")))?;
    Ok((ptr, len))
}

/// The output the program points at, checked to lie within its memory.
fn read(store: &Store<Limiter>, memory: Memory, ptr: i32, len: i32) -> Result<&[u8], Step> {
    let range = usize::try_from(ptr)
        .ok()
        .zip(usize::try_from(len).ok())
        .and_then(|(start, len)| Some(start..start.checked_add(len)?));
    range
        .and_then(|range| memory.data(store).get(range))
        .ok_or_else(|| {
            Step::Nonsense(format!(
                "its output ({len} bytes at {ptr}) lies outside its memory"
            ))
        })
}

/// A refusal reason as the client sees it: UTF-8 (invalid bytes replaced),
/// control characters as spaces, at most [`MAX_REASON_BYTES`].
fn reason(output: &[u8]) -> String {
    let text = String::from_utf8_lossy(output);
    let mut reason = String::with_capacity(text.len().min(MAX_REASON_BYTES));
    for c in text.trim().chars() {
        let c = if c.is_control() { ' ' } else { c };
        if reason.len() + c.len_utf8() > MAX_REASON_BYTES {
            break;
        }
        reason.push(c);
    }
    if reason.is_empty() {
        "the tenant's policy refused this paste".to_owned()
    } else {
        reason
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reason is plain text on one line, bounded in length.
    #[test]
    fn reasons_are_plain_and_bounded() {
        assert_eq!(reason(b"no keys\n\x1b[31mplease"), "no keys  [31mplease");
        assert_eq!(reason(b""), "the tenant's policy refused this paste");
        let long = "é".repeat(MAX_REASON_BYTES);
        let cut = reason(long.as_bytes());
        assert!(cut.len() <= MAX_REASON_BYTES && cut.chars().all(|c| c == 'é'));
        assert_eq!(reason(&[0xff, b'x']), "\u{fffd}x");
    }
}
