"""moto's server on a port the kernel picks, for the tests (crates/testkit/src/moto.rs) and the
end-to-end scenarios (xtask/src/e2e/aws.rs).

Prints the port on the first line of stdout once the server listens, then serves until its
stdin closes: when the test drops its handle, or when the test process dies.
"""

import sys

from moto.server import ThreadedMotoServer

server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
server.start()
print(server.get_host_and_port()[1], flush=True)
# The test reads one line and closes its end: anything printed later goes to stderr.
sys.stdout = sys.stderr
sys.stdin.read()
server.stop()
