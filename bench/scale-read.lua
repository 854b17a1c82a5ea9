-- wrk script for bench/scale: GET /raw/ID of IDs drawn at random from the
-- file named by the first argument (one ID a line, kept during the fill).
--
-- Every request is formatted once, in init: wrk.format builds a request in
-- Lua, and calling it per request cost wrk about a fifth of the requests it
-- could send to the ceiling server, which shares the CPUs with snip.

function setup(thread)
    thread_count = (thread_count or 0) + 1
    thread:set("number", thread_count)
end

function init(args)
    requests = {}
    for id in io.lines(args[1]) do
        requests[#requests + 1] = wrk.format("GET", "/raw/" .. id)
    end
    count = #requests
    math.randomseed(os.time() * 100 + (number or 0))
end

function request()
    return requests[math.random(count)]
end
