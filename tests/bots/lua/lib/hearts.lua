-- A first-legal Hearts bot's answers (docs/protocol.md): hello with version 1, pass the first
-- `count` legal cards, play the first legal card, never declare, moon add_to_others. Lua has no
-- JSON of its own: a small reader for the referee's lines and a writer for the replies.
local hearts = {}

local function skip(text, at)
  return text:find("[^ \t\r\n]", at) or #text + 1
end

local read_value

local ESCAPES = { b = "\b", f = "\f", n = "\n", r = "\r", t = "\t", ['"'] = '"', ["\\"] = "\\", ["/"] = "/" }

local function read_string(text, at)
  local out, i = {}, at + 1
  while true do
    local c = text:sub(i, i)
    if c == "" then error("unterminated string") end
    if c == '"' then return table.concat(out), i + 1 end
    if c == "\\" then
      local e = text:sub(i + 1, i + 1)
      if e == "u" then
        out[#out + 1] = utf8.char(tonumber(text:sub(i + 2, i + 5), 16))
        i = i + 6
      else
        out[#out + 1] = ESCAPES[e] or e
        i = i + 2
      end
    else
      out[#out + 1] = c
      i = i + 1
    end
  end
end

local function read_list(text, at, close, item)
  local i = skip(text, at + 1)
  if text:sub(i, i) == close then return i + 1 end
  while true do
    i = skip(text, item(i))
    local c = text:sub(i, i)
    if c == close then return i + 1 end
    if c ~= "," then error("expected , or " .. close .. " at " .. i) end
    i = skip(text, i + 1)
  end
end

function read_value(text, at)
  local i = skip(text, at)
  local c = text:sub(i, i)
  if c == "{" then
    local object = {}
    local after = read_list(text, i, "}", function(j)
      local key, k = read_string(text, j)
      k = skip(text, k)
      local value
      value, k = read_value(text, k + 1)
      object[key] = value
      return k
    end)
    return object, after
  elseif c == "[" then
    local array = {}
    local after = read_list(text, i, "]", function(j)
      local value, k = read_value(text, j)
      array[#array + 1] = value
      return k
    end)
    return array, after
  elseif c == '"' then
    return read_string(text, i)
  elseif text:sub(i, i + 3) == "true" then
    return true, i + 4
  elseif text:sub(i, i + 4) == "false" then
    return false, i + 5
  elseif text:sub(i, i + 3) == "null" then
    return nil, i + 4
  end
  local number = text:match("^-?%d+%.?%d*[eE]?[-+]?%d*", i)
  return tonumber(number), i + #number
end

local function quote(s)
  return '"' .. s:gsub('[%c"\\]', function(ch) return string.format("\\u%04x", ch:byte()) end) .. '"'
end

-- The replies are flat objects of strings, numbers, booleans and lists of strings.
local function write(object, order)
  local parts = {}
  for _, key in ipairs(order) do
    local value = object[key]
    local text
    if type(value) == "table" then
      local items = {}
      for n, item in ipairs(value) do items[n] = quote(item) end
      text = "[" .. table.concat(items, ",") .. "]"
    elseif type(value) == "string" then
      text = quote(value)
    else
      text = tostring(value)
    end
    parts[#parts + 1] = quote(key) .. ":" .. text
  end
  return "{" .. table.concat(parts, ",") .. "}"
end

function hearts.answer(message, name)
  local kind, id = message.type, message.id
  if kind == "hello" then
    return write({ type = "hello", version = 1, name = name }, { "type", "version", "name" })
  elseif kind == "pass_request" then
    return write({ type = "pass", id = id, cards = table.move(message.legal, 1, message.count, 1, {}) },
      { "type", "id", "cards" })
  elseif kind == "play_request" then
    return write({ type = "play", id = id, card = message.legal[1] }, { "type", "id", "card" })
  elseif kind == "declare_request" then
    return write({ type = "declare", id = id, declare = false }, { "type", "id", "declare" })
  elseif kind == "moon_request" then
    return write({ type = "moon", id = id, choice = "add_to_others" }, { "type", "id", "choice" })
  end
  return nil
end

function hearts.ends(message)
  return message.type == "goodbye" or (message.type == "error" and message.fatal == true)
end

function hearts.play(name)
  io.stdout:setvbuf("line") -- flush every line: a reply left in the buffer is a timeout
  for line in io.lines() do
    local message = read_value(line, 1)
    local reply = hearts.answer(message, name)
    if reply then
      io.write(reply, "\n")
      io.flush()
    elseif hearts.ends(message) then
      break
    end
  end
end

return hearts
