-- wrk script for bench/search: creates pastes of text drawn from a fixed
-- vocabulary until this thread's share is answered, as a tenant (with its
-- token) or anonymously.
--
-- Arguments (after wrk's `--`): how many creates each thread makes, the
-- body size in bytes, the tenant's token ("-" for anonymous creates), and
-- a directory where each thread leaves a file `done.N` once its share is
-- answered (wrk waits out its duration even when every thread has
-- stopped: bench/search sees these files and interrupts it).
-- Words are drawn with a skewed distribution (a few common, most rare, as
-- in real text), so searches for common words match many pastes and
-- searches for rare ones few; bench/search-query.lua draws from the same
-- vocabulary.

local word = dofile(os.getenv("SEARCH_VOCABULARY")).word

local threads = {}

function setup(thread)
    thread:set("number", #threads + 1)
    table.insert(threads, thread)
end

function init(args)
    share = tonumber(args[1])
    size = tonumber(args[2])
    local token = args[3]
    done_dir = args[4]
    math.randomseed(os.time() * 100 + number)
    answered = 0
    wrk.method = "POST"
    wrk.headers["Content-Type"] = "text/plain"
    if token ~= "-" then
        wrk.headers["Authorization"] = "Bearer " .. token
    end
end

function request()
    local parts, length = {}, 0
    while length < size do
        local w = word()
        table.insert(parts, w)
        length = length + #w + 1
    end
    local body = string.sub(table.concat(parts, " "), 1, size)
    local name = word() .. "-" .. word() .. ".log"
    return wrk.format(nil, "/?name=" .. name, nil, body)
end

function response(status, headers, body)
    if answered >= share then
        return
    end
    answered = answered + 1
    if answered >= share then
        io.open(done_dir .. "/done." .. number, "w"):close()
        wrk.thread:stop()
    end
end
