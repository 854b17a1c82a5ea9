-- 7: tenant programs (`programs`): a tenant's WebAssembly module, what
-- describes it, and its per-run limits. The module is read only when an
-- instance meets a SHA-256 it has not compiled; every other read of the
-- tenant leaves it out.
ALTER TABLE tenants
    ADD COLUMN program bytea,
    ADD COLUMN program_sha256 bytea,
    ADD COLUMN program_size bigint,
    ADD COLUMN program_set_at bigint,
    ADD COLUMN program_fuel bigint,
    ADD COLUMN program_memory bigint;
ALTER TABLE tenants ALTER COLUMN program SET STORAGE EXTERNAL;
