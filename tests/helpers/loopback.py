"""The base of the tests' HTTP servers on loopback (the fake GitHub, the fake OpenAI, the
answers services): the http.server defaults cost a client time a real server does not.

- ``Server``: ``socketserver`` listens with a backlog of 5, so the sixth and later of a
  client's simultaneous connections are dropped until the kernel's SYN retry, a second
  later: a run with ``max_concurrency`` 8 took ten times as long as one with 4.
- ``Handler``: an answer is written in two parts (headers, then body), and on a kept-alive
  connection Nagle's algorithm holds the body until the client's delayed ACK of the headers,
  40 ms an answer: ``TCP_NODELAY``, as real servers set it.
"""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Server(ThreadingHTTPServer):
    request_queue_size = 128


class Handler(BaseHTTPRequestHandler):
    disable_nagle_algorithm = True
