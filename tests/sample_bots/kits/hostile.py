"""Each kit's hostile lines: lines no referee sends, each meant to trip a reader (deep nesting,
numbers no integer holds, escapes, invalid UTF-8, wrong types, absurd seats and counts, unknown
types, non-objects, overlong lines), written for the kit's own reader and its limits. The
kits' suite feeds them to every kit that has them (``test_kits.py``)."""

from __future__ import annotations

import json

from tests.hostile_lines import HELLO_LINES, PLAY_LINES
from tests.sample_bots.kit_driver import match_start, play_request, to_dict

CPP_IGNORED: tuple[bytes, ...] = (
    b"[" * 60_000,  # deep, under the line limit
    b"[" * 100_000,  # over the line limit
    b'{"a":' * 10_000 + b"1" + b"}" * 10_000,
    b'{"type":"play_request","id":70,"legal":["2C"],"x":' + b"[" * 1000 + b"]" * 1000 + b"}",
    b'{"type":"play_request","id":70,"legal":["2C"],"x":' + b"[" * 64 + b"]" * 64 + b"}",  # one level too deep
    b'{"type":"play_request","id":1e999,"legal":["2C"]}',
    b'{"type":"play_request","id":1.5,"legal":["2C"]}',
    b'{"type":"play_request","id":"71","legal":["2C"]}',
    b'{"type":"play_request","id":72,"legal":["2C"],"x":NaN}',
    b'{"type":"play_request","id":73,"legal":["2C"],"x":-Infinity}',
    b'\xef\xbb\xbf{"type":"play_request","id":74,"legal":["2C"]}',
    b'{"type":"play_request","id":75,"legal":["2C"]} trailing',
    b'{"type":"goodbye"}\x00',
    b'{"type":"goodbye"',
    b'{"type":"goodbye","x":"\\ud800',
    b'{"type":"play_request","id":76,"legal":"2C"}',
    b'{"type":"play_request","id":77,"legal":[]}',
    b'{"type":"play_request"}',
    b'{"type":"pass_request","id":78,"count":5,"legal":["2C"]}',
    b'{"type":"pass_request","id":79,"count":-1,"legal":["2C"]}',
    b'{"type":"pass_request","id":80,"count":"3","legal":["2C","3C","4C"]}',
    b'{"type":"x","s":"\\uZZZZ"}',
    b'{"type":"x","s":"\\q"}',
    b'{"type":"x","s":"a\x01b"}',
    b'{"type":"x","n":01}',
    b'{"type":"x","n":-}',
    b'{"type":"x","n":1.}',
    b'{"type":"x","n":.5}',
    b'{"type":"x","n":+1}',
    b'{"type":"x","n":1e}',
    b'{"type":"x",}',
    b'{"type":"x" "y":1}',
    b'{"type":tru}',
    b"\x00",
    b"",
    b"   \t",
    b"\r",
    b"null",
    b"[]",
    b'"play"',
    b"42",
    b'{"type":5}',
    b"{}",
    b'{"type":"x","s":"' + b"\\u00e9\\ud83d\\ude00\\ud800\\udc00\\udbff\\udfff\\ud800x\\udc00\\u0000" * 500 + b'"}',
    b'{"type":"x",' + b'"k":1,' * 10_000 + b'"z":[-0,0.5e-999,1E+2,-1.5e308,123456789012345678901234567890]}',
    b'{"type":"x","s":"\xff\xfe\xc0\xaf\xed\xa0\x80"}',
    b'{"type":"card_played","seat":999999999,"card":"2C","trick_number":0}',
    b'{"type":"card_played","seat":-5,"card":"","trick_number":-1}',
    b'{"type":"declared","seat":1e300,"declared":true}',
    b'{"type":"trick_end","trick_number":0,"leader":-7,"cards":["2C","3C"],"winner":123456789,"points":5}',
    b'{"type":"trick_end","trick_number":99999999999999999999,"leader":2,"cards":["2C"],"winner":null}',
    b'{"type":"round_start","round":0,"hand":[1,2,"2C",null],"pass_to":"x","scores":[1e400,"a"]}',
    b'{"type":"passed","given":["AS","AS"],"received":[{}],"hand":"none"}',
    b'{"type":"match_start","seat":99999,"players":[],"rules":{"players":1000000,"copies":1000000,'
    b'"card_points":{"QS":99999999999999999999,"2c":-3},"deck":"piket","remove":["QS","ZZ"],'
    b'"trim_to_deal_evenly":true,"add":["10h","5C"]}}',
    b'{"type":"match_start","seat":1,"players":[{"seat":"x"},{"name":5}],"rules":{"players":0}}',
    b'{"type":"round_end","scores":[1,2],"points_taken":"x","next_match_phase":1e10}',
    b'{"type":"error","code":"busy","message":"' + b"\\n" * 5000 + b'","fatal":"yes"}',
)
"""Lines the kit must survive without answering: malformed JSON, values out of any range,
messages with fields of the wrong type or impossible values. The referee never writes them."""

CPP_ANSWERED: tuple[tuple[bytes, bytes], ...] = (
    (
        b'{"type":"play_request","id":' + b"9" * 5000 + b',"legal":["2C"],"trick":[]}',
        b'{"type":"play","id":' + b"9" * 5000 + b',"card":"2C"}',
    ),
    (
        b' \t{"legal" : ["2C"] ,\t"x":' + b"[" * 63 + b"]" * 63 + b',"id":81,"type":"play_request"}\r',
        b'{"type":"play","id":81,"card":"2C"}',
    ),
    (
        b'{"type":"play_request","type":"play_request","id":82,"id":83,"legal":["2C","2C"],"trick":["\\u0032D"]}',
        b'{"type":"play","id":83,"card":"2C"}',
    ),
    (
        b'{"type":"play_request","id":84,"legal":["\xff\xfe"],"trick":["2C"]}',
        b'{"type":"play","id":84,"card":"\\ufffd\\ufffd"}',
    ),
    (
        b'{"type":"moon_request","id":85,"options":["\\ud83d\\ude00\\u00e9\\u0041\\/"]}',
        b'{"type":"moon","id":85,"choice":"\xf0\x9f\x98\x80\xc3\xa9A/"}',
    ),
    (
        b'{"type":"moon_request","id":86,"options":["\\ud800\\u0000\\n\\udc00"]}',
        b'{"type":"moon","id":86,"choice":"\xef\xbf\xbd\\u0000\\n\xef\xbf\xbd"}',
    ),
    (
        b'{"type":"moon_request","id":87,"options":[]}',
        b'{"type":"moon","id":87,"choice":"add_to_others"}',
    ),
    (
        b'{"type":"pass_request","id":88,"count":0,"legal":[]}',
        b'{"type":"pass","id":88,"cards":[]}',
    ),
)
"""Odd but readable requests and the exact replies: an id of 5000 digits, nesting at the
bound, repeated keys (the last wins), escapes and surrogate pairs decoded to UTF-8 (a lone
surrogate becomes U+FFFD), invalid UTF-8 written back as U+FFFD so the reply stays valid JSON."""


GO_DEEP = 1000
GO_TOO_DEEP = 30_000  # past encoding/json's 10,000 levels, still within the line limit
GO_PLAY = b'{"type":"play_request","id":900001,"legal":["2C"],"trick":[],"leader":1,"trick_number":0,'
GO_PLAY += b'"hearts_broken":false,"time":{"decision_ms":1000,"bank_ms":1000}'
_START = to_dict(match_start())
GO_LINES: tuple[bytes, ...] = (
    b"[" * GO_DEEP + b"]" * GO_DEEP,
    b'{"a":' * GO_DEEP + b"1" + b"}" * GO_DEEP,
    b"[" * GO_TOO_DEEP + b"]" * GO_TOO_DEEP,
    b'{"type":"news","x":' + b"[" * GO_TOO_DEEP + b"]" * GO_TOO_DEEP + b"}",
    GO_PLAY + b',"x":' + b"[" * GO_DEEP + b"]" * GO_DEEP + b"}",
    GO_PLAY + b',"x":' + b"[" * GO_TOO_DEEP + b"]" * GO_TOO_DEEP + b"}",
    GO_PLAY.replace(b"900001", b"9" * 5000) + b"}",
    GO_PLAY.replace(b"900001", b"1e999") + b"}",
    GO_PLAY.replace(b"900001", b"1.5") + b"}",
    GO_PLAY.replace(b"900001", b"9223372036854775808") + b"}",
    GO_PLAY.replace(b"900001", b'"900001"') + b"}",
    GO_PLAY.replace(b'"legal":["2C"]', b'"legal":"2C"') + b"}",
    GO_PLAY.replace(b'"legal":["2C"]', b'"legal":[]') + b"}",
    GO_PLAY.replace(b'"legal":["2C"]', b'"legal":["\\u0032C"]') + b"}",
    GO_PLAY.replace(b'"legal":["2C"]', b'"legal":["\\ud800","\\u0000","\xff\xfe"]') + b"}",
    GO_PLAY.replace(b'"trick":[]', b'"trick":[' + b'"QS",' * 10_000 + b'"QS"]') + b"}",
    GO_PLAY.replace(b'"leader":1', b'"leader":-99999999999') + b"}",
    GO_PLAY.replace(b"play_request", b"pl\\u0061y_request") + b"}",
    b'{"type":"card_played","seat":0,"card":"2C","trick_number":0,"x":1e999,"y":' + b"9" * 5000 + b"}",
    b'{"type":"card_played","seat":1000000000,"card":"2C","trick_number":0}',
    b'{"type":"card_played","seat":-5,"card":"","trick_number":-1}',
    b'{"type":"card_played","seat":' + b"9" * 40 + b',"card":"QS","trick_number":0}',
    b'{"type":"trick_end","trick_number":0,"leader":-7,"cards":["2C","3C"],"winner":1000000000,"points":1}',
    b'{"type":"trick_end","trick_number":0,"leader":3,"cards":[' + b'"2C",' * 5000 + b'"2C"],"winner":-1}',
    b'{"type":"declared","seat":1000000000,"declared":true}',
    b'{"type":"declare_request","id":900002,"declarations":[' + b"true," * 10_000 + b'null],"points":10}',
    b'{"type":"pass_request","id":900003,"count":5,"legal":["2C"],"to_seat":2}',
    b'{"type":"pass_request","id":900004,"count":-3,"legal":["2C"],"to_seat":2}',
    b'{"type":"pass_request","id":900005,"count":1e3,"legal":["2C"],"to_seat":2}',
    b'{"type":"moon_request","id":900006,"options":[],"points":26}',
    b'{"type":"moon_request","id":900007,"options":["\\u0000",5],"points":26}',
    b'{"type":"round_start","round":0,"dealer":99,"hand":null,"pass_to":-4,"scores":[' + b"1," * 20_000 + b"1]}",
    b'{"type":"round_end","scores":[1,2],"points_taken":null,"next_match_phase":' + b"9" * 30 + b"}",
    b'{"type":"match_end","scores":"x","winners":[' + b"-1," * 1000 + b"1]}",
    b'{"type":"error","code":"news","message":"not fatal: a string","fatal":"yes"}',
    b'{"type":"error","code":' + b"[" * GO_DEEP + b"]" * GO_DEEP + b',"fatal":null}',
    json.dumps({**_START, "rules": {**_START["rules"], "players": 10**9, "copies": 10**9}}).encode(),
    json.dumps({**_START, "seat": -3, "rules": {"players": -1, "card_points": {"2C": 10**30}}}).encode(),
    json.dumps({**_START, "players": [{"seat": i, "name": "x"} for i in range(1500)], "rules": None}).encode(),
    json.dumps({**_START, "rules": "american"}).encode(),
    b'{"type":"weather","x":1}',
    b'{"type":"play_request_v2","id":5,"legal":["2C"]}',
    b'{"type":""}',
    b'{"type":null,"id":5}',
    b'{"type":5,"id":5}',
    b'{"type":["play_request"],"id":5,"legal":["2C"]}',
    b'{"type":{"a":1},"id":5}',
    b'{"id":5,"legal":["2C"]}',
    b"null",
    b"[]",
    b'"play_request"',
    b"123",
    b"true",
    b"",
    b"  \t ",
    b"\xef\xbb\xbf" + json.dumps(to_dict(play_request(900008, ["2C"], []))).encode(),
    b'{"type":"play_request","id":900009,"legal":[NaN]}',
    b'{"type":"weather"} trailing',
    b'{"type":"weather"',
    b"\x00\x01\x02\xff",
    b'{"type":"weather","x":"' + b'\\u00e9\\ud83d\\ude00\\n\\t\\\\\\"' * 100 + b'"}',
    b'{"type":"news","padding":"' + b"x" * 70_000 + b'"}',  # past the line limit: skipped
    *(line.replace(b"{id}", b"900010") for table in (PLAY_LINES, HELLO_LINES) for line, _ in table.values()),
)
"""Lines no referee sends, each meant to trip a reader: nesting deeper than the protocol
allows (within Go's own limit and past it), numbers no integer holds, escapes, invalid
UTF-8, wrong types, absurd seats and counts, unknown types, non-objects, an overlong
line, and the hostile bot lines the referee's own tests use."""


JAVA_DEEP = 32_000
"""Brackets that fill a line of the protocol's length: far deeper than any recursion may go."""
HUGE = "9" * 5000
JAVA_LINES: tuple[bytes, ...] = (
    b"[" * JAVA_DEEP + b"]" * JAVA_DEEP,
    b'{"a":' * (JAVA_DEEP // 5) + b"1" + b"}" * (JAVA_DEEP // 5),
    b'{"type":"play_request","id":1,"legal":["2C"],"x":' + b"[" * 100 + b"]" * 100 + b"}",
    b'{"type":"play_request","id":1,"legal":["2C"],"x":' + b"[" * JAVA_DEEP + b"}",
    b'{"type":"news","n":' + HUGE.encode() + b',"e":1e999999999,"f":-0.0e-99999,"g":' + HUGE.encode() + b".5}",
    b'{"type":"play_request","id":1,"legal":["2C"],"x":NaN}',
    b'{"type":"play_request","id":1,"legal":["2C"],"x":Infinity}',
    b'{"type":"news","s":"\\ud83d\\ude00 \\ud800 \\udc00 \\u0000 \\"\\\\\\/\\b\\f\\n\\r\\t"}',
    b'{"type":"news","s":"\\x41"}',
    b'{"type":"news","s":"\\u12"}',
    b'{"type":"news","s":"\\u12G4"}',
    b'{"type":"news","s":"unterminated}',
    b'{"type":"news","s":"tab\there"}',
    b'{"type":"news","s":"\xff\xfe\xc0\xaf"}',
    b'{"type":"news"}\x00',
    b'\xef\xbb\xbf{"type":"news"}',
    b"",
    b"   \t ",
    b"null",
    b"[]",
    b'"play_request"',
    b'{"type":5,"id":1,"legal":["2C"]}',
    b'{"type":"play_request","legal":["2C"]}',
    b'{"type":"play_request","id":"1","legal":["2C"]}',
    b'{"type":"play_request","id":1,"legal":"2C","trick":5}',
    b'{"type":"play_request","id":1}',
    b'{"type":"news"} {"type":"goodbye"}',
    b'{"type":"goodbye",}',
    b'{"type":"goodbye"',
    b'{"type" "goodbye"}',
    b'{"type":"match_start","seat":"x","players":7,"rules":[1],"time":null}',
    b'{"type":"round_start","hand":[1,null,{}],"scores":"high","pass_to":1e99}',
    b'{"type":"card_played","seat":99999999999,"card":7,"trick_number":[]}',
    b'{"type":"card_played","seat":-1,"card":"","trick_number":0}',
    b'{"type":"trick_end","leader":-5,"cards":["AH",3],"winner":1e3,"points":"x"}',
    b'{"type":"declared","seat":4000,"declared":true}',
    b'{"type":"round_end","scores":[' + b",".join([b"1"] * 5000) + b'],"points_taken":{}}',
    b'{"type":"passed","given":"2C","received":null,"hand":"all"}',
    b'{"type":"error","code":7,"message":[],"fatal":"yes"}',
    b'{"type":"news","padding":"' + b"x" * 200_000 + b'"}',
    b"[" * 200_000,
)
"""Lines no referee sends: none may crash the kit, stop it reading or draw an answer. Then the
state they may have disturbed is reset by match_start, as a real match would."""


RUST_DEEP = 10_000
"""Deep enough to exhaust a naive recursive reader, short enough to be read (under 64 KiB)."""
RUST_LINES: tuple[bytes, ...] = (
    b"[" * 3 * RUST_DEEP + b"]" * 3 * RUST_DEEP,
    b'{"a":' * RUST_DEEP + b"1" + b"}" * RUST_DEEP,
    b'{"type":"card_played","seat":0,"card":"2C","x":' + b"[" * 3 * RUST_DEEP + b"]" * 3 * RUST_DEEP + b"}",
    b"[" * 6 * RUST_DEEP,  # never closed
    b"[" * 100 * RUST_DEEP,  # over the line limit as well
    b'{"type":"round_end","scores":[' + b"9" * 5000 + b"]}",
    b'{"type":"trick_end","trick_number":1e999,"winner":-1e999,"points":' + b"9" * 5000 + b"}",
    b'{"type":"card_played","seat":1000000000000,"card":"2C","trick_number":0}',
    b'{"type":"declared","seat":-1,"declared":true}',
    b'{"type":"news","s":"\\ud83d\\ude00 \\ud800 \\udc00x \\uDBFF\\uDFFF \\" \\\\ \\/ \\b\\f\\n\\r\\t \\u0000"}',
    b'{"type":"news","s":"\\u12"}',
    b'{"type":"news","s":"\\x"}',
    b'{"type":"news","s":"raw\ttab"}',
    b'{"type":"news","s":"\xff\xfe"}',
    b"\xef\xbb\xbf" + b'{"type":"goodbye"}',  # a BOM: not JSON, so not a goodbye
    b'{"type":"goodbye"} trailing',
    b'{"type":"goodbye","reason":"' + b"x" * 200_000 + b'"}',  # over the line limit: skipped
    b'{"type":"error","code":"x","fatal":true',
    b'{"type":"play_request","id":"7","legal":["2C"]}',  # no integer id: nothing to echo
    b'{"type":"play_request","id":8,"legal":[]}',  # nothing legal to play
    b'{"type":"moon_request","id":1.5,"options":["add_to_others"]}',
    b"NaN",
    b"-",
    b"null",
    b'"play"',
    b"",
    b" \t ",
    b"\x00",
    b"\r",
)
"""Lines no referee sends: none may crash the bot, make it exit or make it write a line."""
