-- A Lua bot whose code is in lib/: run from its folder as `LUA_PATH="lib/?.lua;;" lua bin/bot.lua`.
local hearts = require("hearts")

hearts.play("lua-first-legal")
