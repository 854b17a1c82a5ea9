-- The vocabulary of bench/search's pastes and queries: 2,000 words, the
-- first the most common, and `word()`, which draws the i-th with
-- probability about 1/i (a few common, most rare, as in real text). Made,
-- not read from anywhere: a hundred words of logs and code, then made-up
-- ones (each a single word to a search: letters only).

local common = {
    "error", "info", "warn", "debug", "request", "response", "user", "server",
    "client", "connection", "timeout", "failed", "started", "stopped", "retry",
    "database", "query", "cache", "miss", "hit", "token", "session", "login",
    "logout", "upload", "download", "build", "deploy", "release", "version",
    "config", "service", "worker", "queue", "job", "task", "thread", "process",
    "memory", "disk", "network", "socket", "port", "host", "path", "file",
    "directory", "permission", "denied", "refused", "reset", "closed", "open",
    "read", "write", "commit", "rollback", "transaction", "lock", "unlock",
    "panic", "exception", "stack", "trace", "line", "column", "function",
    "method", "class", "module", "import", "export", "return", "value", "null",
    "true", "false", "string", "number", "array", "object", "map", "list",
    "index", "key", "record", "row", "table", "schema", "migration", "backup",
    "restore", "snapshot", "metric", "latency", "throughput", "health", "ready",
}

local vocabulary = {}
for _, w in ipairs(common) do
    table.insert(vocabulary, w)
end
local consonants = { "b", "c", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z" }
local vowels = { "a", "e", "i", "o", "u" }
local n = 0
while #vocabulary < 2000 do
    -- Three syllables from a counter: every word different, all pronounceable.
    local w, k = "", n
    for _ = 1, 3 do
        w = w .. consonants[k % #consonants + 1] .. vowels[math.floor(k / #consonants) % #vowels + 1]
        k = math.floor(k / (#consonants * #vowels))
    end
    table.insert(vocabulary, w)
    n = n + 1
end

local function word()
    local n = #vocabulary
    local i = math.floor(math.exp(math.random() * math.log(n)))
    return vocabulary[math.max(1, math.min(n, i))]
end

return { words = vocabulary, word = word }
