"""Drives our provider binary through the Pulumi Python SDK's own generated client, as the
Pulumi engine would: Parameterize a real provider (Pyvider), configure it, then run the whole
lifecycle of a `pyvider_file_content` and invoke a data source and a function.

Usage: pyvider_lifecycle.py <our binary> <terraform-provider-pyvider> <work dir>

A fake `pulumirpc.Engine` from the same SDK receives our logs. Prints one JSON object with what
each step returned; the Rust test asserts on it. Everything started here is stopped here.
"""

import json
import os
import signal
import subprocess
import sys
import time
from concurrent import futures

import grpc
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import engine_pb2_grpc, provider_pb2, provider_pb2_grpc

UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
TIMEOUT = 120


class Engine(engine_pb2_grpc.EngineServicer):
    """Collects the log messages the provider sends."""

    def __init__(self):
        self.logs = []

    def Log(self, request, context):
        self.logs.append({"severity": request.severity, "message": request.message, "urn": request.urn})
        return empty_pb2.Empty()


def child_pids(pid):
    """The processes our binary started (the Terraform provider and our guard)."""
    pids = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return pids
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                pids.extend(int(p) for p in f.read().split())
        except OSError:
            pass
    return pids


def is_guard(pid):
    """Whether a process is our binary's guard, which ends its providers if it is killed."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"__guard-providers" in f.read()
    except OSError:
        return False


def alive(pid):
    """Whether a process still exists (a zombie counts as gone), waiting up to 5 seconds."""
    for _ in range(50):
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().split(") ")[-1].startswith("Z"):
                    return False
        except OSError:
            return False
        time.sleep(0.1)
    return True


def struct(d):
    s = struct_pb2.Struct()
    s.update(d)
    return s


def plain(s):
    return json_format.MessageToDict(s) if s is not None else None


def main():
    binary, pyvider, work = sys.argv[1:4]
    engine = Engine()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    engine_pb2_grpc.add_EngineServicer_to_server(engine, server)
    engine_port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    stderr = open(os.path.join(work, "provider.stderr"), "w")
    # Pyvider's timed token keeps private state, which it seals with this key.
    env = dict(os.environ, PYVIDER_PRIVATE_STATE_SHARED_SECRET="lifecycle-test-key-0123456789abcdef")
    proc = subprocess.Popen(
        [binary, f"127.0.0.1:{engine_port}"],
        stdout=subprocess.PIPE,
        stderr=stderr,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    out = {}
    try:
        port = proc.stdout.readline().decode().strip()
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        stub = provider_pb2_grpc.ResourceProviderStub(channel)
        run(stub, pyvider, work, out)
        channel.close()
    except grpc.RpcError as err:
        out["rpc_error"] = f"{err.code()}: {err.details()}"
    finally:
        children = child_pids(proc.pid)
        providers = [pid for pid in children if not is_guard(pid)]
        proc.send_signal(signal.SIGTERM)
        out["exit_code"] = proc.wait(timeout=30)
        out["children"] = len(providers)
        out["children_alive"] = [pid for pid in children if alive(pid)]
        server.stop(grace=None)
        stderr.close()
    out["engine_logs"] = engine.logs
    print(json.dumps(out))


def run(stub, pyvider, work, out):
    r = stub.Parameterize(
        provider_pb2.ParameterizeRequest(args=provider_pb2.ParameterizeRequest.ParametersArgs(args=[pyvider])),
        timeout=TIMEOUT,
    )
    out["parameterize"] = {"name": r.name, "version": r.version}
    schema = json.loads(stub.GetSchema(provider_pb2.GetSchemaRequest(), timeout=TIMEOUT).schema)
    out["schema_resources"] = sorted(schema["resources"])

    provider_urn = "urn:pulumi:test::proj::pulumi:providers:pyvider::default"
    r = stub.CheckConfig(
        provider_pb2.CheckRequest(urn=provider_urn, olds=struct({}), news=struct({"apiRetries": "3"})),
        timeout=TIMEOUT,
    )
    out["check_config"] = {"inputs": plain(r.inputs), "failures": [f.reason for f in r.failures]}
    r = stub.Configure(
        provider_pb2.ConfigureRequest(args=r.inputs, acceptSecrets=True, acceptResources=True),
        timeout=TIMEOUT,
    )
    out["configure"] = json_format.MessageToDict(r)

    token = "pyvider:index/fileContent:FileContent"
    urn = f"urn:pulumi:test::proj::{token}::managed"
    first = os.path.join(work, "first.txt")
    news = {"filename": first, "content": "hello"}
    r = stub.Check(provider_pb2.CheckRequest(urn=urn, olds=struct({}), news=struct(news), randomSeed=b"seed"), timeout=TIMEOUT)
    out["check"] = {"inputs": plain(r.inputs), "failures": [f.reason for f in r.failures]}
    checked = r.inputs

    r = stub.Create(provider_pb2.CreateRequest(urn=urn, properties=checked, preview=True), timeout=TIMEOUT)
    out["create_preview"] = {"id": r.id, "properties": plain(r.properties), "file_exists": os.path.exists(first)}
    # A preview whose content is not known yet (it comes from another resource).
    r = stub.Create(
        provider_pb2.CreateRequest(urn=urn, properties=struct({"filename": first, "content": UNKNOWN}), preview=True),
        timeout=TIMEOUT,
    )
    out["create_preview_unknown"] = {"id": r.id, "properties": plain(r.properties)}

    r = stub.Create(provider_pb2.CreateRequest(urn=urn, properties=checked), timeout=TIMEOUT)
    created = r.properties
    out["create"] = {"id": r.id, "properties": plain(r.properties), "file": open(first).read()}

    with open(first, "w") as f:
        f.write("edited on disk")
    r = stub.Read(provider_pb2.ReadRequest(id=out["create"]["id"], urn=urn, properties=created, inputs=checked), timeout=TIMEOUT)
    out["read"] = {"id": r.id, "properties": plain(r.properties), "inputs": plain(r.inputs)}
    state = r.properties

    news = {"filename": first, "content": "second"}
    r = stub.Diff(provider_pb2.DiffRequest(id=out["read"]["id"], urn=urn, olds=state, news=struct(news)), timeout=TIMEOUT)
    out["diff_update"] = json_format.MessageToDict(r)

    r = stub.Update(
        provider_pb2.UpdateRequest(id=out["read"]["id"], urn=urn, olds=state, news=struct(news), preview=True),
        timeout=TIMEOUT,
    )
    out["update_preview"] = {"properties": plain(r.properties), "file": open(first).read()}
    r = stub.Update(provider_pb2.UpdateRequest(id=out["read"]["id"], urn=urn, olds=state, news=struct(news)), timeout=TIMEOUT)
    out["update"] = {"properties": plain(r.properties), "file": open(first).read()}
    state = r.properties

    r = stub.Diff(provider_pb2.DiffRequest(id=out["read"]["id"], urn=urn, olds=state, news=struct(news)), timeout=TIMEOUT)
    out["diff_none"] = json_format.MessageToDict(r)

    second = os.path.join(work, "second.txt")
    news = {"filename": second, "content": "second"}
    r = stub.Diff(provider_pb2.DiffRequest(id=out["read"]["id"], urn=urn, olds=state, news=struct(news)), timeout=TIMEOUT)
    out["diff_filename"] = json_format.MessageToDict(r)

    # A replacement, as the engine runs it (Pyvider declares no RequiresReplace, so this is what
    # `replaceOnChanges: [filename]` asks for): create the new resource, then delete the old one.
    r = stub.Create(provider_pb2.CreateRequest(urn=urn, properties=struct(news)), timeout=TIMEOUT)
    replacement = r.properties
    out["replace_create"] = {"id": r.id, "file": open(second).read()}
    stub.Delete(provider_pb2.DeleteRequest(id=out["read"]["id"], urn=urn, properties=state), timeout=TIMEOUT)
    out["replace_delete"] = {"old_exists": os.path.exists(first), "new_exists": os.path.exists(second)}

    stub.Delete(provider_pb2.DeleteRequest(id=out["replace_create"]["id"], urn=urn, properties=replacement), timeout=TIMEOUT)
    out["delete"] = {"exists": os.path.exists(second)}

    # Read after the file vanished: an empty ID says the resource is gone.
    r = stub.Read(provider_pb2.ReadRequest(id=out["replace_create"]["id"], urn=urn, properties=replacement), timeout=TIMEOUT)
    out["read_gone"] = {"id": r.id, "has_properties": r.HasField("properties")}

    info = os.path.join(work, "info.txt")
    with open(info, "w") as f:
        f.write("12345")
    r = stub.Invoke(provider_pb2.InvokeRequest(tok="pyvider:index/getFileInfo:getFileInfo", args=struct({"path": info})), timeout=TIMEOUT)
    out["invoke_data_source"] = {"return": plain(getattr(r, "return")), "failures": [f.reason for f in r.failures]}
    r = stub.Invoke(provider_pb2.InvokeRequest(tok="pyvider:index/upper:upper", args=struct({"inputStr": "hello"})), timeout=TIMEOUT)
    out["invoke_function"] = {"return": plain(getattr(r, "return")), "failures": [f.reason for f in r.failures]}

    # Autonaming: `name` is filled from the URN name and the random seed, as the Go binary does;
    # `token` is sensitive and comes back secret.
    token = "pyvider:index/timedToken:TimedToken"
    urn = f"urn:pulumi:test::proj::{token}::tok"
    r = stub.Check(provider_pb2.CheckRequest(urn=urn, olds=struct({}), news=struct({}), randomSeed=b"seed"), timeout=TIMEOUT)
    out["autoname"] = {"inputs": plain(r.inputs), "failures": [f.reason for f in r.failures]}
    r = stub.Check(
        provider_pb2.CheckRequest(
            urn=urn,
            olds=struct({}),
            news=struct({}),
            randomSeed=b"seed",
            autonaming=provider_pb2.CheckRequest.AutonamingOptions(
                proposed_name="proposed-by-engine", mode=provider_pb2.CheckRequest.AutonamingOptions.ENFORCE
            ),
        ),
        timeout=TIMEOUT,
    )
    out["autoname_enforced"] = plain(r.inputs)
    r = stub.Create(provider_pb2.CreateRequest(urn=urn, properties=struct(out["autoname"]["inputs"])), timeout=TIMEOUT)
    out["timed_token"] = {"id": r.id, "properties": plain(r.properties)}
    stub.Delete(provider_pb2.DeleteRequest(id=r.id, urn=urn, properties=r.properties), timeout=TIMEOUT)

    # A provider warning reaches the engine's log with the resource's URN.
    token = "pyvider:index/warningExample:WarningExample"
    urn = f"urn:pulumi:test::proj::{token}::warned"
    r = stub.Create(
        provider_pb2.CreateRequest(urn=urn, properties=struct({"oldName": "legacy"}), preview=True), timeout=TIMEOUT
    )
    out["warning_preview"] = plain(r.properties)
    # A provider error without an attribute reaches the user as the RPC's error.
    try:
        stub.Check(
            provider_pb2.CheckRequest(urn=urn, olds=struct({}), news=struct({"name": "n", "sourceFile": "f"})),
            timeout=TIMEOUT,
        )
        out["check_error"] = None
    except grpc.RpcError as err:
        out["check_error"] = {"code": str(err.code()), "details": err.details()}

    stub.Cancel(empty_pb2.Empty(), timeout=TIMEOUT)
    out["cancelled"] = True


if __name__ == "__main__":
    main()
