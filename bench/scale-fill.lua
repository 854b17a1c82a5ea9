-- wrk script for bench/scale: creates pastes of log-like text until this
-- thread's share of the fill is answered, keeping every k-th URL's ID.
--
-- Arguments (after wrk's `--`): body size in bytes, k (keep every k-th
-- paste's ID), the directory for the kept IDs, and how many creates each
-- thread makes. Bodies are log lines (timestamp, level, method, path,
-- status, duration, request ID), different in every request, because disk
-- use is reported and compression at rest should see text like a real paste.

local levels = { "INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR" }
local methods = { "GET", "GET", "GET", "POST", "PUT", "DELETE" }
local paths = { "/api/v1/users/", "/api/v1/orders/", "/static/app.", "/healthz?probe=",
                "/api/v1/search?q=", "/login?next=/dash/" }
local statuses = { 200, 200, 200, 200, 201, 204, 301, 304, 404, 500 }

local threads = {}

function setup(thread)
    thread:set("number", #threads + 1)
    table.insert(threads, thread)
end

function init(args)
    size = tonumber(args[1])
    keep_every = tonumber(args[2])
    ids_dir = args[3]
    ids_file = io.open(ids_dir .. "/ids." .. number, "w")
    share = tonumber(args[4])
    math.randomseed(os.time() * 100 + number)
    clock = os.time() * 1000
    answered = 0
    wrk.method = "POST"
    wrk.headers["Content-Type"] = "text/plain"
end

local function line()
    clock = clock + math.random(1, 900)
    local ms = clock % 1000
    local s = math.floor(clock / 1000)
    return string.format("%s.%03dZ %-5s %s %s%d %d %.1fms req=%08x\n",
        os.date("!%Y-%m-%dT%H:%M:%S", s), ms,
        levels[math.random(#levels)], methods[math.random(#methods)],
        paths[math.random(#paths)], math.random(1, 999999),
        statuses[math.random(#statuses)], math.random() * 250,
        math.random(0, 0x7fffffff))
end

function request()
    local parts, length = {}, 0
    while length < size do
        local l = line()
        table.insert(parts, l)
        length = length + #l
    end
    local body = string.sub(table.concat(parts), 1, size)
    return wrk.format(nil, "/", nil, body)
end

function response(status, headers, body)
    if answered >= share then
        return -- answers still in flight when the thread stopped
    end
    answered = answered + 1
    if status == 201 and answered % keep_every == 0 then
        local id = string.match(body, "/([%w]+)%s*$")
        if id then
            ids_file:write(id, "\n")
        end
    end
    if answered >= share then
        ids_file:close()
        -- wrk waits out its duration even when every thread has stopped:
        -- bench/scale sees these files and interrupts it.
        io.open(ids_dir .. "/done." .. number, "w"):close()
        wrk.thread:stop()
    end
end
