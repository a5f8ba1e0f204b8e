"""The plain Python go-plugin client that `cargo xtask bench host` compares us with.

It launches a Terraform provider the way a minimal go-plugin host does (hashicorp/go-plugin `client.go`):
the magic cookie and protocol versions in the environment, the handshake line read from stdout, then
a grpcio channel to the announced address. grpcio cannot complete AutoMTLS with Go providers (BoringSSL
lacks P-521 signatures), so this client is always plaintext.

Usage: python goplugin_client.py <provider-executable> <runs>
Prints one JSON object per run: {"launch_ms": ..., "schema_ms": ..., "resources": ...}.
"""

import json
import os
import signal
import subprocess
import sys
import time

import grpc
from tfplugin_proto import tfplugin5_2_pb2, tfplugin5_2_pb2_grpc, tfplugin6_2_pb2, tfplugin6_2_pb2_grpc

COOKIE = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2"
MAX_MESSAGE = 256 << 20


def run_once(executable):
    env = dict(os.environ, TF_PLUGIN_MAGIC_COOKIE=COOKIE, PLUGIN_PROTOCOL_VERSIONS="5,6")
    env.pop("PLUGIN_CLIENT_CERT", None)
    started = time.perf_counter()
    child = subprocess.Popen([executable], env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    socket = None
    try:
        line = child.stdout.readline()
        core, version, network, address, protocol = line.strip().split("|")[:5]
        socket = address if network == "unix" else None
        target = "unix://" + address if network == "unix" else address
        channel = grpc.insecure_channel(target, options=[("grpc.max_receive_message_length", MAX_MESSAGE)])
        grpc.channel_ready_future(channel).result(timeout=30)
        ready = time.perf_counter()
        if version == "5":
            response = tfplugin5_2_pb2_grpc.ProviderStub(channel).GetSchema(
                tfplugin5_2_pb2.GetProviderSchema.Request())
        else:
            response = tfplugin6_2_pb2_grpc.ProviderStub(channel).GetProviderSchema(
                tfplugin6_2_pb2.GetProviderSchema.Request())
        done = time.perf_counter()
        channel.close()
        return {"launch_ms": (ready - started) * 1000, "schema_ms": (done - ready) * 1000,
                "resources": len(response.resource_schemas)}
    finally:
        # Our own child, ended by its PID; a killed Go plugin leaves its socket, so remove it.
        child.send_signal(signal.SIGKILL)
        child.wait()
        if socket and os.path.exists(socket):
            os.unlink(socket)


def main():
    executable, runs = sys.argv[1], int(sys.argv[2])
    for _ in range(runs):
        print(json.dumps(run_once(executable)), flush=True)


if __name__ == "__main__":
    main()
