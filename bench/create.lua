-- wrk script for bench/run: every request creates a new 2 KiB paste.
--
-- POST / with a raw body is snip's plain create; a successful one answers
-- 201 Created with the paste URL. wrk counts anything >= 400 as
-- "Non-2xx or 3xx responses", which bench/run checks so that a run of
-- 400s or 413s is never reported as a create benchmark.

-- 64 lines of 32 bytes: 2048 bytes of plain text.
local line = "snip bench: 2 KiB paste body...\n"
assert(#line == 32)

wrk.method = "POST"
wrk.path = "/"
wrk.body = string.rep(line, 64)
wrk.headers["Content-Type"] = "application/octet-stream"
