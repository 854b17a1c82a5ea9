//! Tenant programs: a tenant's own policy, a WebAssembly module run on every
//! paste it creates ([`Programs`]). A module is compiled once, when it is
//! uploaded or first met, and kept by its SHA-256; each run instantiates it
//! afresh from wasmtime's pooling allocator, under a fuel and a memory limit,
//! at most [`ProgramSettings::concurrency`] at once. A run goes on the
//! request's own task, on one of the pool's fiber stacks, and yields to the
//! executor every [`YIELD_FUEL`] units of fuel, so a long run delays no other
//! request.
//! The ABI is in [`abi`]; `docs/programs.md` describes it for authors.
//!
//! The engine (and the address space its pool reserves) is made on first
//! use, so a server whose tenants have no program pays nothing for it.

pub mod abi;
mod meta;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use sha2::{Digest, Sha256};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, Module, PoolingAllocationConfig};

pub use self::abi::{AbiError, Input};
pub use self::meta::{CheckMeta, FileMeta};

/// The largest module accepted, in bytes.
pub const MAX_MODULE_BYTES: u64 = 4 << 20;

/// The most memory a tenant's limit may allow one run (the pool's slot size).
pub const MAX_MEMORY_BYTES: u64 = 1 << 30;

/// The most fuel a tenant's limit may allow one run.
pub const MAX_FUEL: u64 = 100_000_000_000;

/// Fuel between two yields of a run to the executor (about 50 µs of work).
pub const YIELD_FUEL: u64 = 100_000;

/// Compiled modules kept at most; past this the cache is emptied and refills.
const CACHE_ENTRIES: usize = 256;

/// What one run may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Fuel: roughly one unit per WebAssembly instruction.
    pub fuel: u64,
    /// Bytes of linear memory.
    pub memory: u64,
}

/// The operator's settings (`--program-fuel`, `--program-memory`,
/// `--program-concurrency`).
#[derive(Debug, Clone, Copy)]
pub struct ProgramSettings {
    /// The limits of a tenant that sets none of its own.
    pub defaults: Limits,
    /// Runs at once (instances in the pool).
    pub concurrency: u32,
}

impl Default for ProgramSettings {
    fn default() -> Self {
        Self {
            defaults: Limits {
                fuel: 100_000_000,
                memory: 64 << 20,
            },
            concurrency: 16,
        }
    }
}

/// What a program decided about a paste.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Store the paste as it is.
    Accept,
    /// Refuse it, with this reason (plain text, bounded).
    Refuse(String),
    /// Store this body instead.
    Replace(Vec<u8>),
}

/// Why a run failed; the create fails closed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// The program used up its fuel (it loops, or does too much).
    #[error("it used up its CPU budget (fuel)")]
    OutOfFuel,
    /// The program went past its memory limit.
    #[error("it went past its memory limit")]
    OutOfMemory,
    /// The program trapped (or could not be instantiated).
    #[error("it trapped: {0}")]
    Trap(String),
    /// The program answered outside the ABI.
    #[error("it answered nonsense: {0}")]
    Nonsense(String),
    /// The module no longer compiles (a stored module this build refuses).
    #[error("its module does not compile: {0}")]
    Compile(String),
}

/// Why an uploaded module was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModuleError {
    /// It is not a valid WebAssembly module, or uses a feature not enabled.
    #[error("the module does not compile: {0}")]
    Compile(String),
    /// It does not follow the ABI.
    #[error(transparent)]
    Abi(#[from] AbiError),
}

/// A module compiled and checked against the ABI.
#[derive(Clone)]
pub struct Program {
    module: Module,
}

/// The runtime: the engine, made on first use, and the compiled modules.
pub struct Programs {
    settings: ProgramSettings,
    engine: OnceLock<Result<Engine, String>>,
    cache: Mutex<HashMap<[u8; 32], Program>>,
    permits: Arc<tokio::sync::Semaphore>,
}

/// The SHA-256 of a module's bytes, which names it.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

impl Programs {
    /// A runtime with `settings`; nothing is reserved until a program runs.
    pub fn new(settings: ProgramSettings) -> Self {
        let concurrency = settings.concurrency.max(1);
        Self {
            settings: ProgramSettings {
                concurrency,
                ..settings
            },
            engine: OnceLock::new(),
            cache: Mutex::new(HashMap::new()),
            permits: Arc::new(tokio::sync::Semaphore::new(concurrency as usize)),
        }
    }

    /// The operator's default limits.
    pub fn defaults(&self) -> Limits {
        self.settings.defaults
    }

    fn engine(&self) -> Result<&Engine, Failure> {
        self.engine
            .get_or_init(|| make_engine(self.settings.concurrency).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| Failure::Compile(format!("the runtime did not start: {e}")))
    }

    /// Compiles `bytes` and checks them against the ABI (on a blocking
    /// thread: Cranelift's work takes milliseconds per kilobyte).
    pub async fn compile(self: &Arc<Self>, bytes: Arc<[u8]>) -> Result<Program, ModuleError> {
        let this = Arc::clone(self);
        tokio::task::spawn_blocking(move || this.compile_now(&bytes))
            .await
            .unwrap_or_else(|e| Err(ModuleError::Compile(e.to_string())))
    }

    fn compile_now(&self, bytes: &[u8]) -> Result<Program, ModuleError> {
        let hash = sha256(bytes);
        if let Some(program) = self.cached(&hash) {
            return Ok(program);
        }
        let engine = self
            .engine()
            .map_err(|e| ModuleError::Compile(e.to_string()))?;
        let module = Module::new(engine, bytes).map_err(|e| {
            // The root cause says what is wrong; the chain repeats context.
            ModuleError::Compile(format!("{e:#}"))
        })?;
        abi::check_exports(&module)?;
        let program = Program { module };
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if cache.len() >= CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(hash, program.clone());
        Ok(program)
    }

    /// The compiled module named `hash`, if it was compiled already.
    pub fn cached(&self, hash: &[u8; 32]) -> Option<Program> {
        let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        cache.get(hash).cloned()
    }

    /// Runs `program` once on `body` with `meta`, under `limits`, once one of
    /// the pool's instances is free.
    pub async fn run(
        &self,
        program: Program,
        limits: Limits,
        body: bytes::Bytes,
        meta: Vec<u8>,
        max_body: u64,
    ) -> Result<Verdict, Failure> {
        let engine = self.engine()?.clone();
        let permit = Arc::clone(&self.permits)
            .acquire_owned()
            .await
            .map_err(|e| Failure::Trap(e.to_string()))?;
        let input = Input {
            body: &body,
            meta: &meta,
            max_body,
        };
        let verdict = abi::run(&engine, &program.module, limits, &input).await;
        drop(permit);
        verdict
    }
}

/// The engine: Cranelift, fuel, a pool of `concurrency` instances each with
/// one memory of at most [`MAX_MEMORY_BYTES`], one table and one fiber stack
/// (runs are async: they yield between slices of fuel).
fn make_engine(concurrency: u32) -> wasmtime::Result<Engine> {
    let mut pool = PoolingAllocationConfig::new();
    pool.total_core_instances(concurrency)
        .total_stacks(concurrency)
        .total_memories(concurrency)
        .total_tables(concurrency)
        .total_component_instances(0)
        .max_memories_per_module(1)
        .max_tables_per_module(1)
        .table_elements(10_000)
        .max_memory_size(MAX_MEMORY_BYTES as usize)
        // Keep a finished run's pages resident up to this much, so the next
        // run on the slot does not fault them in again.
        .linear_memory_keep_resident(1 << 20);
    let mut config = Config::new();
    config
        .consume_fuel(true)
        .async_support(true)
        .async_stack_size(1 << 20)
        .allocation_strategy(InstanceAllocationStrategy::Pooling(pool))
        .max_wasm_stack(512 << 10);
    Engine::new(&config)
}

#[cfg(test)]
mod tests;
