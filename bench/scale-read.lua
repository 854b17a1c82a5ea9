-- wrk script for bench/scale: GET /raw/ID of IDs drawn at random from the
-- file named by the first argument (one ID a line, kept during the fill).

function setup(thread)
    thread_count = (thread_count or 0) + 1
    thread:set("number", thread_count)
end

function init(args)
    ids = {}
    for id in io.lines(args[1]) do
        ids[#ids + 1] = id
    end
    math.randomseed(os.time() * 100 + (number or 0))
end

function request()
    return wrk.format("GET", "/raw/" .. ids[math.random(#ids)])
end
