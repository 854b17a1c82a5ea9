-- wrk script for bench/search: searches a tenant's pastes, one or two words
-- of bench/search-vocabulary.lua a query, drawn as the fill drew them (so
-- common words, which match many pastes, come up most).
--
-- Argument (after wrk's `--`): the tenant's token.

local word = dofile(os.getenv("SEARCH_VOCABULARY")).word

local threads = {}

function setup(thread)
    thread:set("number", #threads + 1)
    table.insert(threads, thread)
end

function init(args)
    math.randomseed(os.time() * 100 + number)
    wrk.headers["Authorization"] = "Bearer " .. args[1]
    wrk.headers["Accept"] = "application/json"
end

function request()
    local q = word()
    if math.random() < 0.5 then
        q = q .. "+" .. word()
    end
    return wrk.format("GET", "/api/pastes?q=" .. q)
end
