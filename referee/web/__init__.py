"""Play in the browser: a person is one more kind of seat, over a WebSocket speaking protocol v1.

``server.py`` serves the page (``static/``) and seats the browsers; ``link.py`` turns a WebSocket
into a ``BotLink``. Only this package imports the web libraries (Hypercorn, Starlette).
"""
