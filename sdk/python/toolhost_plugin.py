"""toolhost_plugin: write a toolhost plugin in Python.

A plugin's script calls main() with its actions:

    import toolhost_plugin as th

    def greet(req):
        return th.Result({"greeting": "hello, " + req.args["name"]})

    th.main({"greet": greet})

Started by the host (the handshake cookie TOOLHOST_PLUGIN is in the
environment), main() serves the toolhost.plugin.v1.Plugin gRPC service of
sdk/wire/plugin.proto behind hashicorp/go-plugin's handshake, with AutoMTLS:
it reads the host's certificate from PLUGIN_CLIENT_CERT, makes its own for
this run, requires the host's on every connection, and prints its own in the
handshake line. Started by hand, main() is a command-line tool typed by the
tool.yaml beside the script: `text stats --text "…"` or `--json '{…}'`,
the result on stdout, exit 0 on success, 1 when the tool failed, 2 on a
usage error (invalid_args, unknown_action) -- the exit-code table of the Go
SDK's CLI mode and `host call`.

Generated code beside it (plugin_pb2*.py, health_pb2*.py) comes from
sdk/wire/plugin.proto and health.proto (`make python-gen`).
"""

import base64
import datetime
import json
import os
import queue
import sys
import threading
import traceback
from concurrent import futures

COOKIE_KEY = "TOOLHOST_PLUGIN"
COOKIE_VALUE = "6f1c2d0e-toolhost-plugin-v1"
APP_PROTOCOL_VERSION = 1  # sdk/wire.Handshake.ProtocolVersion
CORE_PROTOCOL_VERSION = 1  # go-plugin's own
SDK_NAME = "toolhost-python-sdk/1"

# Exit codes of CLI mode, the table of `host call` and Go plugins' CLI mode:
# 0 ok, 1 the action failed, 2 the command line was wrong (these codes).
EXIT_OK, EXIT_TOOL, EXIT_USAGE = 0, 1, 2
USAGE_CODES = {"invalid_args", "unknown_tool", "unknown_action", "unknown_skill"}


def exit_code(err):
    """The exit code for a ToolError (EXIT_OK for None)."""
    if err is None:
        return EXIT_OK
    return EXIT_USAGE if err.code in USAGE_CODES else EXIT_TOOL


class ToolError(Exception):
    """A failure the caller can act on; it crosses to the caller as the
    error envelope {"error": {code, message, did_you_mean, next_step,
    details}}."""

    def __init__(self, code, message, did_you_mean=None, next_step="", details=None):
        super().__init__("%s: %s" % (code, message))
        self.code = code
        self.message = message
        self.did_you_mean = list(did_you_mean or [])
        self.next_step = next_step
        self.details = details or {}

    def envelope(self):
        body = {"code": self.code, "message": self.message}
        if self.did_you_mean:
            body["did_you_mean"] = self.did_you_mean
        if self.next_step:
            body["next_step"] = self.next_step
        if self.details:
            body["details"] = self.details
        return {"error": body}


class Result:
    """What an action returns: data, a dict (the structured result), and
    optionally markdown, its rendering for people."""

    def __init__(self, data, markdown=""):
        self.data = data
        self.markdown = markdown


class Request:
    """One call: the action's name, its args (a dict, already checked by the
    host against tool.yaml), who called, and a way to report progress."""

    def __init__(self, action, args, caller=None, progress=None, cancelled=None):
        self.action = action
        self.args = args
        self.caller = caller or {"client_name": "unknown"}
        self._progress = progress
        self._cancelled = cancelled

    def progress(self, done, total=0.0, message=""):
        """Reports progress; a no-op when nobody listens."""
        if self._progress is not None:
            self._progress(done, total, message)

    def cancelled(self):
        """True once the caller cancelled the call or its time ran out."""
        return self._cancelled is not None and self._cancelled()


def log(message, **fields):
    """Writes one JSON log line to stderr (the host forwards it with the
    plugin's name). Never print to stdout: it carries the handshake."""
    entry = {"@level": "info", "@message": message}
    entry.update(fields)
    sys.stderr.write(json.dumps(entry) + "\n")
    sys.stderr.flush()


def run_action(actions, req):
    """Runs one action and returns (result_dict, markdown) or raises
    ToolError; any other exception becomes internal_error."""
    handler = actions.get(req.action)
    if handler is None:
        raise ToolError("unknown_action", "unknown action %r" % req.action,
                        details={"actions": sorted(actions)})
    try:
        res = handler(req)
    except ToolError:
        raise
    except Exception as e:  # a bug in the handler must not end the plugin
        log("action failed unexpectedly", action=req.action, error=repr(e), stack=traceback.format_exc())
        raise ToolError("internal_error", "action %s failed unexpectedly: %s" % (req.action, e))
    if res is None:
        res = Result({})
    if not isinstance(res.data, dict):
        raise ToolError("internal_error", "action %s returned %s, not a JSON object" % (req.action, type(res.data).__name__))
    return res


# ---- serving the host over go-plugin -------------------------------------


def _own_certificate():
    """A self-signed certificate and key for this run, as go-plugin's
    AutoMTLS expects: valid for localhost, for server and client auth."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost"),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "toolhost plugin")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder()
            .subject_name(name).issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(seconds=30))
            .not_valid_after(now + datetime.timedelta(days=365))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=True, key_agreement=True,
                                         key_cert_sign=True, content_commitment=False, data_encipherment=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]),
                           critical=False)
            .sign(key, hashes.SHA256()))
    cert_pem = cert.public_bytes(serialization.Encoding.PEM)
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    der = cert.public_bytes(serialization.Encoding.DER)
    return cert_pem, key_pem, der


def _caller_dict(c):
    return {"client_name": c.client_name or "unknown", "client_version": c.client_version,
            "request_id": c.request_id, "confirmed": c.confirmed, "agent": c.agent,
            "max_result_bytes": c.max_result_bytes}


def _wire_result(pb, res=None, err=None):
    if err is not None:
        env = pb.ErrorEnvelope(code=err.code, message=err.message, did_you_mean=err.did_you_mean,
                               next_step=err.next_step)
        if err.details:
            env.details_json = json.dumps(err.details).encode()
        return pb.CallEvent(result=pb.Result(error=env))
    return pb.CallEvent(result=pb.Result(json=json.dumps(res.data, ensure_ascii=False).encode(),
                                         markdown=res.markdown or ""))


def serve(actions):
    """Serves actions to the host until it stops the plugin."""
    import grpc
    import health_pb2
    import health_pb2_grpc
    import plugin_pb2 as pb
    import plugin_pb2_grpc

    versions = [v.strip() for v in os.environ.get("PLUGIN_PROTOCOL_VERSIONS", "").split(",") if v.strip()]
    if versions and str(APP_PROTOCOL_VERSION) not in versions:
        sys.stderr.write("plugin speaks protocol %d; the host asks for %s\n" % (APP_PROTOCOL_VERSION, ",".join(versions)))
        sys.exit(1)

    class PluginServicer(plugin_pb2_grpc.PluginServicer):
        def Describe(self, request, context):
            return pb.DescribeResponse(actions=sorted(actions), sdk=SDK_NAME)

        def Call(self, request, context):
            events = queue.Queue()

            def progress(done, total, message):
                events.put(pb.CallEvent(progress=pb.Progress(progress=done, total=total, message=message)))

            def work():
                try:
                    args = json.loads(request.args_json or b"{}")
                    req = Request(request.action, args, _caller_dict(request.caller), progress,
                                  lambda: not context.is_active())
                    events.put(_wire_result(pb, res=run_action(actions, req)))
                except ToolError as e:
                    events.put(_wire_result(pb, err=e))
                except Exception as e:  # bad JSON from the host, encoding
                    events.put(_wire_result(pb, err=ToolError("internal_error", str(e))))
                events.put(None)

            threading.Thread(target=work, daemon=True).start()
            while True:
                ev = events.get()
                if ev is None:
                    return
                yield ev

    class HealthServicer(health_pb2_grpc.HealthServicer):
        def Check(self, request, context):
            return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)

    stopped = threading.Event()

    def shutdown(request, context):
        stopped.set()
        return b""

    # SO_REUSEPORT off: with gRPC's default (on), a second plugin binds the
    # port another already listens on, the kernel splits the host's
    # connections between them, and the host meets the other's certificate.
    # Off, a taken port fails to bind and the loop below tries the next.
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16), options=[("grpc.so_reuseport", 0)])
    plugin_pb2_grpc.add_PluginServicer_to_server(PluginServicer(), server)
    health_pb2_grpc.add_HealthServicer_to_server(HealthServicer(), server)
    # go-plugin's controller: Shutdown(Empty) returns Empty, both zero bytes,
    # so no generated code is needed for it.
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("plugin.GRPCController", {
        "Shutdown": grpc.unary_unary_rpc_method_handler(
            shutdown, request_deserializer=lambda b: b, response_serializer=lambda b: b)}),))

    host_cert = os.environ.get("PLUGIN_CLIENT_CERT", "")
    cert_line = ""
    if host_cert:
        cert_pem, key_pem, der = _own_certificate()
        creds = grpc.ssl_server_credentials([(key_pem, cert_pem)], root_certificates=host_cert.encode(),
                                            require_client_auth=True)
        bind = lambda addr: server.add_secure_port(addr, creds)
        cert_line = base64.b64encode(der).decode().rstrip("=")
    else:
        bind = server.add_insecure_port

    port = 0
    lo, hi = int(os.environ.get("PLUGIN_MIN_PORT") or 0), int(os.environ.get("PLUGIN_MAX_PORT") or 0)
    for p in (range(lo, hi + 1) if lo and hi >= lo else [0]):
        try:
            port = bind("127.0.0.1:%d" % p)
        except RuntimeError:
            port = 0
        if port:
            break
    if not port:
        sys.stderr.write("plugin: no free port to listen on\n")
        sys.exit(1)
    server.start()
    sys.stdout.write("%d|%d|tcp|127.0.0.1:%d|grpc|%s\n" % (CORE_PROTOCOL_VERSION, APP_PROTOCOL_VERSION, port, cert_line))
    sys.stdout.flush()
    try:
        stopped.wait()
    except KeyboardInterrupt:
        pass
    server.stop(grace=2)


# ---- command-line mode ---------------------------------------------------


def _manifest(here):
    import yaml
    path = os.path.join(here, "tool.yaml")
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def _convert(arg, value):
    t = arg.get("type", "string")
    try:
        if t == "integer":
            return int(value)
        if t == "number":
            return float(value)
        if t == "boolean":
            if value.lower() in ("true", "1", "yes"):
                return True
            if value.lower() in ("false", "0", "no"):
                return False
            raise ValueError("want true or false")
        if t in ("array", "object"):
            return json.loads(value)
    except ValueError as e:
        raise ToolError("invalid_args", "--%s: %r is not a valid %s (%s)" % (arg["name"], value, t, e))
    return value


def _usage(out, m):
    out.write("%s %s - %s\n\nUsage: %s ACTION [--ARG VALUE]... | %s ACTION --json '{...}' [--markdown]\n\nActions:\n"
              % (m["name"], m.get("version", ""), m.get("description", "").strip(), m["name"], m["name"]))
    for a in m.get("actions", []):
        out.write("  %-14s %s\n" % (a["name"], a.get("description", "").strip().split("\n")[0]))
        for arg in a.get("args", []) or []:
            extra = " (required)" if arg.get("required") else (" (default %s)" % json.dumps(arg["default"]) if "default" in arg else "")
            out.write("      --%-16s %s%s  %s\n" % (arg["name"], arg.get("type", "string"), extra, arg.get("description", "")))


def _parse_flags(action, flags):
    args, from_json, markdown = {}, None, False
    known = {a["name"]: a for a in action.get("args", []) or []}
    i = 0
    while i < len(flags):
        f = flags[i]
        if not f.startswith("--"):
            raise ToolError("invalid_args", "unexpected %r: args are given as --NAME VALUE" % f)
        name, eq, value = f[2:].partition("=")
        if name == "markdown":
            markdown = True
            i += 1
            continue
        arg = known.get(name)
        if name != "json" and arg is None:
            import difflib
            raise ToolError("invalid_args", "unknown arg --%s of %s" % (name, action["name"]),
                            did_you_mean=difflib.get_close_matches(name, list(known), n=3),
                            next_step="the args of %s are: %s" % (action["name"], ", ".join(known) or "none"))
        if not eq:
            if arg is not None and arg.get("type") == "boolean" and (i + 1 >= len(flags) or flags[i + 1].startswith("--")):
                args[name] = True
                i += 1
                continue
            if i + 1 >= len(flags):
                raise ToolError("invalid_args", "--%s needs a value" % name)
            value = flags[i + 1]
            i += 1
        i += 1
        if name == "json":
            try:
                from_json = json.loads(value)
            except ValueError as e:
                raise ToolError("invalid_args", "--json is not JSON: %s" % e)
            continue
        args[name] = _convert(arg, value)
    if from_json is not None:
        if args:
            raise ToolError("invalid_args", "give args either as --json or as flags, not both")
        args = from_json
    for name, arg in known.items():
        if name not in args and "default" in arg:
            args[name] = arg["default"]
    missing = [n for n, a in known.items() if a.get("required") and n not in args]
    if missing:
        raise ToolError("invalid_args", "missing required arg --%s of %s" % (missing[0], action["name"]),
                        next_step="run `%s --help`" % action["name"])
    return args, markdown


def run_cli(actions, argv, here, out=sys.stdout, err=sys.stderr):
    """Runs one action from the command line and returns the exit code."""
    m = _manifest(here)
    if not argv or argv[0] in ("-h", "--help", "help"):
        _usage(out, m)
        return EXIT_OK if argv else EXIT_USAGE
    if argv[0] == "--version":
        out.write("%s %s\n" % (m["name"], m.get("version", "")))
        return EXIT_OK
    action = next((a for a in m.get("actions", []) if a["name"] == argv[0]), None)
    try:
        if action is None:
            import difflib
            raise ToolError("unknown_action", "unknown action %r of %s" % (argv[0], m["name"]),
                            did_you_mean=difflib.get_close_matches(argv[0], [a["name"] for a in m.get("actions", [])], n=3),
                            next_step="run `%s --help` to list the actions" % m["name"])
        if "-h" in argv[1:] or "--help" in argv[1:]:
            _usage(out, {**m, "actions": [action]})
            return EXIT_OK
        args, markdown = _parse_flags(action, argv[1:])
    except ToolError as e:
        out.write(json.dumps(e.envelope(), indent=2, ensure_ascii=False) + "\n")
        return EXIT_USAGE
    req = Request(action["name"], args, {"client_name": "cli"})
    try:
        res = run_action(actions, req)
    except ToolError as e:
        out.write(json.dumps(e.envelope(), indent=2, ensure_ascii=False) + "\n")
        return exit_code(e)
    if markdown and res.markdown:
        out.write(res.markdown.rstrip("\n") + "\n")
    else:
        out.write(json.dumps(res.data, indent=2, ensure_ascii=False) + "\n")
    return EXIT_OK


def main(actions, here=None):
    """Serves the host when it started this process, else runs as a CLI.
    here is the plugin's folder (default: the calling script's). Exits."""
    here = here or os.path.dirname(os.path.abspath(sys.argv[0]))
    if os.environ.get(COOKIE_KEY) == COOKIE_VALUE:
        serve(actions)
        sys.exit(0)
    sys.exit(run_cli(actions, sys.argv[1:], here))
